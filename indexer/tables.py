"""Turn resolved files into the Arrow tables, CSR arrays and sidecars of a generation."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
from codeimpact.graph import csr, layout
from codeimpact.graph.schema import NODE_TABLES, REL_TABLES
from codeimpact.graph.sidecar import write_unresolved
from codeimpact.graph.store import GraphTables, Writer
from codeimpact.indexer.resolved import EXTERNAL_PREFIX, Edge, ResolvedFile, SymbolRow, dedupe_edges


@dataclass
class BuiltTables:
    graph: GraphTables
    symbol_count: int
    edge_counts: dict[str, int]
    snapshot_edges: tuple  # (src ids, dst ids, type codes, confidences) as numpy arrays
    node_is_test: np.ndarray
    node_kind: np.ndarray
    unresolved: dict[str, list[tuple[str, int]]] = field(default_factory=dict)


def external_row(uid: str) -> SymbolRow:
    dotted = uid[len(EXTERNAL_PREFIX) :]
    return SymbolRow(
        uid, "external", dotted.rpartition(".")[2], dotted, "", 0, 0, 0, 0, "", True, False, ""
    )


def _table(columns: list[str], types: list[str], rows: list[tuple]) -> pa.Table:
    pa_types = {
        "STRING": pa.string(),
        "INT64": pa.int64(),
        "BOOLEAN": pa.bool_(),
        "DOUBLE": pa.float64(),
    }
    cols = list(zip(*rows)) if rows else [[] for _ in columns]
    return pa.table(
        {c: pa.array(list(v), type=pa_types[t]) for c, t, v in zip(columns, types, cols)}
    )


def build_tables(records, resolved: list[ResolvedFile]) -> BuiltTables:
    symbols: dict[str, SymbolRow] = {}
    for rf in resolved:
        for s in rf.symbols:
            symbols[s.uid] = s
    all_edges: list[Edge] = []
    for rf in resolved:
        all_edges.extend(rf.edges)
    edges = dedupe_edges(all_edges)
    for e in edges:
        if e.dst not in symbols and e.dst.startswith(EXTERNAL_PREFIX):
            symbols[e.dst] = external_row(e.dst)
    edges = [e for e in edges if e.src in symbols and e.dst in symbols]
    uids = sorted(symbols)
    ids = {u: i for i, u in enumerate(uids)}

    file_cols = NODE_TABLES["File"]
    files = _table(
        [c for c, _ in file_cols],
        [t for _, t in file_cols],
        [
            (r.path, r.language, r.content_hash, r.size, r.lines, r.is_test, r.status)
            for r in records
        ],
    )
    sym_cols = NODE_TABLES["Symbol"]
    sym_rows = []
    for u in uids:
        s = symbols[u]
        sym_rows.append(
            (
                s.uid,
                ids[u],
                s.kind,
                s.name,
                s.qualified_name,
                s.file,
                s.start_line,
                s.end_line,
                s.start_byte,
                s.end_byte,
                s.signature,
                s.exported,
                s.is_test,
                s.language,
            )
        )
    sym_table = _table([c for c, _ in sym_cols], [t for _, t in sym_cols], sym_rows)

    rels: dict[str, list[tuple]] = {name: [] for name in REL_TABLES}
    for u in uids:
        s = symbols[u]
        if s.file:
            rels["DEFINES"].append((s.file, u))
    for e in edges:
        props = REL_TABLES[e.rel][2]
        if not props:
            rels[e.rel].append((e.src, e.dst))
        elif len(props) == 1:
            rels[e.rel].append((e.src, e.dst, e.line))
        else:
            rels[e.rel].append((e.src, e.dst, e.confidence, e.reason, e.line))
    rel_tables = {}
    for name, rows in rels.items():
        props = REL_TABLES[name][2]
        rel_tables[name] = _table(
            ["from", "to", *[c for c, _ in props]],
            ["STRING", "STRING", *[t for _, t in props]],
            rows,
        )
    counts = {name: len(rows) for name, rows in rels.items()}

    n = len(edges)
    src = np.fromiter((ids[e.src] for e in edges), dtype=np.int64, count=n)
    dst = np.fromiter((ids[e.dst] for e in edges), dtype=np.int64, count=n)
    etype = np.fromiter((csr.EDGE_TYPES[e.rel] for e in edges), dtype=np.uint8, count=n)
    conf = np.fromiter((e.confidence for e in edges), dtype=np.float32, count=n)
    is_test = np.fromiter((symbols[u].is_test for u in uids), dtype=np.uint8, count=len(uids))
    kind = np.fromiter(
        (csr.KIND_CODES.get(symbols[u].kind, 255) for u in uids), dtype=np.uint8, count=len(uids)
    )

    unresolved: dict[str, list[tuple[str, int]]] = {}
    for rf in resolved:
        for site in rf.unresolved:
            unresolved.setdefault(site.name, []).append((site.scope, site.line))

    return BuiltTables(
        graph=GraphTables(files=files, symbols=sym_table, rels=rel_tables),
        symbol_count=len(uids),
        edge_counts=counts,
        snapshot_edges=(src, dst, etype, conf),
        node_is_test=is_test,
        node_kind=kind,
        unresolved=unresolved,
    )


def write_snapshot_files(gen_path: Path, generation: int, tables: BuiltTables) -> None:
    src, dst, etype, conf = tables.snapshot_edges
    n = tables.symbol_count
    fwd, rev = csr.build_csr(n, src, dst, etype, conf)
    csr.write_snapshot(
        gen_path,
        csr.Snapshot(
            generation=generation,
            n_nodes=n,
            forward=fwd,
            reverse=rev,
            node_flags=tables.node_is_test,
            node_kind=tables.node_kind,
        ),
    )
    write_unresolved(gen_path, tables.unresolved)


def write_generation(idx: Path, tables: BuiltTables, meta: dict, buffer_pool: int) -> int:
    """Write a complete new generation and publish it; the old one stays live until then."""
    gen = layout.next_generation(idx)
    try:
        w = Writer(gen, buffer_pool)
        try:
            w.create_schema()
            w.bulk_load(tables.graph)
            w.write_meta({**meta, "generation": gen.number})
        finally:
            w.close()
        write_snapshot_files(gen.path, gen.number, tables)
    except BaseException:
        layout.discard(gen)
        raise
    layout.publish(idx, gen)
    return gen.number
