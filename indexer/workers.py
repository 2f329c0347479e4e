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
import marshal
import os
import select
import signal
import struct
import time
from bisect import insort
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

from codeimpact.indexer.lang import LANGUAGES, content_language
from codeimpact.indexer.lang.api import count_lines
from codeimpact.indexer.lifeline import die_with_parent
from codeimpact.indexer.reading import extract_source, read_source
from codeimpact.indexer.sink_frames import frame_at, write_frame

if TYPE_CHECKING:
    from multiprocessing import Process


class Unread(NamedTuple):
    """A file the worker reads: one the scan read and hashed but did not keep, or (an empty
    `content_hash`) one no scan read, a new index's (indexer/pipeline.py): `size` is then
    discover's stat and the worker's read is the scan's."""

    size: int
    content_hash: str


class Read(NamedTuple):
    """What a worker's read of an Unread file saw when the scan's record does not say it (the
    bytes changed since the scan, or no scan read them): the record's fields it sets."""

    size: int
    content_hash: str  # "" when the file could not be read (reading.read_source)
    lines: int
    language: str  # by the bytes too: a `.h` holding C++ is cpp (lang.content_language)


Item = tuple[str, str, "bytes | Unread"]  # (path, language, bytes or what the scan saw)
# what a worker read of an Unread file when the scan's record does not say it: (path, read)
OnRead = Callable[[str, Read], None]

BATCH_BYTES = 256 * 1024  # source a worker holds before it is handed more
MIN_HELD = 2  # files a worker holds, however big: the next one is there when it finishes
# The parse timeout is per this much source: a 9.5 MB amalgamation (sqlite3.c) takes seconds
# of real work, a hang in a small file is still cut at the timeout
TIMEOUT_BYTES = 1024 * 1024
MAX_HELD = 256  # files a worker holds, however small: a batch message stays small
# A worker is handed more once what it holds is below this share of what it may hold: a
# batch of several files then, not one per answer (a message each way, ~10 us each side).
REFILL_AT = 0.5
# What a file costs a worker beyond its bytes, counted as bytes of source (its answer, the
# parse's set-up): handed out by bytes alone, the smallest files, which come last (biggest
# first), went ~200 at a time (Django's empty `__init__.py`s), and one worker parsed them
# for ~45 ms while the other, done, idled.
FILE_BYTES = 2048
# A worker's first message: it runs. A fresh worker's start (the fork, being scheduled on a
# busy machine) is not its first file's parse: timed from the hand-out, a 1 KB file took
# "over 0.05s" at load 6.
READY = ("ready", -1, None)

# An answer's frame starts with its form, then the item's index (4 bytes): a facts blob; a
# facts blob after what the worker read (a Read, marshalled, after its length); READY;
# anything else pickled (a skip, a failure). See `_answer`.
_BLOB, _READ_BLOB, _PICKLED, _READY = b"\1", b"\2", b"\0", b"\3"
_FORM_INDEX, _READ_SIZE = struct.Struct("<Bi"), struct.Struct("<I")


def _answer(conn, kind: str, idx: int, payload: object) -> None:
    """A worker's answer, read by `_Inbox.read`. A facts blob (the answer for nearly every
    file, with what was read of a file no scan read) goes as a frame written from its own
    bytes: pickled, as Connection.send did it, it was copied into the pickler's buffer, and
    the pickle read back was copied again (fresh buffers, first-touch faults, on both sides
    for a large file)."""
    at = idx.to_bytes(4, "little", signed=True)
    if kind == "done" and type(payload) is bytes:
        parts = [_BLOB + at, payload]
    elif kind == "done" and type(payload) is tuple and type(payload[0]) is bytes:
        read = marshal.dumps(tuple(payload[1]))
        parts = [_READ_BLOB + at + len(read).to_bytes(4, "little") + read, payload[0]]
    elif kind == READY[0]:
        parts = [_READY + at]
    else:
        # (imported here: only a skip or a failure needs it, and an edit's start stays
        # without it: tests/test_startup.py)
        import pickle

        parts = [_PICKLED + at, pickle.dumps((kind, payload), protocol=5)]
    write_frame(conn.fileno(), parts)


