"""What the traversal questions read: the CSR snapshot plus an in-memory symbol table.

One `GraphView` is loaded per open `Index` (the generation it reads cannot change
under it: a new analyze writes a new generation folder). The symbol table is a
column-wise copy of the `Symbol` table, indexed by the dense symbol `id` that is
also the CSR node id, so a query maps ids back to uids without a round trip to
Kùzu (one Cypher lookup costs ~2 ms, the whole depth-3 impact budget is 5 ms).

If the on-disk snapshot is missing or of another generation, it is rebuilt from
the database *in memory only*: the query side opens the index read-only, so it
never writes a snapshot back (`graph analyze` does). `GraphView.rebuilt` says so.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from codeimpact.graph import csr as csrmod
from codeimpact.graph.errors import CorruptIndex
from codeimpact.graph.schema import REL_TABLES
from codeimpact.graph.sidecar import UNRESOLVED_FILE, read_unresolved

# Relations whose edges carry a confidence; the others are exact (1.0), as the indexer writes them.
_WITH_CONFIDENCE = {"CALLS", "REFERENCES"}


@dataclass(frozen=True)
class SymbolRef:
    """A symbol as the questions report it."""

    uid: str
    kind: str
    name: str
    qualified_name: str
    file: str
    line: int
    end_line: int
    is_test: bool


@dataclass(frozen=True, eq=False)
class SymbolTable:
    """Columns of the Symbol table, row i = symbol id i, plus lookup indexes."""

    uid: list[str]
    kind: list[str]
    name: list[str]
    qualified_name: list[str]
    file: list[str]
    start_line: np.ndarray  # int64
    end_line: np.ndarray  # int64
    is_test: np.ndarray  # bool
    module_id: np.ndarray  # int64: id of the module symbol of the defining file, -1 if none
    by_uid: dict[str, int]

    # The other indexes are made on first use: a query naming its target by uid reads none
    # of them, and grouping Django's 48K symbols three ways took 0.07 s of a cold query.
    @functools.cached_property
    def by_qualified_name(self) -> dict[str, list[int]]:
        return _group(self.qualified_name)

    @functools.cached_property
    def by_name(self) -> dict[str, list[int]]:
        return _group(self.name)

    @functools.cached_property
    def by_file(self) -> dict[str, list[int]]:
        """Every symbol defined in a file, module first."""
        return {f: ids for f, ids in _group(self.file).items() if f}

    def __len__(self) -> int:
        return len(self.uid)

    def ref(self, i: int) -> SymbolRef:
        return SymbolRef(
            self.uid[i],
            self.kind[i],
            self.name[i],
            self.qualified_name[i],
            self.file[i],
            int(self.start_line[i]),
            int(self.end_line[i]),
            bool(self.is_test[i]),
        )

    def local_name(self, i: int) -> str:
        """The part of the uid after `::` (`Flask.run`; "" for a module)."""
        return self.uid[i].partition("::")[2]


def _group(keys: list[str]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for i, k in enumerate(keys):
        out.setdefault(k, []).append(i)
    return out


def load_symbols(reader) -> SymbolTable:
    """The whole Symbol table, one Arrow scan (~40 ms for Django's 47k symbols)."""
    res = reader.conn.execute(
        "MATCH (s:Symbol) RETURN s.id AS id, s.uid AS uid, s.kind AS kind, s.name AS name, "
        "s.qualified_name AS qn, s.file AS file, s.start_line AS sl, s.end_line AS el, "
        "s.is_test AS t ORDER BY id"
    )
    cols = res.get_as_arrow().to_pydict()
    ids = cols["id"]
    if ids != list(range(len(ids))):
        raise CorruptIndex(
            "the index's symbol ids are not dense 0..n-1: run `graph analyze --force`"
        )
    uids = cols["uid"]
    files = [f or "" for f in cols["file"]]
    by_uid = {u: i for i, u in enumerate(uids)}
    module_id = np.fromiter(
        (by_uid.get(f + "::", -1) if f else -1 for f in files), dtype=np.int64, count=len(files)
    )
    return SymbolTable(
        uid=uids,
        kind=cols["kind"],
        name=cols["name"],
        qualified_name=cols["qn"],
        file=files,
        start_line=np.asarray(cols["sl"], dtype=np.int64),
        end_line=np.asarray(cols["el"], dtype=np.int64),
        is_test=np.asarray(cols["t"], dtype=bool),
        module_id=module_id,
        by_uid=by_uid,
    )


def snapshot_from_db(reader, generation: int, symbols: SymbolTable) -> csrmod.Snapshot:
    """Rebuild the CSR snapshot from the database's edges (same arrays `analyze` writes)."""
    parts = []
    for rel, (src_table, dst_table, _props) in REL_TABLES.items():
        if rel not in csrmod.EDGE_TYPES or (src_table, dst_table) != ("Symbol", "Symbol"):
            continue
        conf = "r.confidence" if rel in _WITH_CONFIDENCE else "1.0"
        # The label is a fixed name from our own schema table, never user text.
        table = reader.conn.execute(
            f"MATCH (a:Symbol)-[r:{rel}]->(b:Symbol) RETURN a.id AS s, b.id AS d, {conf} AS c"
        ).get_as_arrow()
        if table.num_rows:
            src = table.column("s").to_numpy()
            parts.append(
                (
                    src,
                    table.column("d").to_numpy(),
                    np.full(src.shape[0], csrmod.EDGE_TYPES[rel], dtype=np.uint8),
                    table.column("c").to_numpy(zero_copy_only=False).astype(np.float32),
                )
            )
    if parts:
        src, dst, etype, conf = (np.concatenate(cols) for cols in zip(*parts))
    else:
        src = dst = np.empty(0, np.int64)
        etype, conf = np.empty(0, np.uint8), np.empty(0, np.float32)
    kinds = np.fromiter(
        (csrmod.KIND_CODES.get(k, 255) for k in symbols.kind), dtype=np.uint8, count=len(symbols)
    )
    return csrmod.build_snapshot(
        generation,
        len(symbols),
        src,
        dst,
        etype,
        conf,
        node_flags=symbols.is_test.astype(np.uint8) * csrmod.FLAG_TEST,
        node_kind=kinds,
        node_rank=csrmod.uid_ranks(symbols.uid),
    )


@dataclass(frozen=True, eq=False)
class UnresolvedSites:
    """Call sites whose callee could not be resolved, one array entry per site."""

    names: list[str]  # distinct callee names
    name_index: np.ndarray  # int64 per site: index into names
    caller: np.ndarray  # int64 per site: symbol id of the calling symbol (-1: unknown uid)
    line: np.ndarray  # int64 per site
    by_name: dict[str, np.ndarray]  # callee name -> site indices

    @classmethod
    def build(
        cls, raw: dict[str, list[tuple[str, int]]], by_uid: dict[str, int]
    ) -> UnresolvedSites:
        names = sorted(raw)
        name_index, caller, line, by_name = [], [], [], {}
        for k, name in enumerate(names):
            start = len(caller)
            for uid, at in raw[name]:
                name_index.append(k)
                caller.append(by_uid.get(uid, -1))
                line.append(int(at))
            by_name[name] = np.arange(start, len(caller), dtype=np.int64)
        return cls(
            names,
            np.asarray(name_index, dtype=np.int64),
            np.asarray(caller, dtype=np.int64),
            np.asarray(line, dtype=np.int64),
            by_name,
        )

    def __len__(self) -> int:
        return int(self.caller.shape[0])


@dataclass(eq=False)
class GraphView:
    """Snapshot + symbols + unresolved call sites of one generation."""

    generation: int
    snapshot: csrmod.Snapshot
    symbols: SymbolTable
    rebuilt: bool  # the on-disk snapshot was unusable; this one was rebuilt in memory
    unresolved: dict[str, list[tuple[str, int]]] | None  # None: the sidecar is missing
    repo: Path | None = None  # the repository (its test runners' settings: query/test_runs.py)
    _edge_keys: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    _sites: UnresolvedSites | None = field(default=None, repr=False)
    # reads the relay edges (value-flow CALLS: query/relays.py) from the index on first use
    relay_source: Callable[[], tuple[np.ndarray, np.ndarray]] | None = field(
        default=None, repr=False
    )
    _derived: dict[str, object] = field(default_factory=dict, repr=False)

    def relay_edges(self) -> tuple[np.ndarray, np.ndarray]:
        """(relay ids, callee ids) of the value-flow CALLS edges; none without a source."""
        edges = self._derived.get("relay_edges")
        if edges is None:
            empty = np.empty(0, np.int64)
            source = self.relay_source
            edges = self._derived["relay_edges"] = source() if source else (empty, empty)
        return edges

    def cached(self, key: str):
        """A structure derived from this generation's graph (None before `cache`)."""
        return self._derived.get(key)

    def cache(self, key: str, value) -> None:
        self._derived[key] = value

    def sites(self) -> UnresolvedSites:
        """The unresolved call sites as arrays over symbol ids (built on first use)."""
        if self._sites is None:
            self._sites = UnresolvedSites.build(self.unresolved or {}, self.symbols.by_uid)
        return self._sites

    @property
    def n_nodes(self) -> int:
        return self.snapshot.n_nodes

    def csr(self, direction: str) -> csrmod.CSR:
        return self.snapshot.csr(direction)

    def edge_keys(self, direction: str) -> np.ndarray:
        """`row * n + neighbour` per edge of one CSR: globally sorted, so searchable."""
        keys = self._edge_keys.get(direction)
        if keys is None:
            c = self.csr(direction)
            rows = np.repeat(np.arange(c.n_nodes, dtype=np.int64), np.diff(c.indptr))
            keys = rows * np.int64(max(c.n_nodes, 1)) + c.indices.astype(np.int64)
            self._edge_keys[direction] = keys
        return keys

    def edges_between(
        self,
        direction: str,
        rows: np.ndarray,
        neighbours: np.ndarray,
        type_mask: int,
        min_confidence: float,
    ) -> tuple[np.ndarray, np.ndarray]:
        """For each pair (rows[i] -> neighbours[i]) of one CSR, the edge a traversal with
        these filters followed: the most confident one that passes (lowest type code on
        ties). Returns (edge type codes, confidences); type 255 where no edge passes.
        """
        c = self.csr(direction)
        keys = self.edge_keys(direction)
        want = rows.astype(np.int64) * np.int64(max(c.n_nodes, 1)) + neighbours.astype(np.int64)
        lo = np.searchsorted(keys, want, side="left")
        hi = np.searchsorted(keys, want, side="right")
        types = np.full(want.shape[0], 255, dtype=np.uint8)
        confs = np.zeros(want.shape[0], dtype=np.float32)
        single = (hi - lo) == 1
        e = lo[single]
        ok = ((type_mask >> c.edge_type[e].astype(np.int64)) & 1).astype(bool) & (
            c.confidence[e].astype(np.float64) >= min_confidence
        )
        idx = np.flatnonzero(single)[ok]
        types[idx] = c.edge_type[e[ok]]
        confs[idx] = c.confidence[e[ok]]
        # Several edges between one pair (e.g. CALLS and IMPORTS) are rare: plain loop.
        for i in np.flatnonzero(hi - lo > 1):
            best = None
            for k in range(int(lo[i]), int(hi[i])):
                t, cf = int(c.edge_type[k]), float(c.confidence[k])
                if (type_mask >> t) & 1 and cf >= min_confidence and (best is None or cf > best[1]):
                    best = (t, cf)
            if best is not None:
                types[i], confs[i] = best
        return types, confs


def load_view(index) -> GraphView:
    """The view of an open Index's generation; rebuilds a stale or missing snapshot in memory."""
    symbols = load_symbols(index.reader)
    gen_dir = Path(index.reader.gen.path)
    rebuilt = False
    try:
        snapshot = csrmod.load_snapshot(gen_dir, index.generation)
        if snapshot.n_nodes != len(symbols):
            raise csrmod.SnapshotMismatch("snapshot node count differs from the database")
    except csrmod.SnapshotMismatch:
        snapshot = snapshot_from_db(index.reader, index.generation, symbols)
        rebuilt = True
    unresolved = read_unresolved(gen_dir) if (gen_dir / UNRESOLVED_FILE).is_file() else None
    return GraphView(
        index.generation,
        snapshot,
        symbols,
        rebuilt,
        unresolved,
        Path(index.repo),
        relay_source=_relay_loader(index.reader),
    )


_RELAY_QUERY = (
    "MATCH (a:Symbol)-[r:CALLS]->(b:Symbol) WHERE r.reason = 'value-flow' "
    "RETURN a.id AS s, b.id AS d"
)


def _relay_loader(reader) -> Callable[[], tuple[np.ndarray, np.ndarray]]:
    """Reads the value-flow CALLS edges (the relays of query/relays.py) when first asked."""

    def load() -> tuple[np.ndarray, np.ndarray]:
        table = reader.conn.execute(_RELAY_QUERY).get_as_arrow()
        cols = [table.column(c).to_numpy(zero_copy_only=False) for c in ("s", "d")]
        return cols[0].astype(np.int64), cols[1].astype(np.int64)

    return load
