"""The database of an incremental generation: the spare brought forward, or a copy.

`start_delta` puts a database holding the live generation's content plus `delta`
into the new generation's folder without touching the live one:
- the spare database (graph/spare.py), moved in and brought level with the live
  generation by replaying the live generation's own delta, when there is one;
- otherwise a copy of the live database (the first edit after a full build, which
  makes no spare, or when the previous generation was still read at publish time).
Either way the deltas are committed to the database's WAL by a child process
(indexer/wal_commit.py), and the run's delta is recorded in the folder for the next
run's replay. A spare that fails (damaged, another generation than its record says)
is dropped and the write is done again on a copy.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

from codeimpact.graph import layout, spare, wal_store
from codeimpact.graph.delta import GraphDelta, clone_database
from codeimpact.graph.delta_log import save_delta
from codeimpact.graph.meta_files import meta_to_files
from codeimpact.graph.store import kuzu_module
from codeimpact.indexer import wal_commit
from codeimpact.indexer.fork_guard import fork_unsafe_reason
from codeimpact.native.record import Compared


class DeltaWrite(Compared):
    rows: dict[str, int]  # row counts of the database written
    source: str  # "spare" (brought forward, `replayed` deltas) or "copy"
    replayed: int
    compacted: bool
    edges_rewritten: int  # by the compaction (graph/wal_store.py)
    commit_path: str  # "forked", or why the commit ran in this process (wal_commit.py)
    # [size, xxh3] of the database file as the writer verified it, when nothing wrote it
    # since (only its WAL was): what publish's manifest records, not hashed there again
    # (39.6 MB on Django: 7-11 ms of the run's CPU at every edit)
    db_checksum: list | None
    __slots__ = (
        "rows",
        "source",
        "replayed",
        "compacted",
        "edges_rewritten",
        "commit_path",
        "db_checksum",
    )

    def __init__(
        self,
        rows: dict[str, int],
        source: str,
        replayed: int = 0,
        compacted: bool = False,
        edges_rewritten: int = 0,
        commit_path: str = "",
        db_checksum: list | None = None,
    ) -> None:
        self.rows = rows
        self.source = source
        self.replayed = replayed
        self.compacted = compacted
        self.edges_rewritten = edges_rewritten
        self.commit_path = commit_path
        self.db_checksum = db_checksum

    def counts(self) -> dict[str, int]:
        """For the run's report (`delta`)."""
        return {"spare_used": int(self.source == "spare"), "deltas_replayed": self.replayed,
                "compacted": int(self.compacted), "edges_rewritten": self.edges_rewritten}  # fmt: skip


def _clear_db(gen: layout.Generation) -> None:
    for name in (layout.DB_FILENAME, layout.DB_FILENAME + spare.WAL_SUFFIX):
        with contextlib.suppress(FileNotFoundError):
            (gen.path / name).unlink()


class PendingWrite:
    """A delta write under way (`start_delta`); `result()` waits for it, `cancel()` stops it
    when the run failed meanwhile."""

    def __init__(self, live: layout.Generation, gen: layout.Generation, delta: GraphDelta,
                 meta: dict[str, Any], buffer_pool: int, source: str, replayed: int,
                 compacted: bool, job: wal_commit.Pending) -> None:  # fmt: skip
        self.live, self.gen, self.delta, self.meta = live, gen, delta, meta
        self.buffer_pool = buffer_pool
        self.source, self.replayed, self.compacted = source, replayed, compacted
        self.job = job

    def result(self) -> DeltaWrite:
        try:
            done = self.job.result()
        except Exception:
            # (a prestarted child that failed may have failed on the spare it took)
            if self.source not in ("spare", "prestarted"):
                raise
            # a spare that cannot be brought forward: copy the live one instead
            _clear_db(self.gen)
            self.source, self.replayed, self.compacted = "copy", 0, False
            self.job = _copy_and_start(self.live, self.gen, self.delta, self.meta,
                                       self.buffer_pool)  # fmt: skip
            done = self.job.result()
        if done.info:  # a prestarted child says where its database came from
            self.source = done.info["source"]
            self.replayed = done.info.get("replayed", 0)
            self.compacted = done.info.get("compacted", False)
        save_delta(self.gen.path, self.delta)
        return DeltaWrite(done.rows, self.source, self.replayed, self.compacted,
                          done.rewritten, done.path, done.info.get("db_checksum"))  # fmt: skip

    def cancel(self) -> None:
        self.job.cancel()


def _in_table(gen: layout.Generation, meta: dict[str, Any]) -> dict[str, Any]:
    """Write the Meta values kept in files (graph/meta_files.py) into `gen`'s folder here,
    their fsyncs deferred to the publish's batch (this process writes `gen`); returns the
    Meta the database holds. Written by the writer child, each file was synced there,
    file and folder, one after the other (~10-20 ms of its commit, which the run waits for)."""
    return meta_to_files(gen.path, meta)


def _copy_and_start(live: layout.Generation, gen: layout.Generation, delta: GraphDelta,
                    meta: dict[str, Any], buffer_pool: int) -> wal_commit.Pending:  # fmt: skip
    clone_database(live, gen)
    return wal_commit.start(gen.db_path, live.number, [], delta, meta,
                            compact_after_replay=False, buffer_pool=buffer_pool)  # fmt: skip


