"""The graph of a full build, gathered file by file as resolution produces it.

Keeping every file's `ResolvedFile` (named tuples, with fresh uid strings in
every edge) and then a dict of every symbol and every edge cost about 8 KB per
symbol at peak. Instead, each file's output is turned into its pack blob at
once (appended to the pack file on disk) and the graph keeps only compact
forms: one string per uid, edges as typed arrays of uid numbers, symbol rows as
Arrow batches. `finish` then assigns the dense ids, keeps one edge per
(relation, source, target) by the rule of `resolved.better`, and hands out the
same rows, state and snapshot arrays as a build from the whole `GraphContent`.
"""

from __future__ import annotations

import marshal
import os
import tempfile
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import compress, repeat
from operator import not_
from pathlib import Path

import numpy as np
import numpy.ma  # noqa: F401 - pyarrow imports it at its first numpy conversion (10 ms): not in finish
import pyarrow as pa

# (Arrow's kernels called by name: `pyarrow.compute`'s import wraps its ~290 functions and
# parses their docstrings, 0.04-0.05 s of CPU at every full build; `Array.take` and
# `Table.filter` import it too)
from pyarrow._compute import call_function as _kernel

from codeimpact.graph import csr, layout
from codeimpact.graph.arrow import arrow_type
from codeimpact.graph.schema import NODE_TABLES, REL_TABLES
from codeimpact.indexer.gather_spill import GatherSpill
from codeimpact.indexer.resolved import (
    EXTERNAL_PREFIX,
    RELAY_REASON,
    Edge,
    ResolvedFile,
    SymbolRow,
)
from codeimpact.indexer.state import ID_BITS, TYPE_BITS, GraphState, Ref, resolved_blob
from codeimpact.indexer.tables import external_row

SYMBOL_SLICE = (
    65536  # rows per Symbol COPY: each COPY costs ~50 ms, one of 4M rows holds much memory
)
BATCH_ROWS = 8192  # symbol rows gathered as Python values before they become an Arrow batch
# Edge relations by number, in name order, so sorting by number sorts by name.
RELS = sorted(r for r in REL_TABLES if r != "DEFINES")
REL_NO = {r: i for i, r in enumerate(RELS)}
# Symbol columns as a file's output gives them (SymbolRow order), without `uid` (the uid
# number stands for it: ids are in uid order, so the column is the sorted uids) and `id`.
ROW_COLUMNS = [(c, t) for c, t in NODE_TABLES["Symbol"] if c not in ("uid", "id")]
ROW_SCHEMA = pa.schema([("tmp", pa.int64())] + [(c, arrow_type(t)) for c, t in ROW_COLUMNS])
assert ["uid"] + [c for c, _ in ROW_COLUMNS] == list(SymbolRow._fields)
assert list(Edge._fields) == ["rel", "src", "dst", "confidence", "reason", "line"]
# Each row column's kind for the C gather (native/core_gather.c): string, int64, bool.
KINDS = "".join({"STRING": "s", "INT64": "i", "BOOLEAN": "b"}[t] for _, t in ROW_COLUMNS)


@dataclass
class FullContent:
    """The graph of a full build in id order, ready for COPY, the snapshot and the state."""

    # schema columns, one row per id, in the order files gave them (COPY needs no order; ids
    # are in uid order)
    symbols: pa.Table
    uids: pa.Array  # id -> uid
    rel: np.ndarray  # per edge: index into RELS; edges sorted by (relation, source, target)
    src: np.ndarray  # dense ids
    dst: np.ndarray
    confidence: np.ndarray  # float64
    reason: np.ndarray  # per edge: index into `reasons`
    reasons: pa.Array  # the reason strings
    line: np.ndarray  # int64
    ids: dict[str, int]
    ext_refs: dict[str, int]  # external uid -> edges into it, in order of the first edge
    foreign: dict[tuple, list[str]]
    calls: dict[str, int]
    pack: Path | None  # the resolved outputs, concatenated in path order
    pack_spans: dict[str, tuple[int, int]]  # path -> (offset, length) in the pack
    n_resolved: int

    @property
    def n_nodes(self) -> int:
        return self.symbols.num_rows

    def edge_counts(self) -> dict[str, int]:
        counts = {name: 0 for name in REL_TABLES}
        counts["DEFINES"] = int(_kernel("sum", [_non_empty(self.symbols["file"])]).as_py() or 0)
        for i, n in zip(*np.unique(self.rel, return_counts=True)):
            counts[RELS[i]] = int(n)
        return counts


