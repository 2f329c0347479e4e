"""The Kùzu schema of an index: tables, columns and the version that names them.

Any change to a table or to the meaning of a column bumps SCHEMA_VERSION; the
test suite pins a fingerprint of the DDL so a change without a bump fails.
"""

from __future__ import annotations

from typing import NamedTuple

from codeimpact.native.sha import sha256

SCHEMA_VERSION = 1

NODE_TABLES: dict[str, list[tuple[str, str]]] = {
    "File": [
        ("path", "STRING"),
        ("language", "STRING"),
        ("content_hash", "STRING"),
        ("size", "INT64"),
        ("lines", "INT64"),
        ("is_test", "BOOLEAN"),
        ("status", "STRING"),
    ],
    "Symbol": [
        ("uid", "STRING"),
        ("id", "INT64"),
        ("kind", "STRING"),
        ("name", "STRING"),
        ("qualified_name", "STRING"),
        ("file", "STRING"),
        ("start_line", "INT64"),
        ("end_line", "INT64"),
        ("start_byte", "INT64"),
        ("end_byte", "INT64"),
        ("signature", "STRING"),
        ("exported", "BOOLEAN"),
        ("is_test", "BOOLEAN"),
        ("language", "STRING"),
    ],
    "Meta": [("key", "STRING"), ("value", "STRING")],
}

# (from, to, properties)
REL_TABLES: dict[str, tuple[str, str, list[tuple[str, str]]]] = {
    "DEFINES": ("File", "Symbol", []),
    "CONTAINS": ("Symbol", "Symbol", []),
    "CALLS": (
        "Symbol",
        "Symbol",
        [("confidence", "DOUBLE"), ("reason", "STRING"), ("line", "INT64")],
    ),
    "IMPORTS": ("Symbol", "Symbol", [("line", "INT64")]),
    "EXTENDS": ("Symbol", "Symbol", []),
    "IMPLEMENTS": ("Symbol", "Symbol", []),
    "REFERENCES": (
        "Symbol",
        "Symbol",
        [("confidence", "DOUBLE"), ("reason", "STRING"), ("line", "INT64")],
    ),
}

SYMBOL_EDGE_TYPES = ("CALLS", "IMPORTS", "EXTENDS", "IMPLEMENTS", "REFERENCES", "CONTAINS")

# The Python value of each column type: the rows the indexer builds are typed from the
# declarations above (resolved.SymbolRow, resolved.Edge, tables.file_row), so a column is
# declared once, here, for the DDL, the Arrow tables and the rows alike.
PY_TYPES = {"STRING": str, "INT64": int, "DOUBLE": float, "BOOLEAN": bool}


def column_names(table: str) -> list[str]:
    return [name for name, _ in NODE_TABLES[table]]


def rel_properties() -> list[tuple[str, str]]:
    """Every relationship property, in first declaration order (an edge carries them all;
    a table without one ignores it)."""
    out: dict[str, str] = {}
    for _src, _dst, props in REL_TABLES.values():
        for name, typ in props:
            out.setdefault(name, typ)
    return list(out.items())


def row_type(typename: str, table: str, drop: tuple[str, ...] = ()) -> type[NamedTuple]:
    """A NamedTuple of a node table's columns in schema order, without `drop`."""
    fields = [(name, PY_TYPES[typ]) for name, typ in NODE_TABLES[table] if name not in drop]
    return NamedTuple(typename, fields)


def edge_type(typename: str) -> type[NamedTuple]:
    """A NamedTuple of an edge: relation, source and target keys, then every property."""
    head = [("rel", str), ("src", str), ("dst", str)]
    return NamedTuple(typename, head + [(n, PY_TYPES[t]) for n, t in rel_properties()])


def ddl() -> list[str]:
    """The CREATE statements of schema SCHEMA_VERSION, in creation order."""
    out = []
    for table, columns in NODE_TABLES.items():
        cols = ", ".join(f"{name} {typ}" for name, typ in columns)
        out.append(f"CREATE NODE TABLE {table}({cols}, PRIMARY KEY({columns[0][0]}))")
    for table, (src, dst, props) in REL_TABLES.items():
        extra = "".join(f", {name} {typ}" for name, typ in props)
        out.append(f"CREATE REL TABLE {table}(FROM {src} TO {dst}{extra})")
    return out


def ddl_fingerprint() -> str:
    return sha256("\n".join(ddl()).encode()).hexdigest()[:16]