def start_delta(idx: Path, live: layout.Generation, gen: layout.Generation, delta: GraphDelta,
                meta: dict[str, Any], buffer_pool: int) -> PendingWrite:  # fmt: skip
    """Start writing `gen`'s database: `live`'s content plus `delta`, and Meta = `meta`.
    The commit runs in a child (indexer/wal_commit.py) while the caller goes on."""
    meta = _in_table(gen, {**meta, "generation": gen.number})
    taken = spare.take(idx, live, gen)
    if taken is not None:
        compact = taken.wal_bytes > wal_store.COMPACT_WAL_BYTES
        try:
            job = wal_commit.start(
                gen.db_path, taken.generation, taken.replay, delta, meta,
                compact_after_replay=compact, buffer_pool=buffer_pool,
            )  # fmt: skip
            return PendingWrite(live, gen, delta, meta, buffer_pool, "spare",
                                len(taken.replay), compact, job)  # fmt: skip
        except Exception:  # (written in this process, and failed): copy instead
            _clear_db(gen)
    job = _copy_and_start(live, gen, delta, meta, buffer_pool)
    return PendingWrite(live, gen, delta, meta, buffer_pool, "copy", 0, False, job)


class EarlyWrite:
    """A delta writer started as the run begins (`prestart`): it puts the database in place
    and brings it level while the run resolves; `commit` hands it the run's delta."""

    def __init__(self, live: layout.Generation, gen: layout.Generation, buffer_pool: int,
                 source: str, replayed: int, compacted: bool,
                 child: wal_commit.Prestarted) -> None:  # fmt: skip
        self.live, self.gen, self.buffer_pool = live, gen, buffer_pool
        self.source, self.replayed, self.compacted = source, replayed, compacted
        self.child: wal_commit.Prestarted | None = child

    def send(self, delta: GraphDelta) -> None:
        """Hand the child `delta` before its Meta is known (`commit` then sends the Meta):
        it runs the statements meanwhile."""
        assert self.child is not None, "committed already"
        self.child.send(delta)

    def commit(self, delta: GraphDelta, meta: dict[str, Any]) -> PendingWrite:
        """What `start_delta` returns, for this writer: the child writes `delta` (unless
        `send` handed it over: the same one) and Meta."""
        meta = _in_table(self.gen, {**meta, "generation": self.gen.number})
        assert self.child is not None, "committed twice"
        job = self.child.commit(delta, meta)
        self.child = None  # the `PendingWrite`'s now: its `cancel` stops it
        return PendingWrite(self.live, self.gen, delta, meta, self.buffer_pool, self.source,
                            self.replayed, self.compacted, job)  # fmt: skip

    def cancel(self) -> None:
        if self.child is not None:
            self.child.cancel()
            self.child = None


def prestart(idx: Path, live: layout.Generation, gen: layout.Generation,
             buffer_pool: int) -> EarlyWrite | None:  # fmt: skip
    """`start_delta`'s writer forked now, before the run's delta is known (None when a fork
    is unsafe now: `start_delta` then writes once the delta is there). The child takes the
    spare itself, or copies the live database without one: a leveller still bringing the
    spare level after the previous run (graph/spare_level.py) is waited for there, Kùzu
    imported meanwhile, while this process goes on with the run."""

    def prepare() -> wal_commit.Ready:  # (in the child)
        kuzu_module()
        with spare.held(idx):
            taken = spare.take_held(idx, live, gen, check=False)
        if taken is None:
            clone_database(live, gen)
            return wal_commit.Ready(live.number, [], False, {"source": "copy"})
        # the spare's checksums, checked before it is opened: a damaged one fails the
        # write, which `PendingWrite.result` does again on a copy
        expected = taken.expected or {}
        verified = _stat_key(gen.db_path)  # before it is hashed
        spare.verify(gen.path, expected)
        compact = taken.wal_bytes > wal_store.COMPACT_WAL_BYTES
        info = {"source": "spare", "replayed": len(taken.replay), "compacted": compact}
        db = expected.get(layout.DB_FILENAME)
        if verified is not None and db is not None:  # (see DeltaWrite.db_checksum)
            info["db"] = [verified, list(db)]
        return wal_commit.Ready(taken.generation, taken.replay, compact, info,
                                lambda done: db_unchanged(done, gen.db_path),
                                taken.rows)  # fmt: skip

    if fork_unsafe_reason():
        return None  # before the spare is taken: `start_delta` takes it then
    child = wal_commit.prestart(gen.db_path, buffer_pool=buffer_pool, prepare=prepare)
    return (
        None if child is None else EarlyWrite(live, gen, buffer_pool, "prestarted", 0, False, child)
    )


def _stat_key(path: Path) -> list[int] | None:
    """What tells that nothing wrote a file since (its size, mtime and inode)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns, st.st_ino]


def db_unchanged(info: dict[str, Any], db_path: Path) -> dict[str, Any]:
    """A prestarted writer's `info` once it committed (in the child): `db` (the stat and
    checksum of the database file it verified) becomes `db_checksum` when the file's stat is
    still that one; a compaction, which rewrote the file, drops it."""
    info = dict(info)
    db = info.pop("db", None)
    if db is not None and _stat_key(db_path) == db[0]:
        info["db_checksum"] = db[1]
    return info


def salvager(idx: Path, live: layout.Generation):
    """For `layout.publish`: keep the database of `live` (about to be replaced) as the
    spare when its folder is removed."""
    return spare.salvager(idx, live.number)
