"""A full build's resolvers built and run by a forked process of their own.

Building the resolvers' indexes (every file's facts decoded and indexed: ~170 MB on
Django) in the builder left its allocator's arenas pinned by a few small objects made
meanwhile (memo entries, library tables imported on first use, the gathered graph's uid
strings): freeing the indexes gave back ~20 MB of ~190, so the builder carried ~190 MB of
dead arenas beside the database writer's process at the write. So a host forked from the
builder builds them, resolves beside the workers it forks (indexer/resolve_workers.py)
and streams each file's encoded output, in path order, to the builder, then the module
names and summaries the state keeps; when it ends, all of its memory goes back at once.

The builder gathers what it receives as it would gather the workers' answers. If the
host dies (killed, a crash in native code), the builder resolves what it has not
received itself: slower, never different. A resolver's exception comes back as
ResolveError, as a worker's does.
"""

from __future__ import annotations

import contextlib
import marshal
import multiprocessing as mp
import os
import signal
import traceback
from collections.abc import Callable, Iterator

from codeimpact.indexer.lifeline import die_with_parent
from codeimpact.indexer.resolution import module_names, summaries_of
from codeimpact.indexer.resolve_workers import Encoded, ResolveError, resolve_parallel

Projects = dict[str, object]
BATCH_FILES = 24  # files per message to the builder (resolve_workers.CHUNK_FILES)


class Host:
    """Resolves `order` from the projects `build()` makes: iterate `results()` to the
    end, then `modules` and `summaries` hold what `module_names` and `summaries_of` say
    of those projects. `encoder(projects)` encodes one file; `workers(projects)` counts
    the resolve workers once the projects are built (1: the host resolves alone)."""

    def __init__(self, build: Callable[[], Projects],
                 encoder: Callable[[Projects], Callable[[str], Encoded]],
                 workers: Callable[[Projects], int], order: list[str],
                 built: Callable[[Projects], None] | None = None):  # fmt: skip
        self._build, self._encoder, self._workers = build, encoder, workers
        self._order = order
        # called with the projects once built, before any file is resolved (the shared
        # summaries are written then, while the process is small: resolution.stage_shared)
        self._built = built or (lambda projects: None)
        self.modules: dict = {}
        self.summaries: dict[str, bytes] = {}

    def results(self, *, fork: bool = True) -> Iterator[tuple[str, bytes, bytes]]:
        """(path, resolved blob, keys blob) for every path, in order; `fork=False`: built
        and resolved in this process (when a fork is unsafe here: indexer/fork_guard.py)."""
        if not fork:
            yield from self._here(self._order)
            return
        ctx = mp.get_context("fork")
        reader, writer = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=self._host, args=(writer, os.getpid()),
                           name="codeimpact-resolve-host")  # fmt: skip
        proc.start()
        writer.close()
        received = 0
        try:
            while True:
                try:
                    msg = marshal.loads(reader.recv_bytes())
                except (EOFError, OSError):
                    break  # the host died: the rest is resolved here
                if isinstance(msg, list):
                    yield from msg
                    received += len(msg)
                    continue
                if msg[0] == "error":
                    raise ResolveError(f"resolving: {msg[1]}")
                self.modules, self.summaries = msg[1], msg[2]
                return
        finally:
            reader.close()
            if proc.is_alive() and received < len(self._order):
                proc.kill()  # an error, a Ctrl-C or a consumer that stopped early
            proc.join()
        yield from self._here(self._order[received:])

    def _here(self, paths: list[str]) -> Iterator[tuple[str, bytes, bytes]]:
        projects = self._build()
        self._built(projects)
        yield from self._resolve(projects, paths)
        self.modules, self.summaries = module_names(projects), summaries_of(projects)

    def _resolve(self, projects: Projects, paths: list[str]) -> Iterator[tuple[str, bytes, bytes]]:
        one, workers = self._encoder(projects), self._workers(projects)
        if workers > 1:  # the host is one of them
            yield from resolve_parallel(paths, one, workers - 1, help_here=True)
        else:
            yield from ((p, *one(p)) for p in paths)

    def _host(self, conn, parent_pid: int) -> None:
        die_with_parent(parent_pid)
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the builder handles Ctrl-C
        try:
            projects = self._build()
            self._built(projects)
            batch: list[tuple[str, bytes, bytes]] = []
            for item in self._resolve(projects, self._order):
                batch.append(item)
                if len(batch) >= BATCH_FILES:
                    conn.send_bytes(marshal.dumps(batch))
                    batch = []
            if batch:
                conn.send_bytes(marshal.dumps(batch))
            end = ("end", module_names(projects), summaries_of(projects))
            conn.send_bytes(marshal.dumps(end))
        except Exception:
            with contextlib.suppress(OSError):
                conn.send_bytes(marshal.dumps(("error", traceback.format_exc(limit=8))))
        finally:
            conn.close()