class _Numbering(dict):
    """key -> number in order of first sight; `names` lists the keys by number."""

    def __init__(self, names: list):
        super().__init__()
        self.names = names

    def __missing__(self, key) -> int:
        n = self[key] = len(self.names)
        self.names.append(key)
        return n


# The pack file's write buffer: the blobs (~7 KB each) went out in ~2,500 writes of 8 KB on
# Django, ~20 of 1 MB now (0.0157 -> 0.0079 s of CPU for its 20 MB)
PACK_BUFFER = 1 << 20
# Rows the C gather gathers before they and the edges gathered with them go to files
# (indexer/gather_spill.py): the builder's memory while the resolvers run holds at most this
# many rows (~2 MB on Django) and their edges.
SPILL_ROWS = 8192


def _native_gather() -> tuple | None:
    """native/core_gather.c's (`gather_file`, `gather_blob`); None with an extension built
    before them (its gathered state had another shape: no table of the uids)."""
    try:
        from codeimpact.native import _core
    except ImportError:
        return None
    blob = getattr(_core, "gather_blob", None)
    return None if blob is None else (_core.gather_file, blob)


def _row_columns() -> list[list]:
    """Empty row columns for the C gather: [values, offsets (a string column's), validity]."""
    return [[bytearray(), bytearray(4) if k == "s" else None, bytearray()] for k in KINDS]


def _bits(flags: bytearray) -> pa.Buffer:
    """One byte per row (0 or 1) as Arrow's bitmap."""
    return pa.py_buffer(np.packbits(np.frombuffer(flags, np.uint8), bitorder="little"))