class _Inbox:
    """A worker's answers as its pipe brings them: each read takes all the pipe holds into a
    buffer kept for this worker, and every answer whole in it is taken at once. Read one at
    a time (a 4-byte size, then the payload: two system calls per answer, and a select
    between answers that came together), the 2,930 answers of Django took ~1,100 bytecodes
    of this process each, while both cores parse."""

    __slots__ = ("buf", "start", "end")

    def __init__(self) -> None:
        self.buf = bytearray(_INBOX_BYTES)
        self.start = self.end = 0  # the bytes read and not yet taken

    def read(self, fd: int) -> list[tuple[str, int, object]]:
        """(kind, index, payload) of every answer whole after one read of `fd` (none: the
        rest of one is still on its way); EOFError when the worker ended."""
        buf, start, end = self.buf, self.start, self.end
        if start == end:
            start = end = 0
            if len(buf) > _INBOX_KEPT:  # (a large answer's room, given back)
                buf = self.buf = bytearray(_INBOX_BYTES)
        head, n = frame_at(buf, start, end)  # (0, 0: its size not all read yet)
        whole = head + n
        if start and (len(buf) - end < _INBOX_ROOM or start + whole > len(buf)):
            buf[: end - start] = buf[start:end]  # (the start of an answer: moved to the front)
            start, end = 0, end - start
        if whole > len(buf):
            buf.extend(bytes(whole - len(buf)))
        with memoryview(buf) as view:
            got = os.readv(fd, [view[end:]])
        if not got:
            raise EOFError
        end += got
        answers = []
        with memoryview(buf) as view:
            while True:
                head, n = frame_at(buf, start, end)
                if not head or start + head + n > end:
                    break
                start += head
                answers.append(_answer_of(view[start : start + n]))
                start += n
        self.start, self.end = start, end
        return answers


_WAIT_MS = 50  # the longest wait for an answer, and how often the workers' clocks are read
# Once a wakeup took answers, the next are read _PACE_S later while every worker holds work for
# longer (_PACE_HELD bytes of source, ~10 ms of parsing): one wakeup then takes the answers of
# ~3 ms. Each wakeup cost ~1,100 bytecodes (the inbox read, the worker handed more, the poll)
# beside its answers' own, ~2,000 times on Django while both cores parse; ~600 now.
_PACE_S = 0.003
_PACE_HELD = 64 * 1024
_INBOX_BYTES = 256 * 1024  # a worker's inbox (grown for a larger answer, then given back)
_INBOX_KEPT = 4 << 20
_INBOX_ROOM = 64 * 1024  # free room under which an answer begun is moved to the front


def _answer_of(view: memoryview) -> tuple[str, int, object]:
    """(kind, index, payload) of one answer's payload (`_answer` wrote it)."""
    form, idx = _FORM_INDEX.unpack_from(view)
    if form == _BLOB[0]:
        return "done", idx, bytes(view[5:])
    if form == _READ_BLOB[0]:
        end = 9 + _READ_SIZE.unpack_from(view, 5)[0]
        return "done", idx, (bytes(view[end:]), Read(*marshal.loads(view[9:end])))
    if form == _READY[0]:
        return READY
    import pickle

    kind, payload = pickle.loads(view[5:])
    return kind, idx, payload


_ITEMS: list[Item] = []  # set in the parent just before forking; read by the workers
_READ = ("", 0)  # (repository root, max file size) for Unread items; set with _ITEMS


def item_size(item: Item) -> int:
    data = item[2]
    return data.size if isinstance(data, Unread) else len(data)


