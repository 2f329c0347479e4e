"""Apply a delta (rows to delete, update and insert) to a copy of the live database.

An incremental run copies the live generation's database file into the new
generation's folder and applies the delta there in one transaction, so
readers of the live generation are never disturbed and a killed run leaves
the live generation as it was.
"""

from __future__ import annotations

import functools
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from codeimpact.graph import layout
from codeimpact.graph.arrow import arrow_table
from codeimpact.graph.schema import NODE_TABLES, REL_TABLES
from codeimpact.graph.store import Writer, write_meta
from codeimpact.native.record import Compared

# Above this many rows an insert goes through COPY (Arrow) instead of UNWIND ... CREATE.
COPY_THRESHOLD = 500
# Up to this many rows a statement runs once per row, with its keys as parameters: Kùzu
# 0.11 then looks each key up in the primary-key index, while `UNWIND $rows ... MATCH
# (n {key: r.key})` joins the rows with a scan of the whole table (10-40 ms a statement on
# Django's 48K symbols whatever the rows, 1-2 ms a row by key). A one-function edit's
# delta (two of them a run: the spare's replay and the run's own) went from 0.09 s of CPU
# to 0.03.
ROW_BY_ROW_MAX = 16
# The scan grows with the table, a row by key does not: on the kernel's 2.2M symbols a
# joined statement cost ~1 s of CPU per scan (one per MATCH), a row by key still 1-2 ms.
# So a statement runs row by row up to this share of the Symbol table's rows, and never
# below ROW_BY_ROW_MAX (Django: 16; kernel: ~740). A body edit of lib/string.c (155 rows
# in 8 statements) went from 9.3 s of CPU to 0.2 in its writer.
SYMBOLS_PER_ROW = 3000
_ROW_VALUE = re.compile(r"@(\w+)")  # a row's value in a statement given to `_each`