class FullGraph:
    """Gathers resolved files (`add`, in path order), then builds the `FullContent`."""

    def __init__(self, scratch_dir: Path, native: bool = True):
        # what a build killed before left there (one build at a time: the index's lock)
        for stale in (*scratch_dir.glob("pack-*.tmp"), *scratch_dir.glob("gather-*.tmp")):
            stale.unlink(missing_ok=True)
        # the pack is written as files come, beside the index, and moved into the generation
        fd, name = tempfile.mkstemp(prefix="pack-", suffix=".tmp", dir=scratch_dir)
        self._pack_path = Path(name)
        self._pack = os.fdopen(fd, "wb", buffering=PACK_BUFFER)
        self._offset = 0
        self._spans: dict[str, tuple[int, int]] = {}
        self._uids: list[str] = []  # number -> the one string kept for it
        # uid -> number in order of first sight (the Python loops': the C gather numbers by
        # its own table of the uids' bytes, and leaves it empty)
        self._uid_no = _Numbering(self._uids)
        self._reasons = _Numbering([])
        self._foreign: dict[tuple, list[str]] = {}
        self._calls: Counter = Counter()
        self._batches: list[pa.RecordBatch] = []
        # the C gather (native/core_gather.c) when the extension has it (`native=False`: the
        # Python loops below, its reference)
        self._gather, self._gather_blob = (_native_gather() if native else None) or (None, None)
        if self._gather is not None:
            self._rows_given = 0  # rows in the batches made
            # the numbers and edge columns are bytearrays the C gather grows in place
            self._g = [self._uid_no, self._uids, REL_NO, self._reasons, self._reasons.names,
                       *(bytearray() for _ in range(8)), _row_columns(), bytearray()]  # fmt: skip
            (self._symbol_nos, self._external_nos, self._rel, self._src, self._dst, self._conf,
             self._reason, self._line) = self._g[5:13]  # fmt: skip
            self._spill: GatherSpill | None = GatherSpill(scratch_dir, ROW_SCHEMA, 6)
            return
        self._spill = None
        self._symbol_nos = array("i")  # numbers of the symbols given (repeats allowed)
        self._external_nos = array("i")  # numbers of external edge targets (repeats allowed)
        self._rows: list[list] = [[] for _ in ROW_SCHEMA.names]
        self._rel, self._src, self._dst = array("b"), array("i"), array("i")
        self._conf, self._reason, self._line = array("d"), array("h"), array("i")

    # -------------------------------------------------------------- gathering
    def add(self, rf: ResolvedFile) -> None:
        blob = resolved_blob(rf)
        self._add(rf.path, blob, rf.symbols, rf.edges, rf.unresolved, rf.calls_total,
                  rf.calls_builtin)  # fmt: skip

    def add_blob(self, path: str, blob: bytes) -> None:
        """`add` of the file whose `resolved_blob` this is: read from its bytes by the C
        gather (native/core_gather.c gather_blob; decoding it into tuples was ~half of the
        gathering's CPU), or decoded into plain tuples (a blob it does not read)."""
        read = self._gather_blob
        got = None if read is None else read(self._g, KINDS, path, EXTERNAL_PREFIX, blob)
        if got is None:
            symbols, edges, unresolved, calls_total, calls_builtin = marshal.loads(blob)
            self._add(path, blob, symbols, edges, unresolved, calls_total, calls_builtin)
            return
        foreign, unresolved, calls_total, calls_builtin = got
        self._to_pack(path, blob)
        self._gathered(path, foreign)
        self._count(calls_total, calls_builtin, unresolved)

    def _add(self, path: str, blob: bytes, symbols: list[tuple], edges: list[tuple],
             unresolved: list[tuple], calls_total: int, calls_builtin: int) -> None:  # fmt: skip
        # rows are read by position (SymbolRow, Edge and Unresolved field order): `add_blob`
        # hands plain tuples, and building named tuples only to read them costs time
        self._to_pack(path, blob)
        if self._gather is not None:
            foreign = self._gather(self._g, KINDS, path, EXTERNAL_PREFIX, symbols, edges)
            self._gathered(path, (edges[i][:3] for i in foreign))
        else:
            if symbols:
                self._add_symbols(symbols)
            if edges:
                self._add_edges(path, edges)
        self._count(calls_total, calls_builtin, len(unresolved))

    def _gathered(self, path: str, foreign: Iterable[tuple]) -> None:
        """After the C gather of a file: the edges it makes for another file's symbols (rel,
        source, target: rare, kept in Python; see _add_edges), and the rows made a batch
        once they are many."""
        for key in foreign:
            self._foreign.setdefault(key, []).append(path)
        if len(self._symbol_nos) // 4 - self._rows_given >= SPILL_ROWS:
            self._spill_out()

    def _spill_out(self) -> None:
        """The rows and edges gathered so far moved to the spill's files."""
        self._flush_native()
        for batch in self._batches:
            self._spill.rows(batch)
        self._batches = []
        self._spill.columns(self._edge_columns())

    def _edge_columns(self) -> list[bytearray]:
        return [self._rel, self._src, self._dst, self._conf, self._reason, self._line]

    def _take_spilled(self) -> None:
        """What went to the spill's files back, before what was gathered since."""
        if self._spill is None:
            return
        self._flush_native()
        self._batches = [*self._spill.take_rows(), *self._batches]
        (self._rel, self._src, self._dst, self._conf, self._reason,
         self._line) = self._spill.take_columns(self._edge_columns())  # fmt: skip

    def _to_pack(self, path: str, blob: bytes) -> None:
        self._pack.write(blob)
        self._spans[path] = (self._offset, len(blob))
        self._offset += len(blob)

    def _count(self, calls_total: int, calls_builtin: int, unresolved: int) -> None:
        self._calls["total"] += calls_total
        self._calls["builtin"] += calls_builtin
        # the sites themselves are read back from the pack for the sidecar (unresolved_sites)
        self._calls["unresolved"] += unresolved

    # The two loops below run per row of every file: they are column operations done by
    # C code (zip, map over dict lookups, array.extend), with Python only for a first sight.
    def _add_symbols(self, symbols: list[tuple]) -> None:
        columns = list(zip(*symbols))
        numbers = list(map(self._uid_no.__getitem__, columns[0]))
        self._symbol_nos.extend(numbers)
        rows = self._rows
        rows[0].extend(numbers)
        for col, values in zip(rows[1:], columns[1:]):
            col.extend(values)
        if len(rows[0]) >= BATCH_ROWS:
            self._flush_rows()

    def _flush_rows(self) -> None:
        if self._gather is not None:
            self._flush_native()
            return
        if self._rows[0]:
            self._batches.append(pa.RecordBatch.from_arrays(
                [pa.array(col, type=f.type) for col, f in zip(self._rows, ROW_SCHEMA)],
                schema=ROW_SCHEMA,
            ))  # fmt: skip
            self._rows = [[] for _ in ROW_SCHEMA.names]

    def _flush_native(self) -> None:
        """The rows the C gather gathered since the last batch, as a batch: its bytearrays
        become the Arrow buffers (no copy), and fresh ones take their place."""
        start, end = self._rows_given, len(self._symbol_nos) // 4
        if end == start:
            return
        numbers = np.frombuffer(self._symbol_nos, np.int32)[start:end].astype(np.int64)
        arrays = [pa.array(numbers)]
        del numbers  # (the view of a bytearray the gather grows)
        for kind, col, field in zip(KINDS, self._g[13], list(ROW_SCHEMA)[1:]):
            values, offsets, valid = col
            nulls = valid.count(0)
            bitmap = _bits(valid) if nulls else None
            if kind == "s":
                buffers = [bitmap, pa.py_buffer(offsets), pa.py_buffer(values)]
            elif kind == "b":
                buffers = [bitmap, _bits(values)]
            else:
                buffers = [bitmap, pa.py_buffer(values)]
            arrays.append(pa.Array.from_buffers(field.type, end - start, buffers, nulls))
        self._batches.append(pa.RecordBatch.from_arrays(arrays, schema=ROW_SCHEMA))
        self._g[13] = _row_columns()
        self._rows_given = end

    def _add_edges(self, path: str, edges: list[tuple]) -> None:
        rels, srcs, dsts, confs, reasons, lines = zip(*edges)
        number = self._uid_no.__getitem__
        src_nos = list(map(number, srcs))
        dst_nos = list(map(number, dsts))
        self._rel.extend(map(REL_NO.__getitem__, rels))
        self._src.extend(src_nos)
        self._dst.extend(dst_nos)
        self._conf.extend(confs)
        self._reason.extend(map(self._reasons.__getitem__, reasons))
        self._line.extend(lines)
        self._external_nos.extend(
            compress(dst_nos, map(str.startswith, dsts, repeat(EXTERNAL_PREFIX)))
        )
        # an edge this file makes for another's symbol (rare: found in C, kept in Python)
        mine = map(str.startswith, srcs, repeat(path + "::"))
        for i in compress(range(len(srcs)), map(not_, mine)):
            key = (rels[i], srcs[i], dsts[i])
            self._foreign.setdefault(key, []).append(path)

    # -------------------------------------------------------------- building
    def abandon(self) -> None:
        """Drop the pack and the spill written so far (the run failed)."""
        self._pack.close()
        self._pack_path.unlink(missing_ok=True)
        if self._spill is not None:
            self._spill.drop()

    def finish(self, symbols_made: Callable[[pa.Table], None] | None = None) -> FullContent:
        """Ids, symbol rows and deduplicated edges; the gathering state is released.
        `symbols_made(table)` is called with the Symbol table as soon as it is made, before
        the edges are (a full build sends it to its database writer then, which COPYs it
        while the rest is made)."""
        pack = self._close_pack()
        self._take_spilled()
        self._flush_rows()
        perm, sorted_uids = self._dense_ids()
        symbols, uids = self._symbol_table(perm, sorted_uids)
        if symbols_made is not None:
            symbols_made(symbols)
        edges = self._edges(perm)
        ext_refs = self._ext_refs(perm, edges[0], edges[2])
        calls = dict(self._calls)
        calls["resolved"] = (
            calls.get("total", 0) - calls.get("builtin", 0) - calls.get("unresolved", 0)
        )
        reasons = pa.array(list(self._reasons), type=pa.string())
        rel, src, dst, conf, reason, line = edges
        content = FullContent(
            symbols, uids, rel, src, dst, conf, reason, reasons, line,
            dict(zip(sorted_uids, range(len(sorted_uids)))), ext_refs,
            {k: sorted(v) for k, v in self._foreign.items()}, calls,
            pack, self._spans, len(self._spans),
        )  # fmt: skip
        return content

    def _close_pack(self) -> Path | None:
        # not fsynced here: the state that names it does (save_graph_state), beside Kùzu's write
        self._pack.close()
        if not self._spans:
            self._pack_path.unlink(missing_ok=True)
            return None
        return self._pack_path

    def _is_symbol(self) -> np.ndarray:
        """Per uid number: a symbol some file gave."""
        return self._mask(self._symbol_nos)

    def _is_external(self) -> np.ndarray:
        """Per uid number: the target of an edge out of the repository."""
        return self._mask(self._external_nos)

    def _mask(self, numbers: array) -> np.ndarray:
        mask = np.zeros(len(self._uids), dtype=bool)
        mask[np.frombuffer(numbers, np.int32)] = True
        return mask

    def _dense_ids(self) -> tuple[np.ndarray, list[str]]:
        """Nodes are the symbols and the external targets; ids are dense, in uid order.
        Returns uid number -> id (-1: not a node, e.g. a target that resolved to no symbol)."""
        is_symbol, is_external = self._is_symbol(), self._is_external()
        is_node = is_symbol | is_external
        numbers = np.flatnonzero(is_node)
        uids = self._uids
        numbers = sorted(numbers.tolist(), key=uids.__getitem__)
        perm = np.full(len(uids), -1, dtype=np.int64)
        perm[numbers] = np.arange(len(numbers))
        return perm, [uids[n] for n in numbers]

    def _symbol_table(self, perm: np.ndarray, sorted_uids: list[str]) -> tuple[pa.Table, pa.Array]:
        """One row per id, and the uids by id: a file's own symbol (the last row given for its
        uid, as a dict keyed by uid would keep) or the external row of a target outside the
        repository. The rows stay in the order they were given: putting them in id order
        (a take over every string column) cost 0.1-0.2 s on Django, and COPY needs no order."""
        ext_numbers = np.flatnonzero(self._is_external() & ~self._is_symbol())
        ext_rows = [[] for _ in ROW_SCHEMA.names]
        for n in ext_numbers.tolist():
            ext_rows[0].append(n)
            for col, value in zip(ext_rows[1:], external_row(self._uids[n])[1:]):
                col.append(value)
        batches = [*self._batches, pa.RecordBatch.from_arrays(
            [pa.array(col, type=f.type) for col, f in zip(ext_rows, ROW_SCHEMA)], schema=ROW_SCHEMA,
        )]  # fmt: skip
        self._batches = []
        rows = pa.Table.from_batches(batches, schema=ROW_SCHEMA)
        del batches
        ids = perm[rows["tmp"].to_numpy()]
        # a uid given again (rare) keeps its last row
        order = np.lexsort((np.arange(len(ids)), ids))
        last = np.ones(len(order), dtype=bool)
        last[:-1] = ids[order[:-1]] != ids[order[1:]]
        if int(last.sum()) != len(sorted_uids):
            raise AssertionError("every node needs exactly one symbol row")
        if len(ids) != len(sorted_uids):
            # the rows between those dropped, as slices (no copy: a filter copied every
            # column for the few rows dropped, 10-70 ms on Django's 7)
            dropped = np.sort(order[~last])
            starts, ends = np.r_[0, dropped + 1], np.r_[dropped, len(ids)]
            rows = pa.concat_tables([rows.slice(a, b - a) for a, b in
                                     zip(starts.tolist(), ends.tolist()) if b > a])  # fmt: skip
            keep = np.ones(len(ids), dtype=bool)
            keep[dropped] = False
            ids = ids[keep]
        by_id = pa.array(sorted_uids, type=pa.string())
        ids = pa.array(ids, type=pa.int64())
        made = {"uid": _kernel("take", [by_id, ids]), "id": ids}
        columns = [made[c] if c in made else rows[c] for c, _ in NODE_TABLES["Symbol"]]
        table = pa.Table.from_arrays(columns, names=[c for c, _ in NODE_TABLES["Symbol"]])
        return table, by_id

    def _edges(self, perm: np.ndarray) -> tuple:
        """Edges between nodes, one per (relation, source, target): the best by
        `resolved.better` (most confident, not a relay, earliest line, then reason), in key
        order."""
        rel = np.frombuffer(self._rel, np.int8)
        src = perm[np.frombuffer(self._src, np.int32)]
        dst = perm[np.frombuffer(self._dst, np.int32)]
        conf = np.frombuffer(self._conf, np.float64)
        line = np.frombuffer(self._line, np.int32)
        by_name = sorted(self._reasons)
        rank = np.array([by_name.index(r) for r in self._reasons] or [0], dtype=np.int64)
        relay = np.array([r == RELAY_REASON for r in self._reasons] or [False])
        reason = np.frombuffer(self._reason, np.int16)
        ok = (src >= 0) & (dst >= 0)
        if not ok.all():
            ok = np.flatnonzero(ok)
            rel, src, dst, conf, line, reason = (a[ok] for a in (rel, src, dst, conf, line, reason))
        order, first = _best_first(rel, src, dst, conf, line, reason, relay, rank, len(perm))
        keep = order[first]  # each key's best edge, in key order
        return (rel[keep], src[keep], dst[keep], conf[keep], reason[keep],
                line[keep].astype(np.int64))  # fmt: skip

    def _ext_refs(self, perm: np.ndarray, rel: np.ndarray, dst: np.ndarray) -> dict[str, int]:
        """External uid -> edges into it, in the order the edges were first met (as a dict
        of every edge, filled in file order, would list them)."""
        is_ext = self._is_external()
        nodes = perm >= 0
        src_n = np.frombuffer(self._src, np.int32)
        dst_n = np.frombuffer(self._dst, np.int32)
        met = np.flatnonzero(is_ext[dst_n] & nodes[src_n] & nodes[dst_n])
        numbers, first = np.unique(dst_n[met], return_index=True)
        ext_ids, counts = np.unique(dst[np.isin(dst, perm[numbers])], return_counts=True)
        count_of = dict(zip(ext_ids.tolist(), counts.tolist()))
        out: dict[str, int] = {}
        for n in numbers[np.argsort(met[first], kind="stable")].tolist():
            out[self._uids[n]] = count_of[int(perm[n])]
        return out


