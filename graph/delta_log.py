"""The delta that made a generation, kept in its folder (`delta.bin`).

An incremental run writes into the spare database (graph/spare.py), which may
hold the generation before the live one: the live generation's own delta brings
it level before the run's delta is applied. The file is a generation file like
any other (listed in its manifest); a generation made by a full build has none.
"""

from __future__ import annotations

import marshal
from pathlib import Path

from codeimpact.graph.delta import GraphDelta
from codeimpact.graph.layout import atomic_write

DELTA_NAME = "delta.bin"
FORMAT = 2
# GraphDelta's fields, in the order they are stored (a field added later is stored after
# these, and a file without it reads as its default).
_FIELDS = (
    "files_delete",
    "files_upsert",
    "symbols_delete",
    "symbols_insert",
    "updates",
    "rels_delete",
    "rels_insert",
    "survivors",
    "rels_update",
)


def delta_data(delta: GraphDelta) -> tuple:
    """`delta` as plain data (marshal's): what `delta_of` reads back."""
    return (FORMAT, {name: getattr(delta, name) for name in _FIELDS})


def delta_of(data: object) -> GraphDelta | None:
    """The delta of `delta_data`'s value; None for anything else."""
    try:
        fmt, fields = data  # type: ignore[misc]
        if fmt != FORMAT or not isinstance(fields, dict) or not set(fields) <= set(_FIELDS):
            return None
        return GraphDelta(**fields)
    except (ValueError, TypeError):
        return None


def save_delta(gen_path: Path, delta: GraphDelta) -> None:
    atomic_write(gen_path / DELTA_NAME, marshal.dumps(delta_data(delta)))


def load_delta(gen_path: Path) -> GraphDelta | None:
    """The delta recorded in a generation's folder; None when there is none or it is
    unreadable (the caller then copies the live database instead of replaying)."""
    try:
        return delta_of(marshal.loads((gen_path / DELTA_NAME).read_bytes()))
    except (OSError, ValueError, EOFError, TypeError):
        return None
