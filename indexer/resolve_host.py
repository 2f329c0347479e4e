"""A full build's resolvers built and run by a forked process of their own.

Building the resolvers' indexes (every file's facts decoded and indexed: ~170 MB on
Django) in the builder left its allocator's arenas pinned by a few small objects made
meanwhile (memo entries, library tables imported on first use, the gathered graph's uid
strings): freeing the indexes gave back ~20 MB of ~190, so the builder carried ~190 MB of
dead arenas beside the database writer's process at the write. So a host forked from the
builder builds them, resolves beside the workers it forks (indexer/resolve_workers.py),
then sends the module names and summaries the state keeps; when it ends, all of its
memory goes back at once. When workers forked from it would not fit the memory budget,
it may instead leave the resolving to partition workers forked by the builder
(indexer/resolve_parts.py: `split`).

Every process resolving sends the chunks it resolved straight to the builder, each on a
pipe of its own (`resolve_into`): the builder makes one per process the host may run
(the workers that replace one another at resolve_workers.RETIRE's marks included)
before it forks it. The outputs cross one pipe, written from their own bytes
(indexer/sink_frames.py); going through the host (a worker's answer unpickled there,
wrapped again and sent on) cost both processes CPU.
The builder takes the chunks in path order, whichever pipe brings them.

The builder gathers what it receives as it would gather the workers' answers. If the
host dies (killed, a crash in native code), its workers die with it and the builder
resolves what it has not received itself: slower, never different. A resolver's
exception comes back as ResolveError, as a worker's does.
"""

from __future__ import annotations

import contextlib
import functools
import multiprocessing as mp
import os
import select
import signal
import traceback
from collections.abc import Callable, Iterator
from multiprocessing.connection import Connection

from codeimpact.indexer.lang.api import FileFacts, native_core, shared_values
from codeimpact.indexer.lifeline import die_with_parent
from codeimpact.indexer.resolution import module_names, summaries_of
from codeimpact.indexer.resolve_feed import Feed, received
from codeimpact.indexer.resolve_workers import (
    RETIRE,
    ResolveError,
    chunked,
    resolve_into,
    resolve_parallel,
)
from codeimpact.indexer.sink_frames import Encoded, Frames, send_value

Projects = dict[str, object]
# the processes that hold each worker's place in turn (resolve_workers.RETIRE)
GENERATIONS = 1 + len(RETIRE)
# the projects a host process built, held until it exits (`Host._host`)
_HELD: list[Projects] = []
# the builder's side of a split: (module names, summaries) -> what `results` yields
Split = Callable[[dict, dict[str, bytes]], Iterator[tuple[str, bytes, bytes]]]
# a fed host's start of its build: (each fed file's decoded facts, `go`'s payload) -> the
# paths to resolve, in order (the build's inputs set up from them: `Host.start`)
Arrived = Callable[[dict[str, FileFacts], bytes], list[str]]


