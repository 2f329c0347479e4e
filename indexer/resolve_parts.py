"""A full build resolved by partition workers: when workers forked from the resolve host
would not fit the memory budget.

The host (indexer/resolve_host.py) builds every file's index to make the projects' tables
and summaries: 3.7 GB on the Linux kernel. A worker forked from it copies every page it
reads (reading an object writes its reference count), i.e. nearly all of them, so the host
resolved the kernel alone on one core (214 s of a 495 s build). Instead, the host stages
what the projects keep beside the files (resolution.stage_shared), sends the module names
and summaries, and exits; the builder, which holds no index, forks PARTS workers. Each
builds its projects as an edit does (`Prior`: the name tables from the staged file, a
file's index when a lookup first reaches it) and drops what its walk left behind
(lang/cfamily/resolve.py `walk_on`). The first worker is handed chunks from the front of
the path order, the second from the back: each resolves a run of neighbouring files (the
headers of one folder after another) and they meet where the work splits evenly, whatever
each file costs.

The builder takes the outputs in path order: a chunk that comes before its turn (the
second worker's, all of them) waits in a scratch file, not in memory. A worker that dies
leaves the chunks it held to the others; with none left, the builder builds a project and
resolves the rest itself: slower, never different.
"""

from __future__ import annotations

import contextlib
import functools
import marshal
import multiprocessing as mp
import os
import queue
import signal
import tempfile
import threading
import traceback
from collections.abc import Callable, Iterator
from multiprocessing.connection import wait
from pathlib import Path

from codeimpact.indexer.fork_guard import fork_unsafe_reason
from codeimpact.indexer.lang import LANGUAGES, group_of
from codeimpact.indexer.lang.api import Prior
from codeimpact.indexer.lazy_facts import LazyFacts
from codeimpact.indexer.lifeline import die_with_parent
from codeimpact.indexer.resolution import _resolve_encoded, make_projects
from codeimpact.indexer.resolve_workers import Encoded, ResolveError, ResolveOne, chunked

PARTS = 2
AHEAD = 2  # chunks a worker holds beyond the one it resolves: it never waits for the builder

# A split pays when the projects that walk (CProject: `walk_on`) hold at least this share of
# the files: every worker builds the others' projects whole.
SPLIT_SHARE = 0.9

# set in the builder just before forking: the chunks and what makes a worker's resolver
_JOB: tuple[list[list[str]], Callable[[], ResolveOne]] | None = None


def worth_splitting(projects: dict[str, object], lang_of: dict[str, str]) -> bool:
    """Whether partition workers would hold what they need and little else (`SPLIT_SHARE`)."""
    walking = {LANGUAGES[p.language].group for p in projects.values() if hasattr(p, "walk_on")}
    n = sum(1 for lang in lang_of.values() if group_of(lang) in walking)
    return bool(walking) and n >= SPLIT_SHARE * len(lang_of)


def part_resolver(facts: LazyFacts, lang_of: dict[str, str], configs: dict[str, str],
                  modules: dict, summaries: dict[str, bytes],
                  shared: dict[str, Path]) -> ResolveOne:  # fmt: skip
    """A partition worker's resolver: the projects of the groups with a staged shared
    summary (`shared`: group -> its file) built as an edit builds them, with nothing
    dirty (so each file's summary and the tables stand: those the host made of the same
    facts), walking; the others' projects built whole."""
    from codeimpact.indexer.incremental_run import _Decoded

    def load(group: str):
        path = shared.get(group)
        return marshal.loads(path.read_bytes()) if path is not None else None

    prior = Prior(_Decoded(summaries), set(), modules, load)
    projects = make_projects(facts, lang_of, configs, prior, prior_groups=set(shared))
    for project in {id(p): p for p in projects.values()}.values():
        walk_on = getattr(project, "walk_on", None)
        if walk_on is not None and LANGUAGES[project.language].group in shared:
            walk_on()
    return functools.partial(_resolve_encoded, projects, lang_of, facts)


def _part_worker(conn, parent_pid: int) -> None:
    die_with_parent(parent_pid)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the builder handles Ctrl-C
    chunks, make = _JOB
    # answers go out from a thread: the builder reads between taking outputs in order
    outbox: queue.SimpleQueue = queue.SimpleQueue()
    sender = threading.Thread(target=_send_all, args=(conn, outbox), daemon=True)
    sender.start()
    try:
        one = make()
        while (c := conn.recv()) is not None:
            outbox.put(marshal.dumps((c, [one(p) for p in chunks[c]])))
    except EOFError:
        pass
    except Exception:
        outbox.put(marshal.dumps(("error", traceback.format_exc(limit=8))))
    finally:
        outbox.put(None)
        sender.join()


def _send_all(conn, outbox: queue.SimpleQueue) -> None:
    while (msg := outbox.get()) is not None:
        try:
            conn.send_bytes(msg)
        except OSError:  # the builder is gone
            return


