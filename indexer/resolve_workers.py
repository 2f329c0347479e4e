"""Resolution of a full build spread over forked worker processes.

Resolving a file reads the whole project (every file's indexes, built once in
the parent) but writes nothing another file's resolution reads except the
memo, whose stored entries are the same in any order of lookups. So after the
project is built the parent forks; each worker resolves the chunks of files it
is handed against its copy-on-write view of the project. The parent hands the
chunks out one by one (a few ahead, so a worker never waits for it) and
resolves chunks itself while no answer is ready.

Where the encoded outputs go:
- `resolve_parallel`: back to the parent, which yields them in path order.
- `resolve_into`: each process sends the chunks it resolved straight to the
  process that gathers them (the builder of a full build, indexer/resolve_host.py)
  on a pipe of its own, and tells the parent only that it has: the outputs cross
  one pipe, wrapped once, instead of going through the parent.

A worker that dies leaves the chunks it had not answered to the parent, which
resolves them itself: the run is slower, never different.
"""

from __future__ import annotations

import contextlib
import marshal
import multiprocessing as mp
import os
import queue
import signal
import threading
import traceback
from collections.abc import Callable, Iterator
from multiprocessing.connection import Connection, wait

from codeimpact.indexer.lifeline import die_with_parent

Encoded = tuple[bytes, bytes]  # (resolved blob, lookup keys blob) of one file
ResolveOne = Callable[[str], Encoded]

CHUNK_FILES = 24  # small enough to balance two workers, big enough to amortise a message
AHEAD = 2  # chunks handed to a worker before its first answer: it never waits on the parent

# set in the parent just before forking: the chunks, the resolver and the pipe ends a
# worker closes at once (the sinks of the other processes: their reader must see the end
# of a pipe when its writer ends)
_JOB: tuple[list[list[str]], ResolveOne, list[Connection]] | None = None


class ResolveError(RuntimeError):
    """A resolver raised in a worker: the same bug a serial run would have raised."""


def chunked(paths: list[str]) -> list[list[str]]:
    """The chunks workers are handed, in path order (a chunk's number is its position)."""
    return [paths[i : i + CHUNK_FILES] for i in range(0, len(paths), CHUNK_FILES)]


def sink_message(c: int, outputs: list[Encoded]) -> bytes:
    """What a process resolving chunk `c` sends on its sink (read by `resolve_host`)."""
    return marshal.dumps((c, outputs))


def _worker(conn, sink: Connection | None, parent_pid: int) -> None:
    die_with_parent(parent_pid)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    chunks, resolve_one, others = _JOB
    for other in others:
        other.close()
    # Answers go out from a thread. A send returns only once the reader has read most of it,
    # and the reader reads between taking earlier answers in path order: sending from here
    # kept each worker blocked for 11% of its time on Django.
    outbox: queue.SimpleQueue = queue.SimpleQueue()
    sender = threading.Thread(target=_send_all, args=(conn, sink, outbox), daemon=True)
    sender.start()
    try:
        while True:
            try:
                c = conn.recv()
            except EOFError:
                return
            if c is None:
                return
            try:
                outbox.put((c, [resolve_one(p) for p in chunks[c]]))
            except Exception:
                outbox.put((c, traceback.format_exc(limit=8)))
    finally:
        outbox.put(None)
        sender.join()


def _send_all(conn, sink: Connection | None, outbox: queue.SimpleQueue) -> None:
    while (item := outbox.get()) is not None:
        try:
            if sink is not None and not isinstance(item[1], str):
                # the parent hears of the chunk only once it is in the sink: a worker dying
                # before that leaves it to the parent (the reader drops a second copy)
                sink.send_bytes(sink_message(*item))
                item = (item[0], None)
            conn.send(item)
        except OSError:  # the parent or the reader is gone
            return


