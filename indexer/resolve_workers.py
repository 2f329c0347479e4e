"""Resolution of a full build spread over forked worker processes.

Resolving a file reads the whole project (every file's indexes, built once in
the parent) but writes nothing another file's resolution reads except the
memo, whose stored entries are the same in any order of lookups. So after the
project is built the parent forks; each worker resolves the chunks of files it
is handed against its copy-on-write view of the project and sends back only
the encoded outputs. The parent takes them in path order, as a serial build
would, while the workers go on.

A worker that dies leaves its chunks to the parent, which resolves them itself:
the run is slower, never different.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import queue
import signal
import threading
import traceback
from collections.abc import Callable, Iterator
from multiprocessing.connection import wait

from codeimpact.indexer.lifeline import die_with_parent

Encoded = tuple[bytes, bytes]  # (resolved blob, lookup keys blob) of one file
ResolveOne = Callable[[str], Encoded]

CHUNK_FILES = 24  # small enough to balance two workers, big enough to amortise a message
AHEAD = 2  # chunks handed to a worker before its first answer: it never waits on the parent

_JOB: tuple[list[list[str]], ResolveOne] | None = None  # set in the parent just before forking


class ResolveError(RuntimeError):
    """A resolver raised in a worker: the same bug a serial run would have raised."""


def _worker(conn, parent_pid: int) -> None:
    die_with_parent(parent_pid)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    chunks, resolve_one = _JOB
    # Answers go out from a thread. A send returns only once the parent has read most of it,
    # and the parent reads between taking earlier answers in path order: sending from here
    # kept each worker blocked for 11% of its time on Django.
    outbox: queue.SimpleQueue = queue.SimpleQueue()
    sender = threading.Thread(target=_send_all, args=(conn, outbox), daemon=True)
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


def _send_all(conn, outbox: queue.SimpleQueue) -> None:
    while (item := outbox.get()) is not None:
        try:
            conn.send(item)
        except OSError:  # the parent is gone
            return


def resolve_parallel(
    paths: list[str], resolve_one: ResolveOne, workers: int, *, help_here: bool = False
) -> Iterator[tuple[str, bytes, bytes]]:
    """(path, resolved blob, keys blob) for every path, in the order of `paths`.
    `help_here`: this process resolves chunks too while no answer is ready (beside
    `workers` workers): one process fewer copies the pages of the project it touches."""
    global _JOB
    chunks = [paths[i : i + CHUNK_FILES] for i in range(0, len(paths), CHUNK_FILES)]
    ctx = mp.get_context("fork")
    _JOB = (chunks, resolve_one)
    procs: dict[object, mp.Process] = {}
    try:
        for _ in range(max(1, min(workers, len(chunks)))):
            parent, child = ctx.Pipe()
            p = ctx.Process(target=_worker, args=(child, os.getpid()), daemon=True)
            p.start()
            child.close()
            procs[parent] = p
    finally:
        _JOB = None  # the workers have their copy; the parent keeps no reference
    owned: dict[object, list[int]] = {conn: [] for conn in procs}  # chunks a worker holds
    done: dict[int, list[Encoded]] = {}
    next_chunk = 0
    finished = False

    def hand(conn) -> None:
        nonlocal next_chunk
        if next_chunk < len(chunks):
            conn.send(next_chunk)
            owned[conn].append(next_chunk)
            next_chunk += 1

    def take(timeout: float | None) -> None:
        """Receive the answers that are ready (waiting up to `timeout` for one) and hand
        each answering worker its next chunk."""
        for conn in wait(list(procs), timeout):
            try:
                got, out = conn.recv()
            except (EOFError, OSError):
                _drop(conn, procs)
                for lost in owned.pop(conn):
                    done[lost] = [resolve_one(p) for p in chunks[lost]]
                continue
            if isinstance(out, str):
                raise ResolveError(f"resolving {chunks[got][0]}...: {out}")
            owned[conn].remove(got)
            done[got] = out
            hand(conn)

    try:
        for conn in procs:
            for _ in range(AHEAD):
                hand(conn)
        for c, files in enumerate(chunks):
            while c not in done:
                if not procs:  # every worker gone: the parent resolves the rest itself
                    done[c] = [resolve_one(p) for p in files]
                    break
                if help_here and next_chunk < len(chunks) and not wait(list(procs), 0):
                    mine, next_chunk = next_chunk, next_chunk + 1
                    done[mine] = [resolve_one(p) for p in chunks[mine]]
                    continue
                take(None)
            # answers that came while the consumer took the last chunk: a worker that ran
            # out of chunks while it waited for them to be read sat idle (12-15% of its time
            # on Django)
            if procs:
                take(0)
            for path, (blob, keys) in zip(files, done.pop(c)):
                yield path, blob, keys
        finished = True
    finally:
        # after the last chunk the workers are idle and leave when told; on an error, a
        # Ctrl-C or a consumer that stopped early they may be mid-chunk: stop them now
        for conn in list(procs):
            if finished:
                with contextlib.suppress(OSError):
                    conn.send(None)
            else:
                procs[conn].kill()
        for conn in list(procs):
            _drop(conn, procs)


def _drop(conn, procs: dict) -> None:
    p = procs.pop(conn)
    p.join(timeout=5)
    if p.is_alive():
        p.kill()
        p.join()
    conn.close()
