"""Commit an incremental run's deltas to a database's WAL from a child process.

Kùzu checkpoints when a database is closed (and when the object is freed), which
would cost a small delta 50-100 ms and rewrite the file (graph/wal_store.py). The
write therefore runs in a forked child that ends with `os._exit` after the commit,
so no destructor runs: the WAL holds the committed delta and the file is as it was.
The child sends back the row counts (or the exception it raised) through a pipe and
dies with its parent.

The run writes its side files while the child commits (`start`, then `Pending.result`):
on two cores the database's write and the side files' no longer follow each other.

An incremental run may start the child early (`prestart`, as the run begins): it puts the
database in place (`prepare`: the spare taken, once a leveller still at work on it is done,
or the copy of the first edit after a full build), opens it and brings it level with the
live generation while the run loads its state and resolves, then waits for the run's delta
(`Prestarted.commit`; its statements run once `Prestarted.send` hands it over, before the
Meta comes). The fork happens while this process is
small: a child forked at the write phase copied the page tables of everything the run had
loaded, and each page the run then wrote (the side files walk all of it) was copied again.

When this process runs other threads a fork is unsafe (indexer/fork_guard.py); the
write then runs here, before `start` returns, and the database is closed normally,
checkpoint included (slower, same content). `Committed.path` says which ran.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

from codeimpact.graph import wal_store
from codeimpact.graph.delta import GraphDelta
from codeimpact.graph.schema import REL_TABLES
from codeimpact.indexer.fork_guard import FORKED, fork_unsafe_reason, in_process
from codeimpact.indexer.lifeline import die_with_parent
from codeimpact.indexer.pipe_codec import dumps as _dumps
from codeimpact.indexer.pipe_codec import loads as _loads
from codeimpact.native.record import Hashed


class Committed(Hashed):
    rows: dict[str, int]  # the database's row counts after the commit
    rewritten: int  # edges a compaction wrote again (0 without one)
    path: str  # "forked", or "in this process: why" (the run's report says it)
    # what a prestarted child's `prepare` said of the database it put in place (`Ready.info`)
    info: dict[str, Any]
    __slots__ = ("rows", "rewritten", "path", "info")

    def __init__(
        self, rows: dict[str, int], rewritten: int, path: str, info: dict[str, Any] | None = None
    ) -> None:
        self.rows = rows
        self.rewritten = rewritten
        self.path = path
        self.info = {} if info is None else info


class Ready(Hashed):
    """A database in place for `prestart`'s child: what `wal_store.bring_level` needs, and
    what the run's report says of it."""

    expected_generation: int | None
    replay: list[GraphDelta]
    compact_after_replay: bool
    info: dict[str, Any]
    # what the info says once the delta is committed (in the child, before its answer)
    finish: Callable[[dict[str, Any]], dict[str, Any]]
    # the database's rows as counted before (the spare's leveller), when nothing is replayed:
    # its relationship tables are not counted again (`wal_store.Opened.counted`)
    rows: dict[str, int] | None
    __slots__ = ("expected_generation", "replay", "compact_after_replay", "info", "finish",
                 "rows")  # fmt: skip

    def __init__(
        self,
        expected_generation: int | None,
        replay: list[GraphDelta],
        compact_after_replay: bool,
        info: dict[str, Any] | None = None,
        finish: Callable[[dict[str, Any]], dict[str, Any]] = dict,
        rows: dict[str, int] | None = None,
    ) -> None:
        self.expected_generation = expected_generation
        self.replay = replay
        self.compact_after_replay = compact_after_replay
        self.info = {} if info is None else info
        self.finish = finish
        self.rows = rows


def _delta_message(delta: GraphDelta) -> tuple:
    """The delta as a tuple of its fields (plain values: `pipe_codec`), read back as
    `GraphDelta(*fields)`."""
    return tuple(getattr(delta, name) for name in GraphDelta.__slots__)


class DeltaChildDied(RuntimeError):
    """The child ended without an answer (killed, or a crash in native code)."""