class _Crew:
    """Forked workers and the chunks each holds. `here(c)`: resolve chunk c in this
    process (a dead worker's, or while no answer is ready); `answer(c, out)`: a worker's
    answer (`out` None when it went to the worker's sink). `sinks`: one per worker (None:
    answers come back here); `mine`: this process's own sink, which no worker keeps open."""

    def __init__(self, chunks: list[list[str]], resolve_one: ResolveOne, workers: int,
                 here: Callable[[int], None], answer: Callable[[int, list | None], None],
                 sinks: list[Connection] | None = None,
                 mine: Connection | None = None):  # fmt: skip
        global _JOB
        self.chunks, self.here, self.answer = chunks, here, answer
        self.next = 0  # the first chunk nobody was handed
        self.procs: dict[object, mp.Process] = {}
        ctx = mp.get_context("fork")
        n = max(1, min(workers, len(chunks)))
        open_sinks = [s for s in [mine, *(sinks or ())] if s is not None]
        try:
            for i in range(n):
                sink = sinks[i] if sinks is not None else None
                _JOB = (chunks, resolve_one, [s for s in open_sinks if s is not sink])
                parent, child = ctx.Pipe()
                p = ctx.Process(target=_worker, args=(child, sink, os.getpid()), daemon=True)
                p.start()
                child.close()
                if sink is not None:
                    sink.close()  # the worker's own: written by it alone
                    open_sinks.remove(sink)
                self.procs[parent] = p
        finally:
            _JOB = None  # the workers have their copy; the parent keeps no reference
            for sink in (sinks or ())[n:]:
                sink.close()  # not needed: more sinks than chunks
        self.owned: dict[object, list[int]] = {conn: [] for conn in self.procs}
        for conn in self.procs:
            for _ in range(AHEAD):
                self.hand(conn)

    def hand(self, conn) -> None:
        if self.next < len(self.chunks):
            conn.send(self.next)
            self.owned[conn].append(self.next)
            self.next += 1

    def help(self) -> bool:
        """Resolve the next chunk here when no answer is ready; whether it did."""
        if self.next >= len(self.chunks) or wait(list(self.procs), 0):
            return False
        c, self.next = self.next, self.next + 1
        self.here(c)
        return True

    def take(self, timeout: float | None) -> None:
        """Receive the answers that are ready (waiting up to `timeout` for one) and hand
        each answering worker its next chunk."""
        for conn in wait(list(self.procs), timeout):
            try:
                got, out = conn.recv()
            except (EOFError, OSError):
                self._drop(conn)
                for lost in self.owned.pop(conn):
                    self.here(lost)
                continue
            if isinstance(out, str):
                raise ResolveError(f"resolving {self.chunks[got][0]}...: {out}")
            self.owned[conn].remove(got)
            self.answer(got, out)
            self.hand(conn)

    def rest_here(self) -> None:
        """Every worker is gone: the chunks nobody was handed are resolved here."""
        while self.next < len(self.chunks):
            c, self.next = self.next, self.next + 1
            self.here(c)

    def stop(self, finished: bool) -> None:
        # after the last chunk the workers are idle and leave when told; on an error, a
        # Ctrl-C or a consumer that stopped early they may be mid-chunk: stop them now
        for conn in list(self.procs):
            if finished:
                with contextlib.suppress(OSError):
                    conn.send(None)
            else:
                self.procs[conn].kill()
        for conn in list(self.procs):
            self._drop(conn)

    def _drop(self, conn) -> None:
        p = self.procs.pop(conn)
        p.join(timeout=5)
        if p.is_alive():
            p.kill()
            p.join()
        conn.close()


def resolve_parallel(
    paths: list[str], resolve_one: ResolveOne, workers: int, *, help_here: bool = False
) -> Iterator[tuple[str, bytes, bytes]]:
    """(path, resolved blob, keys blob) for every path, in the order of `paths`.
    `help_here`: this process resolves chunks too while no answer is ready (beside
    `workers` workers): one process fewer copies the pages of the project it touches."""
    chunks = chunked(paths)
    done: dict[int, list[Encoded]] = {}

    def here(c: int) -> None:
        done[c] = [resolve_one(p) for p in chunks[c]]

    crew = _Crew(chunks, resolve_one, workers, here, done.__setitem__)
    finished = False
    try:
        for c, files in enumerate(chunks):
            while c not in done:
                if not crew.procs:  # every worker gone: the parent resolves the rest itself
                    here(c)
                    break
                if help_here and crew.help():
                    continue
                crew.take(None)
            # answers that came while the consumer took the last chunk: a worker that ran
            # out of chunks while it waited for them to be read sat idle (12-15% of its time
            # on Django)
            if crew.procs:
                crew.take(0)
            for path, (blob, keys) in zip(files, done.pop(c)):
                yield path, blob, keys
        finished = True
    finally:
        crew.stop(finished)


def resolve_into(paths: list[str], resolve_one: ResolveOne, sinks: list[Connection]) -> None:
    """Resolve every chunk of `paths` (`chunked`) in this process and `len(sinks) - 1`
    forked workers; whoever resolves a chunk sends `sink_message(c, outputs)` on its own
    sink (`sinks[0]`: this process's; a worker's is closed here once it is forked). Returns
    once every chunk is in a sink; a chunk may come twice (a worker died after sending it)."""
    chunks = chunked(paths)
    mine = sinks[0]
    done: set[int] = set()

    def here(c: int) -> None:
        mine.send_bytes(sink_message(c, [resolve_one(p) for p in chunks[c]]))
        done.add(c)

    if len(sinks) == 1:
        for c in range(len(chunks)):
            here(c)
        return
    crew = _Crew(chunks, resolve_one, len(sinks) - 1, here, lambda c, _out: done.add(c),
                 sinks[1:], mine)  # fmt: skip
    finished = False
    try:
        while len(done) < len(chunks):
            if not crew.procs:
                crew.rest_here()
                break
            if not crew.help():
                crew.take(None)
        finished = True
    finally:
        crew.stop(finished)
