"""From resolved files to graph content: rows for Kùzu, CSR arrays and sidecars.

`GraphContent` is the whole graph as the indexer sees it (files, symbols with
dense ids, deduplicated edges); a full build writes it with COPY, an
incremental build writes the difference between two of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa

from codeimpact.graph import csr, layout
from codeimpact.graph.schema import NODE_TABLES, REL_TABLES
from codeimpact.graph.store import Writer
from codeimpact.indexer.resolved import EXTERNAL_PREFIX, Edge, ResolvedFile, SymbolRow, better
from codeimpact.indexer.state import GraphState, decode_codes, edge_code, resolved_blob

EdgeKey = tuple[str, str, str]  # (rel, src, dst)
SYMBOL_SLICE = 4096


def external_row(uid: str) -> SymbolRow:
    dotted = uid[len(EXTERNAL_PREFIX) :]
    name = dotted.rpartition(".")[2].rpartition("::")[2]  # `os.path.join`, `std::fmt::Display`
    return SymbolRow(uid, "external", name, dotted, "", 0, 0, 0, 0, "", True, False, "")


def file_row(rec) -> tuple:
    return (rec.path, rec.language, rec.content_hash, rec.size, rec.lines, rec.is_test, rec.status)


def symbol_row(s: SymbolRow, sid: int) -> tuple:
    return (
        s.uid, sid, s.kind, s.name, s.qualified_name, s.file, s.start_line, s.end_line,
        s.start_byte, s.end_byte, s.signature, s.exported, s.is_test, s.language,
    )  # fmt: skip


def edge_row(e: Edge) -> tuple:
    props = REL_TABLES[e.rel][2]
    if not props:
        return (e.src, e.dst)
    if len(props) == 1:
        return (e.src, e.dst, e.line)
    return (e.src, e.dst, e.confidence, e.reason, e.line)


def best_edges(resolved: dict[str, ResolvedFile]) -> dict[EdgeKey, Edge]:
    """One edge per (relation, source, target) over all files, chosen by `better`."""
    best: dict[EdgeKey, Edge] = {}
    for rf in resolved.values():
        for e in rf.edges:
            key = (e.rel, e.src, e.dst)
            if better(e, best.get(key)):
                best[key] = e
    return best


@dataclass
class GraphContent:
    files: dict[str, tuple]  # path -> File row
    symbols: dict[str, SymbolRow]  # uid -> row, externals included
    edges: dict[EdgeKey, Edge]
    ids: dict[str, int]
    free_ids: list[int]

    @property
    def n_nodes(self) -> int:
        return max(self.ids.values(), default=-1) + 1

    def edge_counts(self) -> dict[str, int]:
        counts = {name: 0 for name in REL_TABLES}
        counts["DEFINES"] = sum(1 for s in self.symbols.values() if s.file)
        for rel, _, _ in self.edges:
            counts[rel] += 1
        return counts


def content_of(records, resolved: dict[str, ResolvedFile]) -> GraphContent:
    """The whole graph of a full build; ids are dense, in uid order."""
    symbols: dict[str, SymbolRow] = {}
    for rf in resolved.values():
        for s in rf.symbols:
            symbols[s.uid] = s
    edges = best_edges(resolved)
    for key in edges:
        dst = key[2]
        if dst not in symbols and dst.startswith(EXTERNAL_PREFIX):
            symbols[dst] = external_row(dst)
    edges = {k: e for k, e in edges.items() if e.src in symbols and e.dst in symbols}
    ids = {u: i for i, u in enumerate(sorted(symbols))}
    files = {r.path: file_row(r) for r in records}
    return GraphContent(files, symbols, edges, ids, [])


def _arrow(columns: list[tuple[str, str]], rows: list[tuple]) -> pa.Table:
    types = {
        "STRING": pa.string(),
        "INT64": pa.int64(),
        "BOOLEAN": pa.bool_(),
        "DOUBLE": pa.float64(),
    }
    cols = list(zip(*rows)) if rows else [[] for _ in columns]
    return pa.table({c: pa.array(list(v), type=types[t]) for (c, t), v in zip(columns, cols)})


def full_tables(g: GraphContent):
    """(table name, Arrow table) in load order, one at a time so only one is in memory."""
    yield "File", _arrow(NODE_TABLES["File"], list(g.files.values()))
    uids = sorted(g.symbols)
    # in slices: Kùzu holds less working memory for several small COPYs than for one big one
    for i in range(0, len(uids), SYMBOL_SLICE):
        part = uids[i : i + SYMBOL_SLICE]
        yield (
            "Symbol",
            _arrow(NODE_TABLES["Symbol"], [symbol_row(g.symbols[u], g.ids[u]) for u in part]),
        )
    defines = [("from", "STRING"), ("to", "STRING")]
    yield "DEFINES", _arrow(defines, [(g.symbols[u].file, u) for u in uids if g.symbols[u].file])
    del uids
    keys = sorted(g.edges)
    for rel, (_, _, props) in REL_TABLES.items():
        if rel == "DEFINES":
            continue
        rows = [edge_row(g.edges[k]) for k in keys if k[0] == rel]
        yield rel, _arrow([("from", "STRING"), ("to", "STRING"), *props], rows)
        del rows


def node_arrays(n: int, symbols: dict[str, SymbolRow], ids: dict[str, int]):
    """Per-id test flag and kind code; 255 marks an id not in use (freed by an incremental run)."""
    is_test = np.zeros(n, dtype=np.uint8)
    kind = np.full(n, 255, dtype=np.uint8)
    for u, s in symbols.items():
        i = ids[u]
        is_test[i] = 1 if s.is_test else 0
        kind[i] = csr.KIND_CODES.get(s.kind, 255)
    return is_test, kind


def write_snapshot_arrays(gen_path: Path, generation: int, n: int, codes: np.ndarray,
                          confs: np.ndarray, flags: np.ndarray, kinds: np.ndarray) -> None:  # fmt: skip
    src, dst, etype = decode_codes(codes)
    fwd, rev = csr.build_csr(n, src, dst, etype, confs)
    csr.write_snapshot(
        gen_path,
        csr.Snapshot(generation=generation, n_nodes=n, forward=fwd, reverse=rev,
                     node_flags=flags, node_kind=kinds),
    )  # fmt: skip


def unresolved_sites(resolved: dict[str, ResolvedFile]) -> dict[str, list[tuple[str, int]]]:
    out: dict[str, list[tuple[str, int]]] = {}
    for rf in resolved.values():
        for site in rf.unresolved:
            out.setdefault(site.name, []).append((site.scope, site.line))
    return out


def full_state(g: GraphContent, resolved: dict[str, ResolvedFile], used: dict[str, bytes],
               modules: dict, summaries: dict[str, bytes], calls: dict) -> GraphState:  # fmt: skip
    foreign: dict[tuple, list[str]] = {}
    for p, rf in resolved.items():
        for e in rf.edges:
            if e.src.split("::", 1)[0] != p:
                foreign.setdefault((e.rel, e.src, e.dst), []).append(p)
    ext_refs: dict[str, int] = {}
    for _, _, dst in g.edges:
        if dst.startswith(EXTERNAL_PREFIX):
            ext_refs[dst] = ext_refs.get(dst, 0) + 1
    ids = g.ids
    keys = list(g.edges)
    codes = np.fromiter(
        (edge_code(ids[k[1]], ids[k[2]], csr.EDGE_TYPES[k[0]]) for k in keys),
        dtype=np.int64, count=len(keys),
    )  # fmt: skip
    confs = np.fromiter((g.edges[k].confidence for k in keys), dtype=np.float32, count=len(keys))
    order = np.argsort(codes, kind="stable")
    totals = {"calls": dict(calls), "edges": g.edge_counts(), "symbols": len(g.symbols)}
    return GraphState(
        {},
        used,
        modules,
        dict(ids),
        list(g.free_ids),
        {k: sorted(v) for k, v in foreign.items()},
        ext_refs,
        totals,
        summaries,
        codes[order],
        confs[order],
        {p: resolved_blob(rf) for p, rf in resolved.items()},
    )


def write_full_generation(
    gen: layout.Generation, g: GraphContent, meta: dict, buffer_pool: int
) -> None:
    w = Writer(gen, buffer_pool)
    try:
        w.create_schema()
        for name, arrow_rows in full_tables(g):
            w.copy(name, arrow_rows)
            del arrow_rows
        w.write_meta({**meta, "generation": gen.number})
    finally:
        w.close()
