"""A fresh copy of a Kùzu database: what keeps an edited index's file near a full build's.

A checkpoint writes the column chunks and CSR regions its transactions touched to new pages
and frees the old ones; Kùzu 0.11 reuses a freed range for a later chunk that fits in it and
appends one that fits in none, so the file of a database edited many times grows in steps
and never shrinks (Django, main cf71ae1, benchmarks/bench_index_growth.py: 35.9 MB after
the full build, 47.0 after 75 edits, 55.0 after 125, 71.0 after 250, each step held for a
while; after 400 edits 24 MB of the 71 were free pages (FSM_INFO), and the used ones had
grown by 11 MB too: a fresh copy of it was a full build's 35.9 MB).
Kùzu has no VACUUM (kuzudb/kuzu#4798); its EXPORT DATABASE / IMPORT DATABASE writes the
export's paths unescaped into the script it imports (a folder named with a quote or a
backslash fails). So the copy is a full build's write: each table read as Arrow and COPYed
into a new database made with the schema's DDL (store.Writer), one table at a time.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from codeimpact.graph import layout
from codeimpact.graph.schema import NODE_TABLES, REL_TABLES
from codeimpact.graph.store import Writer, count_mismatches

if TYPE_CHECKING:
    import kuzu

PAGE_BYTES = 4096  # Kùzu's page: FILE_INFO's and FSM_INFO's unit


class CopyMismatch(RuntimeError):
    """The copy's row counts differ from the database's."""


def free_pages(conn: kuzu.Connection) -> tuple[int, int]:
    """(free pages, pages) of the database file open on `conn`: the pages its free-space
    manager holds for reuse (FSM_INFO: what a fresh copy would not have), and all of them."""
    res = conn.execute("CALL FSM_INFO() RETURN sum(num_pages)")
    free = res.get_next()[0] if res.has_next() else 0
    total = conn.execute("CALL FILE_INFO() RETURN num_pages").get_next()[0]
    return int(free or 0), int(total)


def _reads() -> list[tuple[str, str]]:
    """(table, the query that reads its rows as store.Writer.copy takes them)."""
    out = []
    for table, columns in NODE_TABLES.items():
        cols = ", ".join(f"n.`{c}` AS `{c}`" for c, _ in columns)
        out.append((table, f"MATCH (n:`{table}`) RETURN {cols}"))
    for table, (src, dst, props) in REL_TABLES.items():
        keys = f"a.`{NODE_TABLES[src][0][0]}` AS `from`, b.`{NODE_TABLES[dst][0][0]}` AS `to`"
        cols = "".join(f", r.`{c}` AS `{c}`" for c, _ in props)
        out.append((table, f"MATCH (a:`{src}`)-[r:`{table}`]->(b:`{dst}`) RETURN {keys}{cols}"))
    return out


def fresh_copy(conn: kuzu.Connection, folder: Path, rows: dict[str, int], buffer_pool: int,
               threads: int) -> Path:  # fmt: skip
    """Copy the database open on `conn` into a new database in `folder` (made anew), its
    rows checked against `rows` (CopyMismatch), checkpointed and closed. Returns its file."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    gen = layout.Generation(-1, folder)
    with Writer(gen, buffer_pool, threads) as out:
        out.create_schema()
        out.begin()
        for table, query in _reads():
            arrow = conn.execute(query).get_as_arrow()
            out.copy(table, arrow)
            del arrow  # (one table's rows held at a time)
        lost = count_mismatches(out.checkpoint(), rows)
    if lost:
        raise CopyMismatch(f"the copy's rows differ ({', '.join(lost)})")
    return gen.db_path
