"""Resolution of a full build spread over forked worker processes.

Resolving a file reads the whole project (every file's indexes, built once in
the parent) but writes nothing another file's resolution reads except the
memo, whose stored entries are the same in any order of lookups. So after the
project is built the parent forks; each worker resolves chunks of files against
its copy-on-write view of the project.

Every process resolving takes its next chunk from ONE queue (`_Queue`: the chunk
numbers in a pipe, in path order) as soon as it is free: no process waits for
another to hand it work. When the parent handed the chunks out itself, between the
chunks it resolved, its worker waited whenever the parent was in a long chunk (a
chunk costs 1-330 ms on Django) or busy otherwise: 0.4-0.5 s of the worker's ~2.5 s.

Where the encoded outputs go:
- `resolve_parallel`: back to the parent, which yields them in path order.
- `resolve_into`: each process sends the chunks it resolved straight to the
  process that gathers them (the builder of a full build, indexer/resolve_host.py)
  on a pipe of its own, and tells the parent only that it has: the outputs cross
  one pipe, wrapped once, instead of going through the parent.

A worker that dies takes the chunks it had taken with it: the parent resolves every
chunk nobody answered once the others are gone: the run is slower, never different.

`resolve_into` may replace its workers as the run goes (`RETIRE`): a page of the project
that either process writes (a reference count read) is copied, so by the end the worker
holds its own copy of most of what it shares with the parent, and its memo and call
tables besides: on Django the parent and its worker came to ~330 MB, the build's peak.
When the parent takes a chunk past a mark, the worker is told to end after the chunk it
is resolving, and a fresh one is forked from the parent once that one has exited (the
parent looks between the files it resolves: the slot's core idles for the rest of the
file at most): it shares the parent's pages again (and the parent's memo, which holds
what the parent resolved meanwhile). Forked at the mark instead, the fresh worker lived
beside the old one for the rest of its chunk, and the parent, whose every page it shared
again, copied the pages it wrote meanwhile: the old worker's copies, the parent's new
ones and the fresh worker's first ones at once, the build's peak (Django: +15-30 MB).
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import multiprocessing as mp
import os
import queue
import signal
import threading
import traceback
from collections.abc import Callable, Iterator
from multiprocessing.connection import Connection, wait

from codeimpact.indexer.lifeline import die_with_parent
from codeimpact.indexer.sink_frames import Encoded, send_chunk

ResolveOne = Callable[[str], Encoded]

CHUNK_FILES = 24  # small enough to balance two workers, big enough to amortise a message
# (`resolve_into`) the shares of the chunks after which each worker is replaced by a fresh
# fork. Django's full build, whose peak is the end of resolution: the tree's PSS 435 MB
# with one worker, 395 with two in turn, 371 with three; each new one and the host copy
# again the pages they write (three: ~50K page faults more, ~0.1 s of kernel CPU; the
# resolvers' own instructions are the same: the host's memo is the new worker's)
RETIRE = (0.45, 0.75)
RETIRE_MIN = 8  # chunks left after a mark below which the worker is kept

# set in the parent just before forking: the chunks, the resolver, the queue and the pipe
# ends a worker closes at once (the sinks of the other processes: their reader must see
# the end of a pipe when its writer ends)
_JOB: tuple[list[list[str]], ResolveOne, _Queue, list[Connection]] | None = None
_TRIM = None  # glibc's malloc_trim, False where there is none (`_give_back`)


class ResolveError(RuntimeError):
    """A resolver raised in a worker: the same bug a serial run would have raised."""


def chunked(paths: list[str]) -> list[list[str]]:
    """The chunks workers take, in path order (a chunk's number is its position)."""
    return [paths[i : i + CHUNK_FILES] for i in range(0, len(paths), CHUNK_FILES)]


class _Queue:
    """The numbers of `n` chunks, each taken once by whichever process reads it first: a
    pipe filled before any fork and closed for writing, so a read of one number (4 bytes:
    a pipe's reads are whole while every write was whole) takes it, and an empty read says
    none is left. Nothing to unlock when a process dies holding it. A pipe holds 64 KiB
    (16,384 numbers), 4 KiB when its user has many pipes open: when the numbers would not
    fit (`room`: the pipe's bytes), each stands for a run of chunks its taker resolves in
    turn, so the pipe is never written beyond what it holds (a write there would block)."""

    def __init__(self, n: int, room: int | None = None):
        r, w = os.pipe()
        try:
            room = room or _pipe_room(w, 4 * n)
            self.per = max(1, -(-4 * n // room))  # chunks per number
            self.n = n
            data = b"".join(t.to_bytes(4, "little") for t in range(0, n, self.per))
            os.set_blocking(w, False)
            if os.write(w, data) != len(data):  # (a pipe's room is whole pages: never)
                raise OSError(f"the resolution queue's pipe took less than {len(data)} bytes")
        except BaseException:
            os.close(r)
            raise
        finally:
            os.close(w)
        self.fd = r
        self._run: list[int] = []  # the rest of the run this process took

    def take(self) -> int | None:
        if not self._run:
            got = os.read(self.fd, 4)
            if not got:
                return None
            first = int.from_bytes(got, "little")
            self._run = list(range(min(first + self.per, self.n) - 1, first - 1, -1))
        return self._run.pop()

    def holding(self) -> bool:
        """Whether this process has chunks of the run it took left to take."""
        return bool(self._run)

    def close(self) -> None:
        os.close(self.fd)


def _pipe_room(fd: int, want: int) -> int:
    """The bytes pipe `fd` holds, grown toward `want` where the system lets it."""
    get, grow = getattr(fcntl, "F_GETPIPE_SZ", None), getattr(fcntl, "F_SETPIPE_SZ", None)
    if get is None:  # (not Linux: the least a pipe holds)
        return 4096
    room = fcntl.fcntl(fd, get)
    if want > room and grow is not None:
        with contextlib.suppress(OSError):  # (over the system's or the user's limit)
            room = fcntl.fcntl(fd, grow, want)
    return room


def _worker(conn, sink: Connection | None, parent_pid: int) -> None:
    die_with_parent(parent_pid)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    chunks, resolve_one, chunk_queue, others = _JOB
    for other in others:
        other.close()
    # Answers go out from a thread: a send returns only once the reader has read most of
    # it, and the reader (resolve_parallel's parent) reads between yielding outputs.
    outbox: queue.SimpleQueue = queue.SimpleQueue()
    sender = threading.Thread(target=_send_all, args=(conn, sink, outbox), daemon=True)
    sender.start()
    try:
        # until the parent says stop (anything readable: its word or its end), the run of
        # chunks it took finished
        while chunk_queue.holding() or not conn.poll():
            c = chunk_queue.take()
            if c is None:
                return
            try:
                outbox.put((c, [resolve_one(p) for p in chunks[c]]))
            except Exception:
                outbox.put((c, traceback.format_exc(limit=8)))
                return
    finally:
        outbox.put(None)
        sender.join()


def _send_all(conn, sink: Connection | None, outbox: queue.SimpleQueue) -> None:
    while (item := outbox.get()) is not None:
        try:
            if sink is not None and not isinstance(item[1], str):
                # the parent hears of the chunk only once it is in the sink: a worker dying
                # before that leaves it to the parent (the reader drops a second copy)
                send_chunk(sink, *item)
                item = (item[0], None)
            conn.send(item)
        except OSError:  # the parent or the reader is gone
            return


class _Crew:
    """Forked workers taking chunks from one queue beside this process. `here(c)`:
    resolve chunk c in this process; `answer(c, out)`: a worker's answer (`out` None when
    it went to the worker's sink). `sinks`: per worker, the sinks of it and of the workers
    that replace it at the `RETIRE` marks, one each (None: answers come back here, no
    worker is replaced); `mine`: this process's own sink, which no worker keeps open."""

    def __init__(self, chunks: list[list[str]], resolve_one: ResolveOne, workers: int,
                 here: Callable[[int], None], answer: Callable[[int, list | None], None],
                 sinks: list[list[Connection]] | None = None,
                 mine: Connection | None = None):  # fmt: skip
        self.chunks, self.here, self.answer = chunks, here, answer
        self.resolve_one = resolve_one
        self.queue = _Queue(len(chunks))
        self.procs: dict[object, mp.Process] = {}
        self.leaving: list[mp.Process] = []  # ended or ending: reaped at `stop`
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
        self.until: dict[object, int] = {}  # worker -> the chunk whose taking replaces it
        # retired workers still alive, each with its slot and the chunks taken at its mark:
        # their replacements are forked once they have exited (`poll`)
        self.retired: list[tuple[mp.Process, int, int]] = []
        for i in range(n):
            self._start(i, 0)

    def _start(self, slot: int, taken: int) -> None:
        """Fork the next worker of `slot`, with the slot's next sink (`taken`: the chunks
        taken so far)."""
        global _JOB
        sink = self.spare[slot].pop(0)
        _give_back()
        _JOB = (self.chunks, self.resolve_one, self.queue,
                [s for s in self.open if s is not sink])  # fmt: skip
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
        self.procs[parent], self.slot[parent] = p, slot
        # replaced at the next mark while the slot has a sink for another worker and enough
        # chunks are left after it to be worth the new worker's copies
        self.until[parent] = len(self.chunks)
        if self.spare[slot]:
            later = [m for m in self.marks if m > taken and len(self.chunks) - m >= RETIRE_MIN]
            if later:
                self.until[parent] = later[0]

    def _retire(self, conn, taken: int) -> None:
        """`conn`'s worker ends after the chunk it is resolving (its copies of the pages go
        with it); a fresh one takes its slot once it has exited (`poll`)."""
        self.until[conn] = len(self.chunks)
        with contextlib.suppress(OSError):
            conn.send(None)
        self.retired.append((self.procs[conn], self.slot[conn], taken))

    def poll(self) -> None:
        """Fork the replacement of each retired worker that has exited (reaped here)."""
        for item in [r for r in self.retired if not r[0].is_alive()]:
            self.retired.remove(item)
            _, slot, taken = item
            try:
                self._start(slot, taken)
            except OSError:  # no fork now (memory, process limit): the others go on without it
                self.spare[slot].clear()

    def help(self) -> bool:
        """Take the next chunk from the queue and resolve it here; False when none is left.
        Taking one past a worker's mark retires that worker first."""
        self.poll()
        c = self.queue.take()
        if c is None:
            self.retired.clear()  # nothing left for a replacement to take
            return False
        for conn in [w for w, until in self.until.items() if until <= c]:
            self._retire(conn, c + 1)
        self.here(c)
        return True

    def take(self, timeout: float | None) -> None:
        """Receive the answers and ends that are ready, waiting up to `timeout` for one."""
        for conn in wait(list(self.procs), timeout):
            try:
                got, out = conn.recv()
            except (EOFError, OSError):  # it ended (or died): what it took and did not
                self._drop(conn)  # answer is left to this process (`missing`)
                continue
            if isinstance(out, str):
                raise ResolveError(f"resolving {self.chunks[got][0]}...: {out}")
            self.answer(got, out)

    def close_spares(self) -> None:
        """The sinks of workers that were never forked (the chunks ran out, a worker died)."""
        for slot in self.spare:
            for sink in slot:
                if sink is not None:
                    sink.close()
            slot.clear()

    def stop(self, finished: bool) -> None:
        # after the last chunk the workers have ended or are ending; on an error, a Ctrl-C
        # or a consumer that stopped early they may be mid-chunk: stop them now
        for conn in list(self.procs):
            if not finished:
                self.procs[conn].kill()
            self._drop(conn)
        self.close_spares()
        self.queue.close()
        for p in self.leaving:
            _reap(p)

    def _drop(self, conn) -> None:
        """A worker that ended (or died): reaped at `stop`, its exit not waited for here."""
        self.slot.pop(conn, None)
        self.until.pop(conn, None)
        self.leaving.append(self.procs.pop(conn))
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
    `help_here`: this process resolves chunks too, beside `workers` workers: one process
    fewer copies the pages of the project it touches."""
    chunks = chunked(paths)
    done: dict[int, list[Encoded]] = {}

    def here(c: int) -> None:
        done[c] = [resolve_one(p) for p in chunks[c]]

    crew = _Crew(chunks, resolve_one, workers, here, done.__setitem__)
    finished = False
    try:
        for c, files in enumerate(chunks):
            while c not in done:
                if not crew.procs:  # every worker gone: what they left is resolved here
                    here(c)
                elif not (help_here and crew.help()):
                    crew.take(None)
            for path, (blob, keys) in zip(files, done.pop(c)):
                yield path, blob, keys
        finished = True
    finally:
        crew.stop(finished)


def resolve_into(paths: list[str], resolve_one: ResolveOne, sinks: list[Connection],
                 generations: int = 1, started: Callable[[], None] | None = None,
                 finished: Callable[[], None] | None = None) -> None:  # fmt: skip
    """Resolve every chunk of `paths` (`chunked`) in this process and `(len(sinks) - 1) //
    generations` forked workers at a time, each replaced at the `RETIRE` marks by up to
    `generations - 1` others in turn; whoever resolves a chunk sends `send_chunk(sink, c,
    outputs)` on its own sink (`sinks[0]`: this process's; then `generations` for each
    worker and those replacing it; a worker's is closed here once it is forked). Returns
    once every chunk is in a sink; a chunk may come twice (a worker died after sending it).
    `started()` runs once the first workers are forked, before this process resolves: work
    of this process that need not come before them (resolve_host.py: the shared summaries'
    files) then runs beside their first chunks, not before they start. `finished()` runs
    once every chunk is in a sink, before the workers' exits are waited for (a worker's
    exit gives its ~70 MB back: ~10-20 ms on Django that the gatherer need not wait)."""
    chunks = chunked(paths)
    mine = sinks[0]
    per = max(1, generations)
    slots = [sinks[i : i + per] for i in range(1, len(sinks), per)]
    done: set[int] = set()

    crew: _Crew | None = None

    def one(path: str) -> Encoded:
        out = resolve_one(path)
        if crew is not None and crew.retired:
            crew.poll()  # (between files: a retired worker's slot idles for one file at most)
        return out

    def here(c: int) -> None:
        send_chunk(mine, c, [one(p) for p in chunks[c]])
        done.add(c)

    if len(sinks) == 1:
        if started is not None:
            started()
        for c in range(len(chunks)):
            here(c)
        if finished is not None:
            finished()
        return
    crew = _Crew(chunks, resolve_one, len(slots), here, lambda c, _out: done.add(c), slots,
                 mine)  # fmt: skip
    ok = False
    try:
        if started is not None:
            started()
        while crew.help():
            crew.take(0)  # (answers and ends that came meanwhile: a dead worker is seen)
        while len(done) < len(chunks) and crew.procs:  # the workers' last chunks
            crew.take(None)
        for c in range(len(chunks)):
            if c not in done:  # taken by a worker that died
                here(c)
        if finished is not None:
            finished()
        ok = True
    finally:
        crew.stop(ok)