class _Spill:
    """Outputs that came before their turn, in a scratch file until it comes."""

    def __init__(self, folder: Path):
        fd, name = tempfile.mkstemp(prefix="parts-", suffix=".tmp", dir=folder)
        os.unlink(name)  # nothing outlives the build, however it ends
        self._fd, self._end = fd, 0
        self._at: dict[int, tuple[int, int]] = {}

    def put(self, c: int, raw: bytes) -> None:
        os.pwrite(self._fd, raw, self._end)
        self._at[c] = (self._end, len(raw))
        self._end += len(raw)

    def __contains__(self, c: int) -> bool:
        return c in self._at

    def take(self, c: int) -> list[Encoded]:
        at, size = self._at.pop(c)
        return marshal.loads(os.pread(self._fd, size, at))[1]

    def close(self) -> None:
        os.close(self._fd)


def resolve_split(paths: list[str], make: Callable[[], ResolveOne], scratch: Path,
                  parts: int = PARTS) -> Iterator[tuple[str, bytes, bytes]]:  # fmt: skip
    """(path, resolved blob, keys blob) for every path, in order, resolved by `parts`
    forked workers, each resolving with what `make()` (called in the worker) returns."""
    global _JOB
    chunks = chunked(paths)
    if fork_unsafe_reason():  # (a thread started since the host was forked): resolved here
        spill = _Spill(scratch)
        try:
            yield from _here(chunks, 0, spill, make)
        finally:
            spill.close()
        return
    front, back = 0, len(chunks) - 1  # the next chunk nobody was handed, from either end
    lost: list[int] = []  # handed to a worker that died: handed again first
    ctx = mp.get_context("fork")
    procs: dict = {}  # conn -> its process
    ends: dict = {}  # conn -> 1 (takes from the front) or -1 (from the back)
    held: dict = {}  # conn -> the chunks it was handed and has not answered
    spill = _Spill(scratch)

    def hand(conn) -> None:
        nonlocal front, back
        if lost:
            c = lost.pop()
        elif front > back:
            return
        elif ends[conn] > 0:
            c, front = front, front + 1
        else:
            c, back = back, back - 1
        try:
            conn.send(c)
        except OSError:  # it died: its end of the pipe says so when read
            lost.append(c)
            return
        held[conn].append(c)

    try:
        _JOB = (chunks, make)
        for i in range(max(1, min(parts, len(chunks)))):
            mine, theirs = ctx.Pipe()
            p = ctx.Process(target=_part_worker, args=(theirs, os.getpid()), daemon=True,
                            name=f"codeimpact-resolve-part{i}")  # fmt: skip
            p.start()
            theirs.close()
            procs[mine], ends[mine], held[mine] = p, (1 if i % 2 == 0 else -1), []
    finally:
        _JOB = None
    finished = False
    try:
        for conn in procs:
            for _ in range(1 + AHEAD):
                hand(conn)
        nxt = 0  # the chunk whose outputs go out next
        while nxt < len(chunks):
            if nxt in spill:
                outs = spill.take(nxt)
            elif not procs:  # every worker died: the rest is resolved here
                yield from _here(chunks, nxt, spill, make)
                break
            else:
                outs = None
                for conn in wait(list(procs)):
                    try:
                        raw = conn.recv_bytes()
                    except (EOFError, OSError):
                        lost.extend(held.pop(conn))
                        _stop(procs.pop(conn), conn)
                        for other in procs:  # the dead worker's chunks to the living
                            while lost and len(held[other]) <= AHEAD:
                                hand(other)
                        continue
                    head = marshal.loads(raw)
                    if head[0] == "error":
                        raise ResolveError(f"resolving: {head[1]}")
                    c = head[0]
                    held[conn].remove(c)
                    hand(conn)
                    if c == nxt:
                        outs = head[1]
                    else:
                        spill.put(c, raw)
                if outs is None:
                    continue
            for path, (blob, keys) in zip(chunks[nxt], outs):
                yield path, blob, keys
            nxt += 1
        finished = True
    finally:
        for conn, p in procs.items():
            if finished:
                with contextlib.suppress(OSError):
                    conn.send(None)
            else:
                p.kill()
            _stop(p, conn)
        spill.close()


def _here(chunks: list[list[str]], start: int, spill: _Spill,
          make: Callable[[], ResolveOne]) -> Iterator[tuple[str, bytes, bytes]]:  # fmt: skip
    one: ResolveOne | None = None
    for c in range(start, len(chunks)):
        if c in spill:
            outs = spill.take(c)
        else:
            one = one or make()
            outs = [one(p) for p in chunks[c]]
        for path, (blob, keys) in zip(chunks[c], outs):
            yield path, blob, keys


def _stop(p, conn) -> None:
    p.join(timeout=5)
    if p.is_alive():
        p.kill()
        p.join()
    conn.close()