def _best_first(rel: np.ndarray, src: np.ndarray, dst: np.ndarray, conf: np.ndarray,
                line: np.ndarray, reason: np.ndarray, relay: np.ndarray, rank: np.ndarray,
                ids: int) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """The order of the edges by (relation, source, target), each key's best first: the order
    of np.lexsort((rank, line, relay, -conf, dst, src, rel)) (`relay`, `rank`: per reason
    number), and per place in it whether it is the first of its key. The key is packed in
    one int64 as long as ids fit its bits, and sorted alone: only the edges of a key given
    more than once (145 of Django's 193K) are sorted by the rest (three stable sorts of
    every edge, the key, -conf and (relay, line, rank) packed, were ~0.1 G instructions of
    the build's serial end)."""
    bits = max(1, int(ids).bit_length())
    if len(RELS).bit_length() + 2 * bits > 63:
        order = np.lexsort((rank[reason], line, relay[reason], -conf, dst, src, rel))
        first = np.ones(len(order), dtype=bool)
        a, b, c = rel[order], src[order], dst[order]
        first[1:] = (a[1:] != a[:-1]) | (b[1:] != b[:-1]) | (c[1:] != c[:-1])
        return order, first
    key = (rel.astype(np.int64) << (2 * bits)) | (src << bits) | dst
    order = np.argsort(key)
    sorted_key = key[order]
    first = np.ones(len(order), dtype=bool)
    first[1:] = sorted_key[1:] != sorted_key[:-1]
    if first.all():
        return order, first
    shared = ~first  # the places of the keys given more than once
    shared[:-1] |= shared[1:]
    # their edges in input order (the stable sort's ties), then by the whole order: each
    # key keeps its places, keys being in the same order both ways
    some = np.sort(order[shared])
    why = reason[some]
    # line: int32 (+2**31 >= 0, 32 bits), rank: a reason's number (< 2**15, an int16)
    tie = ((relay[why].astype(np.int64) << 47) | ((line[some].astype(np.int64) + (1 << 31)) << 15)
           | rank[why])  # fmt: skip
    order[shared] = some[np.lexsort((tie, -conf[some], key[some]))]
    return order, first