class Host:
    """Resolves `order` from the projects `build()` makes: iterate `results()` to the
    end, then `modules` and `summaries` hold what `module_names` and `summaries_of` say
    of those projects. `encoder(projects)` encodes one file; `workers(projects)` counts
    the processes resolving once the projects are built (1: the host resolves alone);
    `workers(None)`, asked before they are built, the most it may count.

    A host `start`ed with a feed before the facts are all made (a new index's, forked as
    its extraction starts: indexer/resolve_feed.py) decodes each file's facts as the
    builder hands them on, then, at `go`, `arrived` gives the paths to resolve (`order` is
    then None until `go`)."""

    def __init__(self, build: Callable[[], Projects],
                 encoder: Callable[[Projects], Callable[[str], Encoded]],
                 workers: Callable[[Projects | None], int], order: list[str] | None,
                 built: Callable[[Projects], None] | None = None,
                 split: tuple[Callable[[Projects], bool], Split] | None = None,
                 arrived: Arrived | None = None):  # fmt: skip
        self._build, self._encoder, self._workers = build, encoder, workers
        self._order = order
        self._arrived = arrived
        # called with the projects once built, before this process resolves a file (the
        # shared summaries are written then, while the process is small, its workers
        # forked: resolution.stage_shared)
        self._built = built or (lambda projects: None)
        # (whether the built projects are better resolved by partition workers, which the
        # builder then runs with the module names and summaries): asked only when the
        # host may not fork a worker of its own but two processes may resolve
        self._split = split
        self.split = False  # whether they were
        self._exiting = None  # the host once it sent its end, left to exit (`reap`)
        self.modules: dict = {}
        self.summaries: dict[str, bytes] = {}
        self._proc = None  # the host process, once `start`ed
        self._readers: list[Connection] = []
        self._feed: Feed | None = None
        self._prepare: Callable[[], None] | None = None

    def start(self, *, feed: bool = False, prepare: Callable[[], None] | None = None) -> None:
        """Fork the host process now (`results` forks it otherwise); `feed`: it decodes the
        facts handed on by `send` until `go` (with an `arrived` given), after `prepare()`
        (the resolvers imported, say: beside the extraction, not in the build)."""
        ctx = mp.get_context("fork")
        # one pipe for the host, then GENERATIONS for each worker it may fork (resolve_into)
        most = max(1, self._workers(None))
        pipes = [ctx.Pipe(duplex=False) for _ in range(1 + (most - 1) * GENERATIONS)]
        sinks = [w for _, w in pipes]
        fed = os.pipe() if feed else None
        self._prepare = prepare
        args = (sinks, os.getpid()) if fed is None else (sinks, os.getpid(), fed)
        proc = ctx.Process(target=self._host, args=args, name="codeimpact-resolve-host")
        proc.start()
        for w in sinks:
            w.close()  # written by the host and its workers only: their ends end the pipes
        if fed is not None:
            os.close(fed[0])
            self._feed = Feed(fed[1])
        self._proc, self._readers = proc, [r for r, _ in pipes]

    def send(self, path: str, blob: bytes) -> None:
        """Hand a file's facts blob to a host started with a feed."""
        self._feed.send(path, blob)

    def go(self, order: list[str], payload: bytes) -> None:
        """The last of the feed: the host builds the resolvers (`arrived(decoded, payload)`
        there gives it `order`) and resolves `order` (`results`)."""
        self._order = order
        self._feed.go(payload)

    def cancel(self) -> None:
        """Stop a started host whose results are not read (a no-op once they were)."""
        if self._feed is not None:
            self._feed.close()
        proc, self._proc = self._proc, None
        for conn in self._readers:
            conn.close()
        self._readers = []
        if proc is not None:
            proc.kill()
            proc.join()

    def results(self, *, fork: bool = True, reap_later: bool = False,
                forked: Callable[[], object] | None = None) -> Iterator[tuple[str, bytes, bytes]]:  # fmt: skip
        """(path, resolved blob, keys blob) for every path, in order; `fork=False`: built
        and resolved in this process (when a fork is unsafe here: indexer/fork_guard.py).
        `reap_later`: a host that sent its end and every chunk is not waited for here (its
        exit, ~170 MB freed, ran on the critical path): `reap` waits for it. `forked()` runs
        here once the host is forked, while it builds its projects (this process waits)."""
        if not fork:
            yield from self._here(self._order)
            return
        if self._proc is None:
            self.start()
        proc, readers = self._proc, self._readers
        self._proc, self._readers = None, []
        chunks = chunked(self._order)
        got: dict[int, list[Encoded]] = {}
        end: tuple | None = None
        early: dict[str, bytes] | None = None  # the summaries, when sent before the end
        c = 0  # the next chunk to hand on
        frames = Frames()  # (one buffer read into, whichever pipe brings a message)
        # the pipes polled while they live (multiprocessing's `wait` made and filled a
        # selector at each of the ~150 waits of Django's resolution)
        pipes = select.poll()
        by_fd = {conn.fileno(): conn for conn in readers}
        for fd in by_fd:
            pipes.register(fd, select.POLLIN)
        try:
            if forked is not None:
                forked()
            while c < len(chunks) or end is None:
                if c not in got and not readers:
                    break  # the host died: the rest is resolved here
                # every message ready before a chunk is handed on: a process blocked on a
                # full pipe waits no longer than it must
                for fd, _ in pipes.poll(0 if c in got else None):
                    conn = by_fd[fd]
                    try:
                        msg = frames.read(conn)
                    except (EOFError, OSError):  # its writer ended (or died mid-message)
                        pipes.unregister(fd)
                        readers.remove(conn)
                        conn.close()
                        continue
                    if isinstance(msg[0], int):
                        if msg[0] >= c:  # (a second copy of a chunk: dropped)
                            got.setdefault(msg[0], msg[1])
                    elif msg[0] == "error":
                        raise ResolveError(f"resolving: {msg[1]}")
                    elif msg[0] == "summaries":  # (sent early: see `_started`)
                        early = msg[1]
                    else:
                        end = msg
                if c in got:
                    for path, (blob, keys) in zip(chunks[c], got.pop(c)):
                        yield path, blob, keys
                    c += 1
        finally:
            for conn in readers:
                conn.close()
            if proc.is_alive() and end is None:
                proc.kill()  # an error, a Ctrl-C or a consumer that stopped early
            if reap_later and end is not None and end[0] == "end" and c == len(chunks):
                self._exiting = proc  # (done: it only exits now)
            else:
                proc.join()
        if end is not None and end[0] == "parts":
            self.modules, self.summaries, self.split = end[1], end[2], True
            yield from self._split[1](self.modules, self.summaries)
            return
        if end is not None and c == len(chunks):
            self.modules, self.summaries = end[1], end[2] if end[2] is not None else early
            return
        missing = [p for i in range(c, len(chunks)) if i not in got for p in chunks[i]]
        local = self._here(missing)
        for i in range(c, len(chunks)):
            if i in got:
                for path, (blob, keys) in zip(chunks[i], got.pop(i)):
                    yield path, blob, keys
            else:
                for _ in chunks[i]:
                    yield next(local)
        for _ in local:  # to its end: it sets the module names and summaries
            pass

    def reap(self) -> None:
        """Wait for the host `results(reap_later=True)` left to exit (a no-op else)."""
        proc, self._exiting = self._exiting, None
        if proc is not None:
            proc.join()

    def _here(self, paths: list[str]) -> Iterator[tuple[str, bytes, bytes]]:
        projects = self._build()
        self._built(projects)
        one, workers = self._encoder(projects), self._workers(projects)
        if workers > 1:  # this process is one of them
            yield from resolve_parallel(paths, one, workers - 1, help_here=True)
        else:
            yield from ((p, *one(p)) for p in paths)
        self.modules, self.summaries = module_names(projects), summaries_of(projects)

    def _host(self, sinks: list[Connection], parent_pid: int,
              fed: tuple[int, int] | None = None) -> None:  # fmt: skip
        die_with_parent(parent_pid)
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the builder handles Ctrl-C
        mine = sinks[0]
        if fed is not None:
            os.close(fed[1])  # (the builder's end: the feed ends when the builder closes it)
        try:
            projects = _populated(self._build if fed is None else
                                  functools.partial(self._fed_build, fed[0]))  # fmt: skip
            # never freed here: this process ends with os._exit once it has sent its end, and
            # freeing ~170 MB of objects one by one before that (when this frame returns)
            # cost ~0.09 cpu-s and ~10K page faults on Django; its memory goes back at once
            _HELD.append(projects)
            most = 1 + (len(sinks) - 1) // GENERATIONS
            workers = max(1, min(self._workers(projects), most))
            if workers == 1 and most > 1 and self._split and self._split[0](projects):
                self._built(projects)  # (the partition workers read the files written)
                parts = ("parts", module_names(projects), summaries_of(projects))
                send_value(mine, parts)
                return
            used = 1 + (workers - 1) * GENERATIONS
            for unused in sinks[used:]:
                unused.close()
            # the shared summaries are written, and the files' summaries sent, once the workers
            # are forked: beside their first chunks, not before any of them starts (~30-40 ms
            # of Django's serial set-up: the tables encoded and the file written and synced)
            # nor after the last one (~50-80 ms of its serial end: encoded and sent)
            started = functools.partial(self._started, projects, mine, workers > 1)
            # (sent before the workers' exits are waited for)
            end = functools.partial(self._end, projects, mine, workers > 1)
            resolve_into(self._order, self._encoder(projects), sinks[:used], GENERATIONS, started,
                         end)  # fmt: skip
        except Exception:
            with contextlib.suppress(OSError):
                send_value(mine, ("error", traceback.format_exc(limit=8)))
        finally:
            mine.close()

    def _fed_build(self, fed: int) -> Projects:
        """The facts decoded as the feed brings them, then the build (`arrived` set up its
        inputs): under one `shared_values`, which the build's own joins."""
        if self._prepare is not None:
            self._prepare()
        with shared_values():
            decoded, payload = received(fed, FileFacts.from_bytes)
            self._order = self._arrived(decoded, payload)
            del decoded  # (the build's inputs hold them)
            return self._build()

    def _started(self, projects: Projects, mine: Connection, early: bool) -> None:
        """The host's work once its workers are forked: the shared summaries' files, and
        (`early`) the files' summaries sent now (a resolver's summaries are made with its
        project: they are those `summaries_of` gives at the end), not on the serial end."""
        self._built(projects)
        if early:
            send_value(mine, ("summaries", summaries_of(projects)))

    def _end(self, projects: Projects, mine: Connection, early: bool) -> None:
        """Every chunk is in a sink: the module names (and the summaries, unless `early`)."""
        summaries = None if early else summaries_of(projects)
        send_value(mine, ("end", module_names(projects), summaries))


def _populated(build: Callable[[], Projects]) -> Projects:
    """`build()` with the small-object arenas it takes mapped populated (native/core_arenas.c):
    the projects are built on the serial stretch before any worker forks, one core idle
    (~110 MB on Django: a page fault per page, ~30 ms of its ~300). Off again before a
    fork: the workers' and the resolution's arenas are taken as before (populated, the
    tree's PSS grew 372 -> 389 MB)."""
    populate = getattr(native_core(), "populate_arenas", None)
    if populate is None or populate(True):
        return build()
    try:
        return build()
    finally:
        populate(False)
