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
from codeimpact.graph.delta import GraphDelta
from codeimpact.graph.schema import NODE_TABLES, REL_TABLES
from codeimpact.graph.sidecar import write_unresolved
from codeimpact.graph.store import GraphTables, Writer
from codeimpact.indexer.resolved import EXTERNAL_PREFIX, Edge, ResolvedFile, SymbolRow

EdgeKey = tuple[str, str, str]  # (rel, src, dst)


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
    """One edge per (relation, source, target) over all files: most confident, earliest line."""
    best: dict[EdgeKey, Edge] = {}
    for rf in resolved.values():
        for e in rf.edges:
            key = (e.rel, e.src, e.dst)
            cur = best.get(key)
            if (
                cur is None
                or e.confidence > cur.confidence
                or (e.confidence == cur.confidence and e.line < cur.line)
            ):
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


def content_of(records, resolved: dict[str, ResolvedFile], ids: dict[str, int] | None = None,
               free_ids: list[int] | None = None) -> GraphContent:  # fmt: skip
    """The graph of `resolved`; with `ids`, keep existing ids and give new symbols free ones."""
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
    if ids is None:
        new_ids = {u: i for i, u in enumerate(sorted(symbols))}
        free: list[int] = []
    else:
        new_ids, free = assign_ids(ids, free_ids or [], symbols)
    files = {r.path: file_row(r) for r in records}
    return GraphContent(files, symbols, edges, new_ids, free)


def assign_ids(old: dict[str, int], free: list[int], symbols) -> tuple[dict[str, int], list[int]]:
    """Unchanged symbols keep their id; vanished ids are reused, lowest first."""
    ids = {u: i for u, i in old.items() if u in symbols}
    freed = sorted(set(free) | {i for u, i in old.items() if u not in symbols})
    nxt = max(old.values(), default=-1) + 1
    pos = 0
    for u in sorted(u for u in symbols if u not in ids):
        if pos < len(freed):
            ids[u] = freed[pos]
            pos += 1
        else:
            ids[u] = nxt
            nxt += 1
    return ids, freed[pos:]


def _arrow(columns: list[tuple[str, str]], rows: list[tuple]) -> pa.Table:
    types = {
        "STRING": pa.string(),
        "INT64": pa.int64(),
        "BOOLEAN": pa.bool_(),
        "DOUBLE": pa.float64(),
    }
    cols = list(zip(*rows)) if rows else [[] for _ in columns]
    return pa.table({c: pa.array(list(v), type=types[t]) for (c, t), v in zip(columns, cols)})


def full_tables(g: GraphContent) -> GraphTables:
    files = _arrow(NODE_TABLES["File"], list(g.files.values()))
    syms = _arrow(
        NODE_TABLES["Symbol"], [symbol_row(g.symbols[u], g.ids[u]) for u in sorted(g.symbols)]
    )
    rel_rows: dict[str, list[tuple]] = {name: [] for name in REL_TABLES}
    for u in sorted(g.symbols):
        s = g.symbols[u]
        if s.file:
            rel_rows["DEFINES"].append((s.file, u))
    for key in sorted(g.edges):
        e = g.edges[key]
        rel_rows[e.rel].append(edge_row(e))
    rels = {
        name: _arrow([("from", "STRING"), ("to", "STRING"), *REL_TABLES[name][2]], rows)
        for name, rows in rel_rows.items()
    }
    return GraphTables(files=files, symbols=syms, rels=rels)


def diff_content(old: GraphContent, new: GraphContent) -> GraphDelta:
    """Rows that turn `old` into `new` (compared in full: cheap next to any database write)."""
    d = GraphDelta()
    d.files_delete = sorted(p for p in old.files if p not in new.files)
    d.files_upsert = [new.files[p] for p in sorted(new.files) if old.files.get(p) != new.files[p]]
    for u in sorted(old.symbols):
        if u not in new.symbols:
            d.symbols_delete.append(u)
    for u in sorted(new.symbols):
        s = new.symbols[u]
        if u not in old.symbols:
            d.symbols_insert.append(symbol_row(s, new.ids[u]))
            if s.file:
                d.rels_insert.setdefault("DEFINES", []).append((s.file, u))
        elif old.symbols[u] != s or old.ids[u] != new.ids[u]:
            d.symbols_update.append(symbol_row(s, new.ids[u]))
    gone = set(d.symbols_delete)
    for key, e in old.edges.items():
        ne = new.edges.get(key)
        if ne is None or ne != e:
            if e.src not in gone and e.dst not in gone:  # DETACH DELETE takes those
                d.rels_delete.setdefault(e.rel, []).append((e.src, e.dst))
    for key in sorted(new.edges):
        e = new.edges[key]
        if old.edges.get(key) != e:
            d.rels_insert.setdefault(e.rel, []).append(edge_row(e))
    return d


def write_sidecars(gen_path: Path, generation: int, g: GraphContent, resolved) -> None:
    n = g.n_nodes
    keys = list(g.edges)
    ids = g.ids
    m = len(keys)
    src = np.fromiter((ids[k[1]] for k in keys), dtype=np.int64, count=m)
    dst = np.fromiter((ids[k[2]] for k in keys), dtype=np.int64, count=m)
    etype = np.fromiter((csr.EDGE_TYPES[k[0]] for k in keys), dtype=np.uint8, count=m)
    conf = np.fromiter((g.edges[k].confidence for k in keys), dtype=np.float32, count=m)
    is_test = np.zeros(n, dtype=np.uint8)
    kind = np.full(n, 255, dtype=np.uint8)  # 255: an id not in use (freed by an incremental run)
    for u, s in g.symbols.items():
        i = ids[u]
        is_test[i] = 1 if s.is_test else 0
        kind[i] = csr.KIND_CODES.get(s.kind, 255)
    fwd, rev = csr.build_csr(n, src, dst, etype, conf)
    csr.write_snapshot(
        gen_path,
        csr.Snapshot(generation=generation, n_nodes=n, forward=fwd, reverse=rev,
                     node_flags=is_test, node_kind=kind),
    )  # fmt: skip
    unresolved: dict[str, list[tuple[str, int]]] = {}
    for rf in resolved.values():
        for site in rf.unresolved:
            unresolved.setdefault(site.name, []).append((site.scope, site.line))
    write_unresolved(gen_path, unresolved)


def write_full_generation(
    gen: layout.Generation, g: GraphContent, meta: dict, buffer_pool: int
) -> None:
    w = Writer(gen, buffer_pool)
    try:
        w.create_schema()
        w.bulk_load(full_tables(g))
        w.write_meta({**meta, "generation": gen.number})
    finally:
        w.close()