def extract_item(item: Item, root: str, max_size: int) -> tuple[str, object]:
    """("done", blob), or ("done", (blob, Read)) when an Unread file's bytes are not those the
    scan hashed (changed since: the blob is of what was parsed) or no scan read it;
    ("skipped", "code: detail") when the file can no longer be read, ("skipped", ("code:
    detail", Read)) when no scan read it (its size and hash are the record's, as a scan's)."""
    path, language, data = item
    if not isinstance(data, Unread):
        return "done", extract_source(language, data)
    first = not data.content_hash
    # (discover's stat spares the fstat, as the scan's read: reading.read_source)
    rr = read_source(root, path, max_size, data.size if first else -1)
    if rr.data is None:
        why = f"{rr.status.partition(':')[2] or 'unreadable'}: {rr.detail}"
        return "skipped", ((why, Read(rr.size, rr.content_hash, 0, language)) if first else why)
    if first:
        language = content_language(language, rr.data)
    blob = extract_source(language, rr.data)
    if first or rr.content_hash != data.content_hash:
        return "done", (blob, Read(rr.size, rr.content_hash, count_lines(rr.data), language))
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
    _answer(conn, *READY)  # the parent's clock for this worker's first file starts now
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
        entry = held.popleft()
        # an index into the items inherited at the fork, or (index, item) of one added since
        idx, item = (entry, _ITEMS[entry]) if isinstance(entry, int) else entry
        try:
            kind, payload = extract_item(item, *_READ)
            _answer(conn, kind, idx, payload)
        except Exception as e:  # an extractor bug must not stop the run
            _answer(conn, "error", idx, f"{type(e).__name__}: {e}")


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
    `max_size` bytes); `on_read` hears what a worker read when the scan's record does not
    say it (`Read`), before the file's blob."""
    pool = Extraction(items, workers, timeout_s, root=root, max_size=max_size)
    return pool.run(progress, on_blob, on_read)