class GraphDelta(Compared):
    """Rows in schema column order; relationship rows start with (from key, to key)."""

    files_delete: list[str]
    files_upsert: list[tuple]  # new files (whole rows)
    symbols_delete: list[str]
    symbols_insert: list[tuple]
    # (table, the columns that changed) -> rows of (key, new values of those columns): only
    # changed columns are written, since rewriting a string column costs Kùzu's checkpoint a
    # pass over the column's whole chunk, even for an equal value
    updates: dict[tuple[str, tuple[str, ...]], list[tuple]]

    def update(self, table: str, old: tuple, new: tuple) -> bool:
        """Record the columns in which row `new` differs from `old` (same key); False if none."""
        columns = [c for c, _ in NODE_TABLES[table]]
        changed = tuple(i for i in range(1, len(columns)) if old[i] != new[i])
        if changed:
            key = (table, tuple(columns[i] for i in changed))
            self.updates.setdefault(key, []).append((new[0], *(new[i] for i in changed)))
        return bool(changed)

    def set_column(self, table: str, key: str, column: str, value) -> None:
        """Record one column's new value in the row of `key`."""
        self.updates.setdefault((table, (column,)), []).append((key, value))

    rels_delete: dict[str, list[tuple[str, str]]]
    rels_insert: dict[str, list[tuple]]
    # whole rows (insert rows) of edges whose properties changed, between the same two nodes
    # (a call moved down a line): its properties set, not the edge deleted and created again
    rels_update: dict[str, list[tuple]]
    # per relation with deletions, edges (insert rows) that remain: apply_delta's guard
    # writes one again instead of searching the table for one
    survivors: dict[str, list[tuple]]
    edges_rewritten: int  # surviving edges written again by `apply_delta`'s guard
    __slots__ = (
        "files_delete",
        "files_upsert",
        "symbols_delete",
        "symbols_insert",
        "updates",
        "rels_delete",
        "rels_insert",
        "rels_update",
        "survivors",
        "edges_rewritten",
    )

    def __init__(
        self,
        files_delete: list[str] | None = None,
        files_upsert: list[tuple] | None = None,
        symbols_delete: list[str] | None = None,
        symbols_insert: list[tuple] | None = None,
        updates: dict[tuple[str, tuple[str, ...]], list[tuple]] | None = None,
        rels_delete: dict[str, list[tuple[str, str]]] | None = None,
        rels_insert: dict[str, list[tuple]] | None = None,
        rels_update: dict[str, list[tuple]] | None = None,
        survivors: dict[str, list[tuple]] | None = None,
        edges_rewritten: int = 0,
    ) -> None:
        self.files_delete = [] if files_delete is None else files_delete
        self.files_upsert = [] if files_upsert is None else files_upsert
        self.symbols_delete = [] if symbols_delete is None else symbols_delete
        self.symbols_insert = [] if symbols_insert is None else symbols_insert
        self.updates = {} if updates is None else updates
        self.rels_delete = {} if rels_delete is None else rels_delete
        self.rels_insert = {} if rels_insert is None else rels_insert
        self.rels_update = {} if rels_update is None else rels_update
        self.survivors = {} if survivors is None else survivors
        self.edges_rewritten = edges_rewritten

    def is_empty(self) -> bool:
        return not (
            self.files_delete
            or self.files_upsert
            or self.symbols_delete
            or self.symbols_insert
            or any(self.updates.values())
            or any(self.rels_delete.values())
            or any(self.rels_insert.values())
            or any(self.rels_update.values())
        )

    def counts(self) -> dict[str, int]:
        return {
            "files_deleted": len(self.files_delete),
            "files_written": len(self.files_upsert) + self._updated("File"),
            "symbols_deleted": len(self.symbols_delete),
            "symbols_updated": self._updated("Symbol"),
            "symbols_inserted": len(self.symbols_insert),
            "edges_deleted": sum(len(v) for v in self.rels_delete.values()),
            "edges_inserted": sum(len(v) for v in self.rels_insert.values()),
            "edges_updated": sum(len(v) for v in self.rels_update.values()),
            "edges_rewritten": self.edges_rewritten,
        }

    def _updated(self, table: str) -> int:
        return sum(len(rows) for (t, _), rows in self.updates.items() if t == table)


def clone_database(src: layout.Generation, dst: layout.Generation) -> None:
    """Copy a database and its WAL (when it holds anything). The copy is synced: it becomes
    the published generation's database, and Kùzu's commit syncs only the WAL it appends
    to (the first edit after a full build writes this copy: graph/spare.py)."""
    shutil.copyfile(src.db_path, dst.db_path)
    layout.fsync_file(dst.db_path)
    wal = src.db_path.with_name(src.db_path.name + ".wal")
    if wal.exists() and wal.stat().st_size:
        shutil.copyfile(wal, dst.db_path.with_name(dst.db_path.name + ".wal"))


def _structs(columns: list[str], rows: list[tuple]) -> list[dict]:
    return [dict(zip(columns, r)) for r in rows]


# Kùzu 0.11.3 loses every relationship of a node group when a checkpoint only removes some.
# A relationship table keeps its edges in CSR node groups (per direction, by the offset of the
# bound node: the source forward, the target backward), and its checkpoint rewrites only the
# regions a transaction changed. `CSRNodeGroup::checkpointInMemAndOnDisk` sums the edges left
# in *those regions* and, when the sum is 0, reclaims the whole node group as if it were empty.
# So deleting the last edges of a region (the edges of a function added in the last run, say,
# which sit past every other symbol: reverting that edit) emptied the table: Django's CONTAINS
# went from 44,744 rows to 0. The fix upstream (kuzudb/kuzu#5564) is in no release. The guard:
# in every node group where this transaction deleted edges and inserted none, one surviving
# edge is deleted and created again, so a rewritten region of that group keeps an edge.
KUZU_NODE_GROUP_SIZE = 1 << 17  # StorageConfig::NODE_GROUP_SIZE

