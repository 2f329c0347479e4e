"""Extraction in worker processes, with a per-file time limit.

tree-sitter's Python binding (0.26) can no longer cancel a parse, so a
pathological file is stopped from outside: a worker works through the files it
holds in order and answers for each, so the parent knows which file it is on
and since when; a worker still on one file after the limit is killed, the file
is recorded as `timeout`, and a fresh worker carries on with the rest.

Workers are forked and inherit the list of work, so only batches of indices
travel to them (a file the parent did not keep the bytes of, `Unread`, is read by the
worker that extracts it: a kernel tree's 1.2 GB of source is never held by the parent) (a worker holds at least BATCH_BYTES of source, so it never
waits for the parent between files) and only compact facts blobs travel back,
each over its own pipe. A worker reads the batches sent to it between files
(the parent sends one per answer), so its pipe never fills while both wait.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

from codeimpact.indexer.lang import LANGUAGES
from codeimpact.indexer.lifeline import die_with_parent
from codeimpact.indexer.reading import extract_source, read_source

if TYPE_CHECKING:
    from multiprocessing import Process


class Unread(NamedTuple):
    """A file the scan read and hashed but did not keep: the worker reads it again."""

    size: int
    content_hash: str


Item = tuple[str, str, "bytes | Unread"]  # (path, language, bytes or what the scan saw)
# what a worker read anew: (path, size, content hash) when it differs from the scan's
OnRead = Callable[[str, int, str], None]

BATCH_BYTES = 256 * 1024  # source a worker holds before it is handed more
MIN_HELD = 2  # files a worker holds, however big: the next one is there when it finishes
# The parse timeout is per this much source: a 9.5 MB amalgamation (sqlite3.c) takes seconds
# of real work, a hang in a small file is still cut at the timeout
TIMEOUT_BYTES = 1024 * 1024
MAX_HELD = 256  # files a worker holds, however small: a batch message stays small
# A worker's first message: it runs. A fresh worker's start (the fork, being scheduled on a
# busy machine) is not its first file's parse: timed from the hand-out, a 1 KB file took
# "over 0.05s" at load 6.
READY = ("ready", -1, None)

_ITEMS: list[Item] = []  # set in the parent just before forking; read by the workers
_READ = ("", 0)  # (repository root, max file size) for Unread items; set with _ITEMS


def item_size(item: Item) -> int:
    data = item[2]
    return data.size if isinstance(data, Unread) else len(data)


def extract_item(item: Item, root: str, max_size: int) -> tuple[str, object]:
    """("done", blob) or ("done", (blob, size, hash)) when an Unread file's bytes are not
    those the scan hashed (changed since: the blob is of what was parsed), or
    ("skipped", "code: detail") when the file can no longer be read."""
    path, language, data = item
    if not isinstance(data, Unread):
        return "done", extract_source(language, data)
    rr = read_source(root, path, max_size)
    if rr.data is None:
        return "skipped", f"{rr.status.partition(':')[2] or 'unreadable'}: {rr.detail}"
    blob = extract_source(language, rr.data)
    if rr.content_hash != data.content_hash:
        return "done", (blob, rr.size, rr.content_hash)
    return "done", blob


def _size_factor(sizes: list[int], queue: list[int] | None) -> float:
    """How many timeouts the item a worker is on may take: one per TIMEOUT_BYTES of it."""
    if not queue:
        return 1.0
    return max(1.0, sizes[queue[0]] / TIMEOUT_BYTES)


def _worker(conn, _wid: int, parent_pid: int) -> None:
    die_with_parent(parent_pid)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    held: deque[int] = deque()
    # asked once per file: Connection.poll builds a selector per call (~20 us, x 2,900 files)
    pending = select.poll()
    pending.register(conn.fileno(), select.POLLIN)
    conn.send(READY)  # the parent's clock for this worker's first file starts now
    while True:
        # Read every batch already sent before the next file, not only when idle. The parent
        # sends a batch per answer it gets; left unread while a long batch of small files
        # was worked through, they filled the socket and the parent blocked in send while
        # this worker blocked sending it answers: a deadlock (Django x 18 hung so). (The
        # parent's end closed also answers the poll: recv then says EOF.)
        while not held or pending.poll(0):
            try:
                batch = conn.recv()
            except EOFError:
                return
            if batch is None:
                return
            held.extend(batch)
        idx = held.popleft()
        try:
            kind, payload = extract_item(_ITEMS[idx], *_READ)
            conn.send((kind, idx, payload))
        except Exception as e:  # an extractor bug must not stop the run
            conn.send(("error", idx, f"{type(e).__name__}: {e}"))


def extract_parallel(
    items: list[Item],
    workers: int,
    timeout_s: float,
    progress: Callable[[str, int, int], None] | None,
    on_blob: Callable[[str, bytes], None],
    *,
    root: str = "",
    max_size: int = 0,
    on_read: OnRead | None = None,
) -> tuple[int, dict[str, str]]:
    """How many files were extracted, and the files that failed (path -> `timeout: ...`/
    `error: ...`, or the skip code of an Unread file no longer readable). `on_blob(path,
    blob)` takes each blob as it arrives, in the time the parent would spend waiting for the
    workers anyway; nothing here keeps it. Unread items are read under `root` (at most
    `max_size` bytes); `on_read` hears of one whose bytes changed since the scan, before its
    blob.

    Each worker has its own pipe, so killing one can never leave a lock held that the
    others need (a shared multiprocessing.Queue can)."""
    global _ITEMS, _READ
    # here, not at the top: a run that extracts nothing (a no-op) never imports it
    import multiprocessing as mp
    import selectors

    # the workers' languages imported once, here, rather than by each worker after the fork,
    # and so their parsers, compiled queries and fact engines (made at a language's first
    # extraction, ~8-30 ms of CPU each: query analysis): every worker inherits them
    languages = {item[1] for item in items}
    LANGUAGES.load(languages)
    for language in sorted(languages):
        LANGUAGES[language].extract(b"")
    ctx = mp.get_context("fork")
    # biggest first, so a large file does not finish last
    sizes = [item_size(item) for item in items]  # read per file at every hand-out: once here
    todo = sorted(range(len(items)), key=lambda i: -sizes[i])
    todo.reverse()  # pop() from the end takes the biggest first
    _ITEMS, _READ = items, (root, max_size)
    procs: dict[int, tuple[Process, object]] = {}
    # worker -> the items it holds, in the order it works on them (see BATCH_BYTES, MIN_HELD)
    held: dict[int, list[int]] = {}
    held_bytes: dict[int, int] = {}  # worker -> the source its held items add up to
    # the workers' pipes, registered while they live: one select per answer (a selector
    # made per wait, as multiprocessing's `wait` does, was ~40 us of 2,900 answers' each)
    answers = selectors.DefaultSelector()
    started: dict[int, float] = {}  # worker -> when it started its first held item
    starting: set[int] = set()  # workers not yet READY: their held items are not timed
    next_wid = 0

    def spawn() -> None:
        nonlocal next_wid
        parent, child = ctx.Pipe()
        p = ctx.Process(target=_worker, args=(child, next_wid, os.getpid()), daemon=True)
        p.start()
        child.close()
        procs[next_wid] = (p, parent)
        starting.add(next_wid)
        answers.register(parent, selectors.EVENT_READ, next_wid)
        next_wid += 1

    def feed(wid: int) -> None:
        queue = held.setdefault(wid, [])
        if not queue:
            started[wid] = time.monotonic()
        if wid not in procs:
            return
        nbytes = held_bytes.get(wid, 0)
        batch = []
        while todo and len(queue) < MAX_HELD and (len(queue) < MIN_HELD or nbytes < BATCH_BYTES):
            idx = todo.pop()
            batch.append(idx)
            queue.append(idx)
            nbytes += sizes[idx]
        held_bytes[wid] = nbytes
        if batch:
            procs[wid][1].send(batch)

    def retire(wid: int) -> int | None:
        """Stop a worker; its first held item is returned, the others go back to `todo`."""
        p, conn = procs.pop(wid)
        if p.is_alive():
            os.kill(p.pid, signal.SIGKILL)
        p.join()
        answers.unregister(conn)
        conn.close()
        queue = held.pop(wid, [])
        held_bytes.pop(wid, None)
        started.pop(wid, None)
        starting.discard(wid)
        todo.extend(reversed(queue[1:]))
        return queue[0] if queue else None

    failed: dict[str, str] = {}
    finished = 0

    def finish(idx: int) -> None:
        nonlocal finished
        finished += 1
        if progress:
            progress("extract", finished, len(items))

    for _ in range(max(1, min(workers, len(items)))):
        spawn()
    try:
        for wid in list(procs):
            feed(wid)
        while finished < len(items):
            for key, _ in answers.select(timeout=0.05):
                conn, wid = key.fileobj, key.data
                try:
                    kind, idx, payload = conn.recv()
                except (EOFError, OSError):
                    # the worker died (a crash in a grammar, say): that file fails, go on
                    code = procs[wid][0].exitcode
                    idx = retire(wid)
                    if idx is not None:
                        failed[items[idx][0]] = f"error: worker exited with {code}"
                        finish(idx)
                    spawn()
                    feed(next_wid - 1)
                    continue
                if kind == READY[0]:
                    starting.discard(wid)
                    started[wid] = time.monotonic()
                    continue
                held[wid].remove(idx)
                held_bytes[wid] -= sizes[idx]
                started[wid] = time.monotonic()  # the worker is on its next item now
                feed(wid)
                if kind == "done":
                    if isinstance(payload, tuple):  # read anew, and not what the scan saw
                        payload, size, digest = payload
                        if on_read is not None:
                            on_read(items[idx][0], size, digest)
                    on_blob(items[idx][0], payload)
                elif kind == "skipped":
                    failed[items[idx][0]] = payload
                else:
                    failed[items[idx][0]] = f"error: {payload}"
                finish(idx)
            now = time.monotonic()
            for wid, since in list(started.items()):
                if wid in starting:
                    continue
                limit = timeout_s * _size_factor(sizes, held.get(wid))
                if held.get(wid) and now - since > limit:
                    idx = retire(wid)
                    failed[items[idx][0]] = f"timeout: parse took over {limit:g}s"
                    finish(idx)
                    spawn()
                    feed(next_wid - 1)
    finally:
        for wid in list(procs):
            with contextlib.suppress(OSError):
                procs[wid][1].send(None)
        for wid in list(procs):
            p, conn = procs.pop(wid)
            p.join(timeout=5)
            if p.is_alive():
                p.kill()
                p.join()
            conn.close()
        answers.close()
        _ITEMS, _READ = [], ("", 0)
    return finished - len(failed), failed