def _non_empty(strings) -> pa.Array:
    return _kernel("not_equal", [strings, pa.scalar("")])


def warm_up() -> None:
    """Pay Arrow's one-time start of its compute functions (0.03-0.05 s at the first filter
    in a process) now: run while the workers extract, it is off the serial path from the
    last resolved file to the database."""
    small = pa.table({"n": pa.array([1, 2]), "s": pa.array(["a", ""])})
    _kernel("take", [_kernel("filter", [small, _non_empty(small["s"])]), pa.array([0])])
    _kernel("dictionary_encode", [small["s"].combine_chunks()])


def edge_codes(c: FullContent) -> tuple[np.ndarray, np.ndarray]:
    """Every edge as a sorted `state.edge_code` and its float32 confidence."""
    etype = np.array([csr.EDGE_TYPES[r] for r in RELS], dtype=np.int64)[c.rel.astype(np.int64)]
    codes = (c.src << (ID_BITS + TYPE_BITS)) | (c.dst << TYPE_BITS) | etype
    order = np.argsort(codes, kind="stable")
    return codes[order], c.confidence.astype(np.float32)[order]


def node_arrays(c: FullContent) -> tuple[np.ndarray, np.ndarray]:
    """Per id: test flag and kind code (255 for a kind the snapshot has no code for)."""
    ids = c.symbols["id"].to_numpy()
    flags = np.zeros(len(ids), dtype=np.uint8)
    flags[ids] = c.symbols["is_test"].to_numpy(zero_copy_only=False)
    kind = _kernel("dictionary_encode", [c.symbols["kind"].combine_chunks()])
    codes = np.array([csr.KIND_CODES.get(k, 255) for k in kind.dictionary.to_pylist()] or [255],
                     dtype=np.uint8)  # fmt: skip
    kinds = np.zeros(len(ids), dtype=np.uint8)
    kinds[ids] = codes[kind.indices.to_numpy(zero_copy_only=False)]
    return flags, kinds