def _read_all(fd: int) -> bytes:
    chunks = []
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


class Pending:
    """A commit running in a forked child (or done already, in this process): `result()`
    waits for it and returns or raises what the write did; `cancel()` stops a child whose
    result will not be read (the run failed meanwhile)."""

    def __init__(self, pid: int = 0, read_end: int = -1, done: Committed | None = None):
        self._pid = pid
        self._read_end = read_end
        self._done = done

    def result(self) -> Committed:
        if self._done is not None:
            return self._done
        try:
            data = _read_all(self._read_end)
        finally:
            self._close()
            _, status = os.waitpid(self._pid, 0)
            self._pid = 0
        if not data:
            raise DeltaChildDied(f"the database writer exited without an answer (status {status})")
        answer = _loads(data)
        if answer[0] == "ok":
            counts, rewritten, info = answer[1]
            self._done = Committed(counts, rewritten, FORKED, info)
            return self._done
        error = None
        with contextlib.suppress(Exception):
            error = _loads(answer[1]) if answer[1] is not None else None
        raise error if isinstance(error, BaseException) else RuntimeError(answer[2])

    def cancel(self) -> None:
        if self._pid:
            with contextlib.suppress(OSError):
                os.kill(self._pid, signal.SIGKILL)
            self._close()
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self._pid, 0)
            self._pid = 0

    def _close(self) -> None:
        if self._read_end >= 0:
            os.close(self._read_end)
            self._read_end = -1


def start(db_path: Path, expected_generation: int | None, replay: list[GraphDelta],
          delta: GraphDelta, meta: dict[str, Any], *, compact_after_replay: bool,
          buffer_pool: int) -> Pending:  # fmt: skip
    """Start applying `replay`, `delta` and `meta` to the database at `db_path` (see
    wal_store.write_deltas) in a child; the caller goes on (its side files) meanwhile.
    In this process (no fork: see the module docstring) the write is done before it
    returns, and raises what it raised."""
    args = (db_path, expected_generation, replay, delta, meta)
    kwargs = {"compact_after_replay": compact_after_replay, "buffer_pool": buffer_pool}
    unsafe = fork_unsafe_reason()
    if unsafe:
        opened, counts, rewritten = wal_store.write_deltas(*args, **kwargs)
        opened.close_checkpointed()
        return Pending(done=Committed(counts, rewritten, in_process(unsafe)))
    parent = os.getpid()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read_end)

        def work() -> tuple[dict[str, int], int, dict]:
            opened, counts, rewritten = wal_store.write_deltas(*args, **kwargs)
            _KEPT.append(opened)
            return counts, rewritten, {}

        _child(parent, write_end, work)
    os.close(write_end)
    return Pending(pid, read_end)


# What a child's write leaves open until its os._exit: a Kùzu database freed checkpoints
_KEPT: list[wal_store.Opened] = []


def _child(parent: int, write_end: int, work) -> None:
    """The body of a forked writer: `work()` -> (counts, rewritten, info), sent to the parent as
    the answer (or what it raised); ends the process."""
    code = 0
    try:
        die_with_parent(parent)  # (the _syntax extension's prctl: no ctypes, ~2 ms)
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
        answer = ("ok", work())
    except BaseException as e:  # everything goes to the parent, which raises it
        code = 1
        try:
            answer = ("error", _dumps(e), f"{type(e).__name__}: {e}")
        except Exception:
            answer = ("error", None, f"{type(e).__name__}: {e}")
    try:
        data = _dumps(answer)
        view = memoryview(data)
        while view:
            view = view[os.write(write_end, view) :]
    finally:
        os._exit(code)  # no destructor runs: Kùzu must not checkpoint


