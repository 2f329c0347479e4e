"""The Kùzu schema of an index: tables, columns and the version that names them.

Any change to a table or to the meaning of a column bumps SCHEMA_VERSION; the
test suite pins a fingerprint of the DDL so a change without a bump fails.
"""

from __future__ import annotations

import hashlib

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
    return hashlib.sha256("\n".join(ddl()).encode()).hexdigest()[:16]
