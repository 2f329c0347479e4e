"""Rows as Arrow tables, the form Kùzu's COPY reads (pandas frames of strings trip it).

pyarrow is imported on first use: most runs (queries, small deltas) never need it, and
importing it costs every process about 60 ms.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pyarrow as pa


def arrow_type(schema_type: str) -> pa.DataType:
    """The Arrow type of a schema column type (graph/schema.py)."""
    import pyarrow as pa

    return {"STRING": pa.string, "INT64": pa.int64, "BOOLEAN": pa.bool_,
            "DOUBLE": pa.float64}[schema_type]()  # fmt: skip


def arrow_table(columns: list[tuple[str, str]], rows: list[tuple]) -> pa.Table:
    """`rows` (tuples in `columns` order; columns as (name, schema type)) as one table."""
    import pyarrow as pa

    values = list(zip(*rows)) if rows else [() for _ in columns]
    return pa.table(
        {name: pa.array(list(v), type=arrow_type(t)) for (name, t), v in zip(columns, values)}
    )


@contextmanager
def malloc_pool() -> Iterator[None]:
    """Arrow allocates from the C library's malloc while the block runs, then from the pool
    it had.

    Arrow's default pool, mimalloc, maps its memory with transparent huge pages, and the
    kernel clears all 2 MB of one at its first touch: the full build of Django spent
    0.15-0.3 s of system time on the few MB of its Arrow tables (a 48K-row filter took
    0.18 s, 0.008 s on malloc). Scoped like `gc_paused`: a caller's own Arrow work keeps
    its pool, and a buffer is always freed by the pool that allocated it.
    """
    import pyarrow as pa

    before = pa.default_memory_pool()
    pa.set_memory_pool(pa.system_memory_pool())
    try:
        yield
    finally:
        pa.set_memory_pool(before)