def unresolved_sites(pack_dir: Path, refs: dict[str, Ref]) -> dict[str, list[tuple[str, int]]]:
    """callee name -> [(calling scope, line)], files in the order of `refs` (path order): the
    unresolved sidecar, read back from the resolved outputs in the pack by the sidecar writer
    (beside Kùzu's write), so the parent neither groups the sites while the resolvers run nor
    holds them until the write (1.4M sites on a 52,452-file tree: 300 MB)."""
    sites: dict[str, list[tuple[str, int]]] = {}
    packs: dict[str, object] = {}
    try:
        for name, offset, length in refs.values():
            fh = packs.get(name)
            if fh is None:
                fh = packs[name] = open(pack_dir / name, "rb")  # noqa: SIM115
            fh.seek(offset)
            for scope, callee, line in marshal.loads(fh.read(length))[2]:
                sites.setdefault(callee, []).append((scope, line))
    finally:
        for fh in packs.values():
            fh.close()
    return sites


def node_tables(c: FullContent, files: pa.Table) -> Iterator[tuple[str, pa.Table]]:
    """The node tables, which the relations' COPYs need first (with `rel_tables`, in COPY
    order, the same rows as `tables.full_tables`)."""
    yield "File", files
    yield from symbol_slices(c.symbols)


def symbol_slices(symbols: pa.Table) -> Iterator[tuple[str, pa.Table]]:
    """The Symbol table as its COPYs take it."""
    for i in range(0, symbols.num_rows, SYMBOL_SLICE):
        yield "Symbol", symbols.slice(i, SYMBOL_SLICE)


