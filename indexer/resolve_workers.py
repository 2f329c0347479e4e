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

`resolve_into` may replace its workers as the run goes (`RETIRE`): a page of the project
that either process writes (a reference count read) is copied, so by the end the worker
holds its own copy of most of what it shares with the parent, and its memo and call
tables besides: on Django the parent and its worker came to ~330 MB, the build's peak.
A worker that has resolved its share of the chunks up to a mark ends, once it has
answered them, and a fresh one is forked from the parent: it shares the parent's pages
again (and the parent's memo, which holds what the parent resolved meanwhile).
"""

from __future__ import annotations

import contextlib
import ctypes
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
# (`resolve_into`) the shares of the chunks after which each worker is replaced by a fresh
# fork. Django's full build, whose peak is the end of resolution: the tree's PSS 435 MB
# with one worker, 395 with two in turn, 371 with three; each new one and the host copy
# again the pages they write (three: ~50K page faults more, ~0.1 s of kernel CPU; the
# resolvers' own instructions are the same: the host's memo is the new worker's)
RETIRE = (0.45, 0.75)
RETIRE_MIN = 8  # chunks left after a mark below which the worker is kept

# set in the parent just before forking: the chunks, the resolver and the pipe ends a
# worker closes at once (the sinks of the other processes: their reader must see the end
# of a pipe when its writer ends)
_JOB: tuple[list[list[str]], ResolveOne, list[Connection]] | None = None
_TRIM = None  # glibc's malloc_trim, False where there is none (`_give_back`)


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
    answer (`out` None when it went to the worker's sink). `sinks`: per worker, the sinks
    of it and of the workers that replace it at the `RETIRE` marks, one each (None:
    answers come back here, no worker is replaced); `mine`: this process's own sink,
    which no worker keeps open."""

    def __init__(self, chunks: list[list[str]], resolve_one: ResolveOne, workers: int,
                 here: Callable[[int], None], answer: Callable[[int, list | None], None],
                 sinks: list[list[Connection]] | None = None,
                 mine: Connection | None = None):  # fmt: skip
        self.chunks, self.here, self.answer = chunks, here, answer
        self.resolve_one = resolve_one
        self.next = 0  # the first chunk nobody was handed
        self.procs: dict[object, mp.Process] = {}
        self.owned: dict[object, list[int]] = {}
        self.retired: list[mp.Process] = []
        n = max(1, min(workers, len(chunks)))
        # the sinks still to be handed to a worker (each slot's, in turn), and every sink
        # this process holds open: a worker closes all but its own
        self.spare = (
            [list(s) for s in sinks[:n]] if sinks is not None else [[None] for _ in range(n)]
        )
        self.open = [s for s in [mine, *(s for slot in self.spare for s in slot)] if s is not None]
        for slot in sinks[n:] if sinks is not None else ():
            for sink in slot:
                sink.close()  # not needed: more sinks than chunks
        self.marks = [round(f * len(chunks)) for f in RETIRE] if sinks is not None else []
        self.slot: dict[object, int] = {}  # worker -> its slot
        self.until: dict[object, int] = {}  # worker -> the chunk from which it is not handed any
        for i in range(n):
            self._start(i)

    def _start(self, slot: int) -> None:
        """Fork the next worker of `slot`, with the slot's next sink, and hand it chunks."""
        global _JOB
        sink = self.spare[slot].pop(0)
        _give_back()
        _JOB = (self.chunks, self.resolve_one, [s for s in self.open if s is not sink])
        ctx = mp.get_context("fork")
        try:
            parent, child = ctx.Pipe()
            p = ctx.Process(target=_worker, args=(child, sink, os.getpid()), daemon=True)
            p.start()
            child.close()
        finally:
            _JOB = None  # the worker has its copy; the parent keeps no reference
            if sink is not None:
                sink.close()  # the worker's own: written by it alone
                self.open.remove(sink)
        self.procs[parent], self.owned[parent], self.slot[parent] = p, [], slot
        # replaced at the next mark while the slot has a sink for another worker and enough
        # chunks are left after it to be worth the new worker's copies
        self.until[parent] = len(self.chunks)
        if self.spare[slot]:
            later = [m for m in self.marks if m > self.next and len(self.chunks) - m >= RETIRE_MIN]
            if later:
                self.until[parent] = later[0]
        for _ in range(AHEAD):
            self.hand(parent)

    def hand(self, conn) -> None:
        if self.next < len(self.chunks) and self.next < self.until[conn]:
            # a worker that died since its last answer: its end is read at the next `take`,
            # which resolves here the chunks it held (this one too)
            with contextlib.suppress(OSError):
                conn.send(self.next)
            self.owned[conn].append(self.next)
            self.next += 1
        elif not self.owned[conn] and self.next < len(self.chunks):
            self._retire(conn)

    def _retire(self, conn) -> None:
        """`conn`'s worker has answered every chunk it was handed up to its mark: it ends
        (its copies of the pages go with it) and a fresh one takes its slot."""
        slot = self.slot.pop(conn)
        with contextlib.suppress(OSError):
            conn.send(None)
        # reaped at the end (`stop`): its exit gives its pages back meanwhile, and this
        # process goes on at once
        self.retired.append(self.procs.pop(conn))
        self.owned.pop(conn)
        conn.close()
        try:
            self._start(slot)
        except OSError:  # no fork now (memory, process limit): the others go on without it
            self.spare[slot].clear()

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
                lost = self.owned[conn]
                self._drop(conn)
                for c in lost:
                    self.here(c)
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

    def close_spares(self) -> None:
        """The sinks of workers that were never forked (the chunks ran out, a worker died)."""
        for slot in self.spare:
            for sink in slot:
                if sink is not None:
                    sink.close()
            slot.clear()

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
        self.close_spares()
        for p in self.retired:
            _reap(p)

    def _drop(self, conn) -> None:
        self.owned.pop(conn, None)
        self.slot.pop(conn, None)
        _reap(self.procs.pop(conn))
        conn.close()


def _give_back() -> None:
    """Give the C allocator's free pages back to the OS before a fork (glibc's malloc_trim;
    elsewhere nothing): a free page kept would be shared, then copied for whichever process
    reuses it, the other keeping the garbage (Django: ~6 MB of the build's peak over a
    host's three forks, for ~1 ms each)."""
    global _TRIM
    if _TRIM is None:
        try:
            _TRIM = ctypes.CDLL(None).malloc_trim
        except (OSError, AttributeError):
            _TRIM = False
    if _TRIM:
        _TRIM(0)


def _reap(p: mp.Process) -> None:
    p.join(timeout=5)
    if p.is_alive():
        p.kill()
        p.join()


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


def resolve_into(paths: list[str], resolve_one: ResolveOne, sinks: list[Connection],
                 generations: int = 1, started: Callable[[], None] | None = None) -> None:  # fmt: skip
    """Resolve every chunk of `paths` (`chunked`) in this process and `(len(sinks) - 1) //
    generations` forked workers at a time, each replaced at the `RETIRE` marks by up to
    `generations - 1` others in turn; whoever resolves a chunk sends `sink_message(c,
    outputs)` on its own sink (`sinks[0]`: this process's; then `generations` for each
    worker and those replacing it; a worker's is closed here once it is forked). Returns
    once every chunk is in a sink; a chunk may come twice (a worker died after sending it).
    `started()` runs once the first workers are forked, before this process resolves: work
    of this process that need not come before them (resolve_host.py: the shared summaries'
    files) then runs beside their first chunks, not before they start."""
    chunks = chunked(paths)
    mine = sinks[0]
    per = max(1, generations)
    slots = [sinks[i : i + per] for i in range(1, len(sinks), per)]
    done: set[int] = set()

    def here(c: int) -> None:
        mine.send_bytes(sink_message(c, [resolve_one(p) for p in chunks[c]]))
        done.add(c)

    if len(sinks) == 1:
        if started is not None:
            started()
        for c in range(len(chunks)):
            here(c)
        return
    crew = _Crew(chunks, resolve_one, len(slots), here, lambda c, _out: done.add(c), slots,
                 mine)  # fmt: skip
    finished = False
    try:
        if started is not None:
            started()
        while len(done) < len(chunks):
            if not crew.procs:
                crew.rest_here()
                break
            if not crew.help():
                crew.take(None)
        finished = True
    finally:
        crew.stop(finished)