FORWARD, BACKWARD = 0, 1
GroupKey = tuple[str, int, int]  # (relation, direction, node group)


def _groups(rel: str, rows: list[list[int]]) -> set[GroupKey]:
    """The node groups, both directions, of edges given as [source offset, target offset]."""
    out: set[GroupKey] = set()
    for src, dst in rows:
        out.add((rel, FORWARD, src // KUZU_NODE_GROUP_SIZE))
        out.add((rel, BACKWARD, dst // KUZU_NODE_GROUP_SIZE))
    return out


def _rows(result) -> list[list]:
    out = []
    while result.has_next():
        out.append(result.get_next())
    return out


def row_limit(conn) -> int:
    """Up to how many rows a statement runs row by row on this database (SYMBOLS_PER_ROW);
    Kùzu counts a node table's rows from its statistics, not by a scan."""
    found = _rows(conn.execute("MATCH (n:Symbol) RETURN count(*)"))
    symbols = int(found[0][0]) if found else 0
    return max(ROW_BY_ROW_MAX, symbols // SYMBOLS_PER_ROW)


def _each(conn, text: str, rows: list[dict], limit: int = ROW_BY_ROW_MAX) -> list[list]:
    """Run statement `text` over `rows` and return what it returns. `@name` in `text`
    stands for a row's value: `r.name` of `UNWIND $rows AS r` for more than `limit` rows,
    the parameter `$name` of a statement run once per row for fewer (see row_limit)."""
    if len(rows) > limit:
        return _rows(conn.execute("UNWIND $rows AS r " + _ROW_VALUE.sub(r"r.\1", text),
                                  {"rows": rows}))  # fmt: skip
    one = _ROW_VALUE.sub(r"$\1", text)
    out: list[list] = []
    for row in rows:
        out += _rows(conn.execute(one, row))
    return out


def _keys(rel: str) -> tuple[str, str, str, str, list[tuple[str, str]]]:
    src_t, dst_t, props = REL_TABLES[rel]
    return src_t, NODE_TABLES[src_t][0][0], dst_t, NODE_TABLES[dst_t][0][0], props


def _delete_edges(conn, rel: str, pairs: list[tuple[str, str]],
                  limit: int = ROW_BY_ROW_MAX, net: dict[str, int] | None = None) -> set[GroupKey]:  # fmt: skip
    """`net`: rel -> edges created less edges deleted, as the statements found them."""
    src_t, sk, dst_t, dk, _ = _keys(rel)
    # one MATCH per node (two key lookups) and then the edge: half the time of one pattern
    text = (f"MATCH (a:{src_t} {{{sk}: @s}}) MATCH (b:{dst_t} {{{dk}: @d}}) "
            f"MATCH (a)-[e:{rel}]->(b) DELETE e RETURN offset(id(a)), offset(id(b))")  # fmt: skip
    rows = _each(conn, text, [{"s": s, "d": d} for s, d in pairs], limit)
    if net is not None:
        net[rel] = net.get(rel, 0) - len(rows)
    return _groups(rel, rows)


def _create_edges(conn, rel: str, rows: list[tuple],
                  limit: int = ROW_BY_ROW_MAX, net: dict[str, int] | None = None) -> set[GroupKey]:  # fmt: skip
    src_t, sk, dst_t, dk, props = _keys(rel)
    names = ["s", "d", *[p for p, _ in props]]
    prop_list = ", ".join(f"{p}: @{p}" for p, _ in props)
    create = f"-[:{rel} {{{prop_list}}}]->" if props else f"-[:{rel}]->"
    # two MATCH clauses: Kùzu plans `MATCH (a ...), (b ...)` as a join over a scan of
    # the table (0.3 s on Django for two rows), one clause each as two key lookups
    text = (f"MATCH (a:{src_t} {{{sk}: @s}}) MATCH (b:{dst_t} {{{dk}: @d}}) "
            f"CREATE (a){create}(b) RETURN offset(id(a)), offset(id(b))")  # fmt: skip
    made = _each(conn, text, _structs(names, rows), limit)
    if net is not None:
        net[rel] = net.get(rel, 0) + len(made)
    return _groups(rel, made)


def _update_edges(conn, rel: str, rows: list[tuple], limit: int = ROW_BY_ROW_MAX) -> None:
    """Set the properties of existing edges (rows as `_create_edges'`): one statement a row
    where a delete and a create were two (Django's edit B: 13 calls moved down a line)."""
    src_t, sk, dst_t, dk, props = _keys(rel)
    names = ["s", "d", *[p for p, _ in props]]
    sets = ", ".join(f"e.{p} = @{p}" for p, _ in props)
    text = (f"MATCH (a:{src_t} {{{sk}: @s}}) MATCH (b:{dst_t} {{{dk}: @d}}) "
            f"MATCH (a)-[e:{rel}]->(b) SET {sets}")  # fmt: skip
    _each(conn, text, _structs(names, rows), limit)


def _surviving_edge(conn, rel: str, direction: int, group: int) -> tuple | None:
    """One edge of `rel` whose bound node in `direction` lies in node `group`, as a row
    (source key, target key, properties...) plus its two offsets; None if there is none."""
    src_t, sk, dst_t, dk, props = _keys(rel)
    bound = "a" if direction == FORWARD else "b"
    table = src_t if direction == FORWARD else dst_t
    values = "".join(f", e.{p}" for p, _ in props)
    res = conn.execute(
        f"MATCH ({bound}:{table}) WHERE offset(id({bound})) >= $lo AND offset(id({bound})) < $hi "
        f"MATCH (a:{src_t})-[e:{rel}]->(b:{dst_t}) "
        f"RETURN a.{sk}, b.{dk}{values}, offset(id(a)), offset(id(b)) LIMIT 1",
        {"lo": group * KUZU_NODE_GROUP_SIZE, "hi": (group + 1) * KUZU_NODE_GROUP_SIZE},
    )
    rows = _rows(res)
    return tuple(rows[0]) if rows else None


def _rewrite(conn, rel: str, rows: list[tuple], net: dict[str, int] | None = None) -> set[GroupKey]:
    """Delete edges and create them again as they were; returns their node groups."""
    _delete_edges(conn, rel, [row[:2] for row in rows], net=net)
    return _create_edges(conn, rel, rows, net=net)


def _keep_groups(conn, deleted: set[GroupKey], inserted: set[GroupKey],
                 survivors: dict[str, list[tuple]], net: dict[str, int] | None = None) -> int:  # fmt: skip
    """Delete and create again one surviving edge in every node group that lost edges and
    gained none (see KUZU_NODE_GROUP_SIZE); returns how many edges were written again.
    `survivors`: edges the delta knows to remain (in a repository of fewer than 131,072
    symbols one covers its relation); the groups they miss are searched for one."""
    needed = deleted - inserted
    written = 0
    for rel in sorted({rel for rel, _, _ in needed}):
        rows = survivors.get(rel, [])[:1]
        if rows:
            needed -= _rewrite(conn, rel, rows, net)
            written += len(rows)
    while needed:
        rel, direction, group = key = min(needed)
        needed.discard(key)
        found = _surviving_edge(conn, rel, direction, group)
        if found is None:
            continue  # the group holds no edge any more: reclaiming it loses nothing
        needed -= _rewrite(conn, rel, [found[:-2]], net)
        written += 1
    return written


def apply_delta(w: Writer, delta: GraphDelta, *, guard: bool = True,
                also: Callable[[Any], None] | None = None,
                net: dict[str, int] | None = None) -> None:  # fmt: skip
    """Deletes first (edges, then nodes), then updates, then inserts; one transaction.
    `guard`: keep an edge in every node group that lost edges (see KUZU_NODE_GROUP_SIZE),
    needed when this transaction is checkpointed on its own; a transaction left in the WAL
    needs none (graph/wal_store.py: the checkpoint of several keeps every group).
    `also(conn)`: more writes committed with the delta (a run's Meta: one commit, so one
    WAL sync, instead of two). `net`: filled with relationship table -> edges the
    statements created less those they deleted (each returns the edges it found), for
    every table but those written by COPY (whose rows are not returned)."""
    conn = w.conn
    limit = row_limit(conn)
    conn.execute("BEGIN TRANSACTION")
    try:
        deleted: set[GroupKey] = set()
        inserted: set[GroupKey] = set()
        effect: dict[str, int] = dict.fromkeys(REL_TABLES, 0)
        copied: set[str] = set()
        for rel, pairs in delta.rels_delete.items():
            if pairs:
                deleted |= _delete_edges(conn, rel, pairs, limit, effect)
        if delta.symbols_delete:
            # their edges were deleted above, by name. Not DETACH DELETE: Kùzu 0.11.3 replays
            # it from the WAL losing another edge (graph/wal_store.py); a plain DELETE fails
            # if an edge was left, rather than dropping it unseen
            _each(conn, "MATCH (s:Symbol {uid: @u}) DELETE s",
                  [{"u": u} for u in delta.symbols_delete], limit)  # fmt: skip
        if delta.files_delete:
            _each(conn, "MATCH (f:File {path: @p}) DELETE f",
                  [{"p": p} for p in delta.files_delete], limit)  # fmt: skip
        file_cols = [c for c, _ in NODE_TABLES["File"]]
        if delta.files_upsert:
            sets = ", ".join(f"f.{c} = @{c}" for c in file_cols[1:])
            _each(conn, f"MERGE (f:File {{path: @path}}) SET {sets}",
                  _structs(file_cols, delta.files_upsert), limit)  # fmt: skip
        for (table, columns), rows in sorted(delta.updates.items()):
            key = NODE_TABLES[table][0][0]
            sets = ", ".join(f"n.{c} = @{c}" for c in columns)
            _each(conn, f"MATCH (n:{table} {{{key}: @{key}}}) SET {sets}",
                  _structs([key, *columns], rows), limit)  # fmt: skip
        for rel, rows in sorted(delta.rels_update.items()):
            if rows:
                _update_edges(conn, rel, rows, limit)
        sym_cols = [c for c, _ in NODE_TABLES["Symbol"]]
        if delta.symbols_insert:
            if len(delta.symbols_insert) >= COPY_THRESHOLD:
                arrow_rows = arrow_table(NODE_TABLES["Symbol"], delta.symbols_insert)  # noqa: F841
                conn.execute("COPY Symbol FROM arrow_rows")
            else:
                props = ", ".join(f"{c}: @{c}" for c in sym_cols)
                _each(conn, f"CREATE (s:Symbol {{{props}}})",
                      _structs(sym_cols, delta.symbols_insert))  # fmt: skip
        for rel, rows in delta.rels_insert.items():
            if not rows:
                continue
            if len(rows) >= COPY_THRESHOLD:
                _, _, props = REL_TABLES[rel]
                cols = [("from", "STRING"), ("to", "STRING"), *props]
                arrow_rows = arrow_table(cols, rows)  # noqa: F841
                conn.execute(f"COPY {rel} FROM arrow_rows")  # which groups it fills is unknown
                copied.add(rel)  # (nor how many rows it wrote)
                continue
            inserted |= _create_edges(conn, rel, rows, limit, effect)
        if guard:
            delta.edges_rewritten = _keep_groups(conn, deleted, inserted, delta.survivors,
                                                 effect)  # fmt: skip
        if net is not None:
            net.update((rel, n) for rel, n in effect.items() if rel not in copied)
        if also is not None:
            also(conn)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


# a value of each property type, for `warm_up`'s statements (which match no row)
_ANY = {"DOUBLE": 0.0, "STRING": "", "INT64": 0}
# The relationship tables `warm_up` runs its edge statements on: one of each kind of
# statement text (edges with properties, edges without), not every table. What the first
# statement of a kind costs is Kùzu's parser learning its shape (~15 ms), which every table
# then shares; the same statement on each further table cost ~1.6 ms more for ~0.6 ms less
# when the delta ran that very statement (Django, edit A's writer: 17 such statements,
# ~27 ms of CPU beside the run for ~2 ms after its delta).
WARMED_RELS = ("CALLS", "CONTAINS")


def warm_up(conn, stop: Callable[[], bool] = lambda: False,
            then: tuple[Callable[[], object], ...] = ()) -> None:  # fmt: skip
    """Run the statements a small delta runs (`apply_delta`'s, row by row), each matching
    no row, in a transaction rolled back: nothing is written, not even to the WAL. The first
    statement of a kind in a process costs Kùzu several times the next ones (Django: the
    first edge delete ~14 ms, the next ~1 ms; the first create ~3 ms, the next ~0.8; Meta's
    MERGE ~5 ms, then ~2), so a writer started early (indexer/wal_commit.py prestart) pays
    that while it waits for the run's delta, not after it, when the run waits for its commit.
    `stop()` is asked before each statement: true (the delta came), the warm-up ends there
    (~40 ms of CPU in all at load: the delta waited for its end). `then`: more steps, run
    the same way after those (graph/wal_store.py: the relationship tables counted)."""
    none = "\0"  # no key of any table (paths and uids never hold a NUL)
    steps: list[Callable[[], object]] = []
    for rel in WARMED_RELS:
        row = (none, none, *(_ANY[t] for _, t in REL_TABLES[rel][2]))
        steps.append(functools.partial(_delete_edges, conn, rel, [(none, none)]))
        steps.append(functools.partial(_create_edges, conn, rel, [row]))
        if REL_TABLES[rel][2]:
            steps.append(functools.partial(_update_edges, conn, rel, [row]))
    delete = "MATCH (s:Symbol {uid: @u}) DELETE s"
    update = "MATCH (n:Symbol {uid: @uid}) SET n.start_line = @v"
    steps.append(functools.partial(_each, conn, delete, [{"u": none}]))
    steps.append(functools.partial(_each, conn, update, [{"uid": none, "v": 0}]))
    # a Meta row of its own, rolled back
    steps.append(functools.partial(write_meta, conn, Path(none), {none: None}))
    conn.execute("BEGIN TRANSACTION")
    try:
        for step in [*steps, *then]:
            if stop():
                break
            step()
    finally:
        conn.execute("ROLLBACK")


def keep_every_group(conn) -> int:
    """Delete and create again one edge of every (relation, direction, node group) that has
    edges, in one transaction; returns how many edges were written again. Before a
    checkpoint of several transactions (graph/wal_store.py's compaction), whose changed
    regions are not known here, this keeps an edge in a rewritten region of every group."""
    tops = {}
    for table in {t for src_t, dst_t, _ in REL_TABLES.values() for t in (src_t, dst_t)}:
        found = _rows(conn.execute(f"MATCH (n:{table}) RETURN max(offset(id(n)))"))
        tops[table] = int(found[0][0] or 0) if found else 0
    groups = {
        (rel, direction, g)
        for rel, (src_t, dst_t, _) in REL_TABLES.items()
        for direction, table in ((FORWARD, src_t), (BACKWARD, dst_t))
        for g in range(tops[table] // KUZU_NODE_GROUP_SIZE + 1)
    }
    conn.execute("BEGIN TRANSACTION")
    try:
        written = _keep_groups(conn, groups, set(), {})
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return written