def rel_tables(c: FullContent) -> Iterator[tuple[str, pa.Table]]:
    """The relation tables, in COPY order (after `node_tables`)."""
    # the two columns alone: filtering the whole table copied every string column (0.1 s)
    pairs = pa.table({"from": c.symbols["file"], "to": c.symbols["uid"]})
    yield "DEFINES", _kernel("filter", [pairs, _non_empty(pairs["from"])])
    del pairs
    for no, name in sorted(enumerate(RELS), key=lambda x: list(REL_TABLES).index(x[1])):
        at = np.flatnonzero(c.rel == no)
        src, dst = _ends(c.uids, c.src[at], c.dst[at])
        cols = {"from": src, "to": dst}
        for prop, _ in REL_TABLES[name][2]:
            if prop == "confidence":
                cols[prop] = pa.array(c.confidence[at], type=pa.float64())
            elif prop == "reason":
                cols[prop] = pa.DictionaryArray.from_arrays(c.reason[at].astype(np.int32),
                                                            c.reasons)  # fmt: skip
            else:
                cols[prop] = pa.array(c.line[at], type=pa.int64())
        yield name, pa.table(cols)


def _ends(uids: pa.Array, src: np.ndarray, dst: np.ndarray) -> tuple[pa.Array, pa.Array]:
    """A relation's source and target uids as Kùzu's COPY takes them: dictionary arrays
    over the uids its edges name (in id order, each once). Taken as strings, every end
    was a uid copied (Django: 27 MB of the builder's fresh pages, ~10K page faults, sent to
    the writer and read there); the uids a table names are fewer (its IPC stream 20 MB)."""
    named = np.zeros(len(uids), dtype=bool)
    named[src] = True
    named[dst] = True
    index = np.cumsum(named, dtype=np.int32) - 1  # id -> its place among those named
    words = _kernel("take", [uids, pa.array(np.flatnonzero(named))])
    return (pa.DictionaryArray.from_arrays(index[src], words),
            pa.DictionaryArray.from_arrays(index[dst], words))  # fmt: skip


def full_state(c: FullContent, used: dict[str, bytes], modules: dict,
               summaries: dict[str, bytes], gen: layout.Generation) -> GraphState:  # fmt: skip
    """The state a full build leaves; its resolved outputs are the pack, moved into `gen`."""
    refs: dict[str, Ref] = {}
    if c.pack is not None:
        name = f"pack-{gen.number}.bin"
        os.replace(c.pack, gen.path / name)
        refs = {p: (name, off, n) for p, (off, n) in c.pack_spans.items()}
    codes, confs = edge_codes(c)
    totals = {"calls": c.calls, "edges": c.edge_counts(), "symbols": c.n_nodes}
    return GraphState(refs, used, modules, c.ids, [], c.foreign, c.ext_refs, totals, summaries,
                      codes, confs, pack_dir=gen.path)  # fmt: skip
