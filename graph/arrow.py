"""Rows as Arrow tables, the form Kùzu's COPY reads (pandas frames of strings trip it).

pyarrow is imported on first use: most runs (queries, small deltas) never need it, and
importing it costs every process about 60 ms.
"""

from __future__ import annotations

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
