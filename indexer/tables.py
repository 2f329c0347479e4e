"""From resolved files to graph content: rows for Kùzu, CSR arrays and sidecars.

A full build gathers the whole graph compactly (indexer/full_graph.py) and
writes it with COPY; an incremental build writes rows of the difference
(indexer/incremental.py), built by the same row functions.
"""

from __future__ import annotations

from collections.abc import Iterator
from operator import attrgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codeimpact.graph import layout, snapshot_files
from codeimpact.graph.arrow import arrow_table
from codeimpact.graph.errors import CorruptIndex
from codeimpact.graph.schema import NODE_TABLES, REL_TABLES, column_names
from codeimpact.graph.store import count_mismatches
from codeimpact.indexer.resolved import EXTERNAL_PREFIX, Edge, SymbolRow

if TYPE_CHECKING:
    import pyarrow as pa

    from codeimpact.graph.full_write import Prestarted

EdgeKey = tuple[str, str, str]  # (rel, src, dst)


def external_row(uid: str) -> SymbolRow:
    dotted = uid[len(EXTERNAL_PREFIX) :]
    name = dotted.rpartition(".")[2].rpartition("::")[2]  # `os.path.join`, `std::fmt::Display`
    return SymbolRow(uid=uid, kind="external", name=name, qualified_name=dotted, file="",
                     start_line=0, end_line=0, start_byte=0, end_byte=0, signature="",
                     exported=True, is_test=False, language="")  # fmt: skip


# a File row: the record's attributes named by the File table's columns, in schema order
file_row = attrgetter(*column_names("File"))
_ID_AT = column_names("Symbol").index("id")


def file_table(records) -> pa.Table:
    return arrow_table(NODE_TABLES["File"], [file_row(r) for r in records])


def symbol_row(s: SymbolRow, sid: int) -> tuple:
    """The Symbol table row of `s`: its columns with the dense id in the schema's place."""
    return (*s[:_ID_AT], sid, *s[_ID_AT:])


def edge_row(e: Edge) -> tuple:
    props = REL_TABLES[e.rel][2]
    if not props:
        return (e.src, e.dst)
    if len(props) == 1:
        return (e.src, e.dst, e.line)
    return (e.src, e.dst, e.confidence, e.reason, e.line)


def write_snapshot_arrays(gen_path: Path, generation: int, n: int, codes: Any, confs: Any,
                          flags: Any, kinds: Any, rank: Any = None,
                          edges_from: Path | None = None) -> None:  # fmt: skip
    """The generation's CSR snapshot of the state's edge codes (int64) and confidences
    (float32), per-node flags and kinds (uint8): buffers, numpy's or an edit's. `rank`: each
    node's rank in uid order (int32; None: a full build's ids, which are); `edges_from`: a
    generation folder whose snapshot holds exactly these edges (the delta changed none): its
    CSR files are shared."""
    if edges_from is not None and snapshot_files.write_snapshot_sharing_edges(
        gen_path, generation, flags, kinds, rank, edges_from
    ):
        return
    # the state keeps its codes sorted and unique: the native core builds the CSR in one pass
    if snapshot_files.write_from_codes(gen_path, generation, n, codes, confs, flags, kinds, rank):
        return
    import numpy as np  # (codes out of order: numpy sorts them)

    from codeimpact.graph import csr
    from codeimpact.indexer.state import decode_codes

    codes = np.asarray(codes)
    src, dst, etype = decode_codes(codes)
    # the state keeps its codes sorted and unique (checked: a cheap pass beside the sort)
    ordered = codes.size < 2 or bool(np.all(codes[1:] > codes[:-1]))
    fwd, rev = csr.build_csr(n, src, dst, etype, confs, sorted_unique=ordered)
    csr.write_snapshot(
        gen_path,
        csr.Snapshot(generation=generation, n_nodes=n, forward=fwd, reverse=rev,
                     node_flags=np.frombuffer(flags, np.uint8),
                     node_kind=np.frombuffer(kinds, np.uint8),
                     node_rank=None if rank is None else np.frombuffer(rank, np.int32)),
    )  # fmt: skip


def expected_counts(stats: dict) -> dict[str, int]:
    """The rows per table a generation with these figures (`build._stats`) holds."""
    edges = stats["edges"]
    return {"File": stats["files"], "Symbol": stats["symbols"],
            **{rel: edges.get(rel, 0) for rel in REL_TABLES}}  # fmt: skip


def write_full_generation(gen: layout.Generation, tables: Iterator[tuple[str, pa.Table]],
                          meta: dict, buffer_pool: int, *,
                          writer: Prestarted | None = None) -> dict[str, int]:  # fmt: skip
    """A new database: the schema, every table by COPY (one at a time), then Meta; returns
    its row counts, checked against the figures in `meta`. Written by a process of its own
    (graph/full_write.py: Kùzu's COPY would add its 130-170 MB to this process's peak):
    `writer` when one was prestarted."""
    # here: an edit's run imports this module, never the full build's writer (nor tempfile)
    from codeimpact.graph.full_write import write_generation

    counts = write_generation(gen, tables, {**meta, "generation": gen.number}, buffer_pool,
                              writer=writer)  # fmt: skip
    lost = count_mismatches(counts, expected_counts(meta["stats"]))
    if lost:
        raise CorruptIndex(
            f"the new index database does not hold what was written ({', '.join(lost)})"
        )
    return counts