class Prestarted:
    """A writer forked by `prestart`, bringing its database level and then waiting for the
    run's delta: `commit` hands it over (a `Pending` to wait for), `cancel` stops it."""

    def __init__(self, pid: int, to_child: int, from_child: int):
        self._pid, self._to_child, self._from_child = pid, to_child, from_child
        self._sent = False

    def send(self, delta: GraphDelta) -> None:
        """Send the run's delta ahead of its Meta: the child runs its statements while the
        caller still computes the Meta (the working tree's fields), in the transaction
        `commit`'s Meta then ends."""
        assert not self._sent, "sent twice"
        self._sent = True
        with contextlib.suppress(BrokenPipeError):  # (its answer says why: see `commit`)
            self._write(_delta_message(delta))

    def commit(self, delta: GraphDelta, meta: dict[str, Any]) -> Pending:
        """Send the run's delta (unless `send` did) and Meta; the child commits them while
        the caller goes on. (A child that failed already has closed its end: its answer
        says why.)"""
        try:
            if not self._sent:
                self._write(_delta_message(delta))
            self._write(meta)
        except BrokenPipeError:
            pass
        finally:
            os.close(self._to_child)
            self._to_child = -1
        pending = Pending(self._pid, self._from_child)
        self._pid, self._from_child = 0, -1
        return pending

    def _write(self, value: Any) -> None:
        data = _dumps(value)
        view = memoryview(len(data).to_bytes(8, "little") + data)
        while view:
            view = view[os.write(self._to_child, view) :]

    def cancel(self) -> None:
        """Stop the writer unless `commit` handed it over (the run wrote nothing by delta)."""
        for fd in (self._to_child, self._from_child):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._to_child = self._from_child = -1
        Pending(self._pid).cancel()
        self._pid = 0


def _read_message(fh) -> bytes:
    """A length-prefixed message `Prestarted` sends (b"": none came). Not read to the end
    of the pipe: a process the run forks later holds a copy of its write end."""
    head = fh.read(8)
    if len(head) < 8:
        return b""
    size = int.from_bytes(head, "little")
    data = fh.read(size)
    return data if len(data) == size else b""


def _meta_of(fh) -> Callable[[], dict[str, Any]]:
    """The Meta `Prestarted.commit` sends after the delta, read when the delta's statements
    ran; none (the run failed or was cancelled meanwhile): the child ends, nothing committed."""

    def meta() -> dict[str, Any]:
        message = _read_message(fh)
        if not message:
            os._exit(0)  # (mid-transaction: no commit; the generation is discarded)
        return _loads(message)

    return meta


def prestart(db_path: Path, *, buffer_pool: int,
             prepare: Callable[[], Ready]) -> Prestarted | None:  # fmt: skip
    """Fork the writer of `db_path` now (None when a fork is unsafe: the caller writes later
    with `start`). The child runs `prepare()` first, which puts the database in place (the
    spare taken, or a copy) and says how to bring it level; then `wal_store.bring_level`,
    then it waits for `Prestarted.commit`'s delta and Meta and writes them
    (`wal_store.write_delta`). Call it before the run grows."""
    if fork_unsafe_reason():
        return None
    parent = os.getpid()
    down_r, down_w = os.pipe()
    up_r, up_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(down_w)
        os.close(up_r)

        def work() -> tuple[dict[str, int], int, dict]:
            ready = prepare()
            opened, rewritten = wal_store.bring_level(
                db_path, ready.expected_generation, ready.replay,
                compact_after_replay=ready.compact_after_replay, buffer_pool=buffer_pool,
            )  # fmt: skip
            _KEPT.append(opened)
            if ready.rows is not None and not ready.replay:
                opened.counted = {t: n for t, n in ready.rows.items() if t in REL_TABLES}
            # until the delta comes (each statement first asks whether it is there)
            opened.warm_up(lambda: bool(select.select([down_r], [], [], 0)[0]))
            fh = os.fdopen(down_r, "rb")
            message = _read_message(fh)
            if not message:  # cancelled: the run writes no delta (nothing is published)
                os._exit(0)
            delta = GraphDelta(*_loads(message))
            counts = wal_store.write_delta(opened, db_path, delta, _meta_of(fh))
            return counts, rewritten, ready.finish(ready.info)

        _child(parent, up_w, work)
    os.close(down_r)
    os.close(up_w)
    return Prestarted(pid, down_w, up_r)
