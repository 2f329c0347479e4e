"""Writing a delta into a database's write-ahead log, not its file.

A checkpoint of a small delta costs Kùzu 0.11 50-100 ms on Django (it rewrites the
column chunks and CSR regions the transaction touched: ~8 MB of page writes for one
function appended) and grows the file. A committed transaction is durable in the
WAL (`graph.kz.wal`, fdatasync'ed at COMMIT) and every open replays it, read-only
ones included, without writing anything. So an incremental run commits its delta
to the WAL of the spare database it writes (graph/spare.py) and leaves the file as
it was; the process that wrote it must then end without closing the database,
since Kùzu checkpoints on close (indexer/wal_commit.py runs it in a child that
exits with os._exit).

The WAL grows with each run and every reader replays it on open (~0.05 ms per KB),
so a spare whose WAL passed COMPACT_WAL_BYTES is checkpointed once it is level with the
live generation, before the run's delta goes in: it is private to the writer, so that
costs time, never a reader. Before that checkpoint one edge of every relationship node
group is written again (`delta.keep_every_group`): Kùzu 0.11.3 reclaims a whole node
group when the regions a checkpoint rewrites are left without edges (kuzudb/kuzu#5564),
and the regions the accumulated transactions touched are not known here. Row counts
before and after the checkpoint must agree. The deltas themselves go in without
`apply_delta`'s per-transaction guard: no checkpoint follows them.

Kùzu 0.11.3 replays a DETACH DELETE of a node from the WAL losing an edge of another
node (a writer counted 14 DEFINES edges, every reader of the same files 13), so deltas
delete nodes with a plain DELETE once their edges are gone (graph/delta.py). Readers
see only what replay gives: the tests compare it with a full build through `Reader`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codeimpact.graph.delta import GraphDelta, apply_delta, keep_every_group
from codeimpact.graph.delta import warm_up as warm_up_statements
from codeimpact.graph.schema import NODE_TABLES, REL_TABLES
from codeimpact.graph.store import (
    COUNTED_TABLES,
    count_mismatches,
    count_rows,
    kuzu_module,
    write_meta,
)

if TYPE_CHECKING:
    import kuzu

# Above this the spare's WAL is checkpointed before use (a reader's replay: ~25 ms).
COMPACT_WAL_BYTES = 512 * 1024
# Kùzu's threads for a delta (default: one per core). A delta's statements are a few rows
# each: a second thread does none of their work and, on a busy machine, its hand-offs wait
# for a core. One thread: a fresh writer on a copy of Django's spare (edit A's delta, 10
# alternated pairs, load ~10) ran its post-delta statements in ~9.2 ms instead of ~12.3,
# its warm-up in ~5 ms less, with ~750 fewer page faults (the second thread's stack and
# allocator arena).
DELTA_THREADS = 1


class DeltaWriteError(RuntimeError):
    """The database is not the generation it was taken for, or a checkpoint lost rows."""


class _Conn:
    """What `apply_delta` needs of a writer: its connection."""

    def __init__(self, conn: kuzu.Connection):
        self.conn = conn


def generation_of(conn: kuzu.Connection) -> int | None:
    res = conn.execute("MATCH (m:Meta {key: 'generation'}) RETURN m.value")
    try:
        return int(json.loads(res.get_next()[0])) if res.has_next() else None
    except (ValueError, TypeError):
        return None


def compact(conn: kuzu.Connection) -> int:
    """Checkpoint the WAL into the database file (the spare only: nobody reads it); returns
    the edges written again to keep every node group (see the module docstring)."""
    before = count_rows(conn)
    rewritten = keep_every_group(conn)
    conn.execute("CHECKPOINT")
    lost = count_mismatches(count_rows(conn), before)
    if lost:
        raise DeltaWriteError(f"checkpointing the spare database lost rows ({', '.join(lost)})")
    return rewritten


class Opened:
    """A database opened for a delta: closing it checkpoints (see `close_checkpointed`);
    a process that must leave the WAL as it is keeps this object until it exits."""

    def __init__(self, db_path: Path, buffer_pool: int):
        kuzu = kuzu_module()
        self.db = kuzu.Database(str(db_path), buffer_pool_size=buffer_pool, auto_checkpoint=False,
                                max_num_threads=DELTA_THREADS)  # fmt: skip
        self.conn = kuzu.Connection(self.db)
        # relationship table -> its rows, counted while the writer waited for the delta (or by
        # the spare's leveller: indexer/wal_commit.py)
        self.counted: dict[str, int] = {}

    def warm_up(self, stop: Callable[[], bool]) -> None:
        """`delta.warm_up` until `stop()`, then the relationship tables counted, each while
        `stop()` is false: the rows the delta's statements find and make are added to those
        (`write_delta`), so what the run waited for after the delta (~10-25 ms of its
        writer's CPU on Django: counting 170K edges from their CSR headers) is done before.
        Nothing is written meanwhile: a count stands until the delta's transaction."""

        def count(table: str) -> None:
            self.counted[table] = _count(self.conn, table)

        todo = [t for t in REL_TABLES if t not in self.counted]  # (a leveller's counts kept)
        warm_up_statements(self.conn, stop, tuple(partial(count, t) for t in todo))

    def close_checkpointed(self) -> None:
        """Close in a process that goes on: the checkpoint Kùzu makes on close is guarded
        like `compact`'s."""
        compact(self.conn)
        self.conn.close()
        self.db.close()


def write_deltas(db_path: Path, expected_generation: int | None, replay: list[GraphDelta],
                 delta: GraphDelta, meta: dict[str, Any], *, compact_after_replay: bool,
                 buffer_pool: int) -> tuple[Opened, dict[str, int], int]:  # fmt: skip
    """Open `db_path`, check it holds `expected_generation` (None: do not check), apply the
    `replay` deltas (which bring it level with the live generation), checkpoint them if
    `compact_after_replay`, then apply `delta` and write `meta`, each committed to the WAL.
    Returns the open database (the caller must not close it, see the module docstring),
    the row counts it holds now and the edges the compaction wrote again (0 without one)."""
    opened, rewritten = bring_level(db_path, expected_generation, replay,
                                    compact_after_replay=compact_after_replay,
                                    buffer_pool=buffer_pool)  # fmt: skip
    return opened, write_delta(opened, db_path, delta, meta), rewritten


def bring_level(db_path: Path, expected_generation: int | None, replay: list[GraphDelta], *,
                compact_after_replay: bool, buffer_pool: int) -> tuple[Opened, int]:  # fmt: skip
    """The first half of `write_deltas`, which needs nothing of the run's own delta (so a
    writer started early does it while the run resolves): open, check, replay, compact.
    Returns the open database and the edges the compaction wrote again."""
    opened = Opened(db_path, buffer_pool)
    conn = opened.conn
    if expected_generation is not None:
        found = generation_of(conn)
        if found != expected_generation:
            raise DeltaWriteError(
                f"the database holds generation {found}, not {expected_generation}"
            )
    for d in replay:
        apply_delta(_Conn(conn), d, guard=False)
    return opened, compact(conn) if compact_after_replay else 0


def write_delta(opened: Opened, db_path: Path, delta: GraphDelta,
                meta: dict[str, Any] | Callable[[], dict[str, Any]]) -> dict[str, int]:  # fmt: skip
    """The second half of `write_deltas`: the run's delta and Meta, committed to the WAL
    together (one commit: each syncs the WAL, ~10-20 ms on these machines); returns the
    row counts the database holds now. `meta` may be a function, called once the delta's
    statements ran (the Meta can come after the delta: indexer/wal_commit.py).

    The rows are counted inside the transaction, once the delta's statements ran and before
    the Meta is asked for: the Meta table is not a counted one, so these are the counts the
    commit leaves, and a writer that waits for the Meta counts meanwhile (~12-20 ms on
    Django), not after it, when the run waits for its answer. A relationship table counted
    before the delta (`Opened.warm_up`) is that count plus the edges the delta's statements
    made less those they deleted, as each statement returned them (an edge whose ends the
    database lacks is neither: the count falls short, as a count of the table would)."""
    counts: dict[str, int] = {}
    net: dict[str, int] = {}

    def also(conn: kuzu.Connection) -> None:
        for table in COUNTED_TABLES:
            known = opened.counted.get(table)
            if known is not None and table in net:
                counts[table] = known + net[table]
            else:
                counts[table] = _count(conn, table)
        write_meta(conn, db_path.parent, meta() if callable(meta) else meta)

    apply_delta(_Conn(opened.conn), delta, guard=False, also=also, net=net)
    opened.counted = {}  # (no longer the database's)
    return counts


def _count(conn: kuzu.Connection, table: str) -> int:
    """One table's rows, as `store.count_rows` counts them."""
    pattern = f"(n:{table})" if table in NODE_TABLES else f"()-[n:{table}]->()"
    return int(conn.execute(f"MATCH {pattern} RETURN count(*)").get_next()[0])