class Extraction:
    """`items` extracted by `workers` processes forked now (see `extract_parallel`); `run`
    takes their answers, `cancel` stops them unasked. Started before its answers are
    wanted (a new index's build forks them as soon as discover listed the files:
    indexer/pipeline.py), the workers parse while this process goes on.

    Each worker has its own pipe, so killing one can never leave a lock held that the
    others need (a shared multiprocessing.Queue can)."""

    def __init__(self, items: list[Item], workers: int, timeout_s: float, *, root: str = "",
                 max_size: int = 0) -> None:  # fmt: skip
        global _ITEMS, _READ
        # here, not at the top: a run that extracts nothing (a no-op) never imports it
        import multiprocessing as mp

        # the workers' languages imported once, here, rather than by each worker after the
        # fork, and so their parsers, compiled queries and fact engines (made at a
        # language's first extraction, ~8-30 ms of CPU each: query analysis): every worker
        # inherits them
        self._languages = languages = {item[1] for item in items}
        LANGUAGES.load(languages)
        for language in sorted(languages):
            LANGUAGES[language].extract(b"")
        self._ctx = mp.get_context("fork")
        self._items, self._timeout_s = items, timeout_s
        # biggest first, so a large file does not finish last
        self._sizes = sizes = [item_size(item) for item in items]  # (read per hand-out: once)
        self._todo = sorted(range(len(items)), key=lambda i: -sizes[i])
        self._todo.reverse()  # pop() from the end takes the biggest first
        self._left = sum(sizes) + FILE_BYTES * len(items)  # what `todo` costs (FILE_BYTES)
        _ITEMS, _READ = items, (root, max_size)
        self._procs: dict[int, tuple[Process, object]] = {}
        # worker -> the items it holds, in the order it works on them (BATCH_BYTES, MIN_HELD)
        self._held: dict[int, list[int]] = {}
        self._held_bytes: dict[int, int] = {}  # worker -> what its held items cost
        # the workers' pipes, registered while they live: one poll per wait (a selector made
        # per wait, as multiprocessing's `wait` does, was ~40 us of 2,900 answers' each), and
        # each worker's answers read into its inbox (`_Inbox`), by pipe
        self._answers = select.poll()
        self._inboxes: dict[int, tuple[int, _Inbox]] = {}  # pipe -> (worker, its inbox)
        self._started: dict[int, float] = {}  # worker -> when it started its first held item
        self._starting: set[int] = set()  # workers not yet READY: their held items untimed
        self._known: dict[int, int] = {}  # worker -> how many items it inherited at its fork
        self._answered: list[tuple[int, str, int, object]] = []  # (`add`'s: for `run`)
        self._next_wid = 0
        self._done = False
        try:
            for _ in range(max(1, min(workers, len(items)))):
                self._spawn()
            for wid in list(self._procs):
                self._feed(wid)
        except BaseException:
            self.cancel()
            raise

    def _spawn(self) -> None:
        parent, child = self._ctx.Pipe()
        wid = self._next_wid
        p = self._ctx.Process(target=_worker, args=(child, wid, os.getpid()), daemon=True)
        p.start()
        child.close()
        self._procs[wid] = (p, parent)
        self._known[wid] = len(self._items)
        self._starting.add(wid)
        self._answers.register(parent.fileno(), select.POLLIN)
        self._inboxes[parent.fileno()] = (wid, _Inbox())
        self._next_wid += 1

    def _feed(self, wid: int) -> None:
        queue = self._held.setdefault(wid, [])
        if not queue:
            self._started[wid] = time.monotonic()
        if wid not in self._procs:
            return
        todo, sizes = self._todo, self._sizes
        nbytes = self._held_bytes.get(wid, 0)
        # at most its share of what is left: near the end each worker holds little, and the
        # workers end together
        most = min(BATCH_BYTES, self._left // len(self._procs))
        if len(queue) >= MIN_HELD and nbytes >= most * REFILL_AT:
            return  # (held enough: topped up later, by a batch of several files)
        batch = []
        while todo and len(queue) < MAX_HELD and (len(queue) < MIN_HELD or nbytes < most):
            idx = todo.pop()
            batch.append(idx)
            queue.append(idx)
            cost = sizes[idx] + FILE_BYTES
            nbytes += cost
            self._left -= cost
        self._held_bytes[wid] = nbytes
        if batch:
            known, items = self._known[wid], self._items
            # (a worker gone, its pipe broken: `run` sees its end and hands its items on)
            with contextlib.suppress(OSError):
                self._procs[wid][1].send([i if i < known else (i, items[i]) for i in batch])

    def add(self, items: list[Item]) -> None:
        """More items, listed while the workers run (a new index's discover: indexer/
        extraction.py EarlyExtraction), handed out as the others (biggest first); the answers
        that came meanwhile are taken (their workers handed more) and kept for `run`."""
        if self._done or not items:
            return
        self._take_answers()
        # a language first seen now made here too, as those of the first items were: its
        # compiled query steps go to the facts cache (the workers forked already make
        # their own), and a worker forked later inherits it
        for language in sorted({item[1] for item in items} - self._languages):
            LANGUAGES[language].extract(b"")
            self._languages.add(language)
        base = len(self._items)
        self._items.extend(items)  # (`_ITEMS`: a worker forked from now on inherits them)
        sizes = self._sizes
        sizes.extend(item_size(item) for item in items)
        for i in range(base, len(self._items)):  # (`todo` by size: the biggest popped first)
            insort(self._todo, i, key=sizes.__getitem__)
        self._left += sum(sizes[base:]) + FILE_BYTES * len(items)
        for wid in list(self._procs):
            self._feed(wid)

    def _take_answers(self) -> None:
        """The answers the workers sent so far, without waiting: kept for `run` (a worker
        that died is left to it)."""
        for fd, _ in self._answers.poll(0):
            wid, inbox = self._inboxes[fd]
            try:
                answers = inbox.read(fd)
            except (EOFError, OSError):
                continue
            if self._took(wid, answers):
                self._answered.extend((wid, *answer) for answer in answers if answer != READY)

    def _took(self, wid: int, answers: list[tuple[str, int, object]]) -> bool:
        """Worker `wid`'s `answers` taken off what it holds (a READY: it runs), the worker
        handed more; whether any was for an item."""
        self._started[wid] = time.monotonic()  # (the worker is on its next item now)
        held, held_bytes, sizes = self._held[wid], self._held_bytes, self._sizes
        items = False
        for kind, idx, _ in answers:
            if kind == READY[0]:
                self._starting.discard(wid)
                continue
            held.remove(idx)
            held_bytes[wid] -= sizes[idx] + FILE_BYTES
            items = True
        if items:
            self._feed(wid)
        return items

    def _may_wait(self) -> bool:
        """Whether the next answers may be read _PACE_S from now: items are left to hand out,
        every worker holds more work than that (none runs dry) and no answer is read in part
        (a large one whose worker waits for room in its pipe)."""
        if not self._todo:
            return False
        for _wid, inbox in self._inboxes.values():
            if inbox.start != inbox.end:
                return False
        return min(self._held_bytes.values(), default=0) >= _PACE_HELD

    def _retire(self, wid: int) -> int | None:
        """Stop a worker; its first held item is returned, the others go back to `todo`."""
        p, conn = self._procs.pop(wid)
        if p.is_alive():
            os.kill(p.pid, signal.SIGKILL)
        p.join()
        self._answers.unregister(conn.fileno())
        del self._inboxes[conn.fileno()]
        conn.close()
        queue = self._held.pop(wid, [])
        self._held_bytes.pop(wid, None)
        self._started.pop(wid, None)
        self._starting.discard(wid)
        self._todo.extend(reversed(queue[1:]))
        self._left += sum(self._sizes[i] + FILE_BYTES for i in queue[1:])
        return queue[0] if queue else None

    def _replace(self) -> None:
        self._spawn()
        self._feed(self._next_wid - 1)

    def run(self, progress: Callable[[str, int, int], None] | None,
            on_blob: Callable[[str, bytes], None],
            on_read: OnRead | None = None) -> tuple[int, dict[str, str]]:  # fmt: skip
        """`extract_parallel`'s answer, the workers ended (once: a second call raises)."""
        if self._done:
            raise RuntimeError("this extraction has ended")
        items, sizes = self._items, self._sizes
        procs, held, started, starting = self._procs, self._held, self._started, self._starting
        failed: dict[str, str] = {}
        finished = 0

        def finish(idx: int) -> None:
            nonlocal finished
            finished += 1
            if progress:
                progress("extract", finished, len(items))

        def answered(kind: str, idx: int, payload: object) -> None:
            path = items[idx][0]
            if kind != "done" and kind != "skipped":
                failed[path] = f"error: {payload}"
            else:
                if type(payload) is tuple:  # what the scan's record does not say
                    payload, read = payload
                    if on_read is not None:
                        on_read(path, read)
                if kind == "done":
                    on_blob(path, payload)
                else:
                    failed[path] = payload
            finish(idx)

        try:
            kept, self._answered = self._answered, []
            for _wid, kind, idx, payload in kept:  # (taken while items were added)
                answered(kind, idx, payload)
            scan_at = 0.0  # when the workers' clocks are next looked at
            while finished < len(items):
                ready = self._answers.poll(_WAIT_MS)
                for fd, _ in ready:
                    wid, inbox = self._inboxes[fd]
                    try:
                        answers = inbox.read(fd)
                    except (EOFError, OSError):
                        # the worker died (a crash in a grammar, say): that file fails, go on
                        code = procs[wid][0].exitcode
                        idx = self._retire(wid)
                        if idx is not None:
                            failed[items[idx][0]] = f"error: worker exited with {code}"
                            finish(idx)
                        self._replace()
                        break  # (polled again: a new worker may have the same pipe number)
                    self._took(wid, answers)
                    for kind, idx, payload in answers:
                        if kind != READY[0]:
                            answered(kind, idx, payload)
                if ready and self._may_wait():
                    time.sleep(_PACE_S)
                now = time.monotonic()
                if now < scan_at:
                    continue
                scan_at = now + _WAIT_MS / 1000
                for wid, since in list(started.items()):
                    if wid in starting:
                        continue
                    limit = self._timeout_s * _size_factor(sizes, held.get(wid))
                    if held.get(wid) and now - since > limit:
                        idx = self._retire(wid)
                        failed[items[idx][0]] = f"timeout: parse took over {limit:g}s"
                        finish(idx)
                        self._replace()
        finally:
            self._end(kill=False)
        return finished - len(failed), failed

    def cancel(self) -> None:
        """Stop the workers (a no-op once `run` returned)."""
        self._end(kill=True)

    def _end(self, kill: bool) -> None:
        global _ITEMS, _READ
        if self._done:
            return
        self._done = True
        procs = self._procs
        if not kill:
            for wid in list(procs):
                with contextlib.suppress(OSError):
                    procs[wid][1].send(None)
        for wid in list(procs):
            p, conn = procs.pop(wid)
            if kill and p.is_alive():
                p.kill()
            p.join(timeout=5)
            if p.is_alive():
                p.kill()
                p.join()
            conn.close()
        self._inboxes.clear()
        _ITEMS, _READ = [], ("", 0)
