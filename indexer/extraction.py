"""The facts of the files a run reads: from the facts cache when a file's content was seen
before, else extracted (in worker processes when there is enough to parse), each file's
blob kept for the cache and the state."""

from __future__ import annotations

import contextlib
import marshal
import os
from collections.abc import Callable
from pathlib import Path

from codeimpact.indexer.config import RunOptions
from codeimpact.indexer.discover import SourceFile
from codeimpact.indexer.facts_cache import FactsCache, facts_key
from codeimpact.indexer.lang import content_language
from codeimpact.indexer.lang.api import FACTS_FORMAT, FileFacts, count_lines
from codeimpact.indexer.lazy_facts import LazyFacts
from codeimpact.indexer.reading import extract_source, read_source
from codeimpact.indexer.report import FileRecord, Progress
from codeimpact.indexer.workers import (
    Extraction,
    Item,
    OnRead,
    Read,
    Unread,
    extract_item,
    extract_parallel,
    item_size,
)
from codeimpact.native.facts import keep_steps

# Below this, worker start-up costs more than it saves (and no file is big enough to hang).
PARALLEL_MIN_BYTES = 256 * 1024


def extract_files(
    todo: list[Item],
    options: RunOptions,
    progress: Progress | None,
    timeout_s: float,
    on_blob: Callable[[str, bytes], None],
    *,
    root: str = "",
    max_size: int = 0,
    on_read: OnRead | None = None,
) -> tuple[int, dict[str, str]]:
    """Extract the given files, handing each facts blob to `on_blob(path, blob)` as it is
    made (nothing keeps it here); returns how many were extracted and the files that failed
    (path -> reason). Unread items are read under `root` by whoever extracts them.

    Worker processes do the work (with the per-file time limit) unless there is too
    little of it to pay for them."""
    if not _in_workers(todo, options):
        failed: dict[str, str] = {}
        for i, item in enumerate(todo):
            try:
                kind, payload = extract_item(item, root, max_size)
            except Exception as e:  # an extractor bug must not stop the run (as in a worker)
                kind, payload = "skipped", f"error: {type(e).__name__}: {e}"
            if isinstance(payload, tuple):  # what the scan's record does not say
                payload, read = payload
                if on_read is not None:
                    on_read(item[0], read)
            if kind == "skipped":
                failed[item[0]] = payload
            else:
                on_blob(item[0], payload)
            if progress and (i % 16 == 0 or i + 1 == len(todo)):
                progress("extract", i + 1, len(todo))
        return len(todo) - len(failed), failed
    return extract_parallel(todo, options.processes(), timeout_s, progress, on_blob, root=root,
                            max_size=max_size, on_read=on_read)  # fmt: skip


def _in_workers(todo: list[Item], options: RunOptions) -> bool:
    """Whether `todo` is extracted by worker processes: not when there is too little."""
    nbytes = sum(map(item_size, todo))
    return not (nbytes < PARALLEL_MIN_BYTES and (options.processes() <= 1 or len(todo) < 8))


class EarlyExtraction:
    """A new index's extraction, its workers forked as soon as discover lists enough files
    (`add`: discover's `found`, while its walk goes on): every file is read (read, hash,
    lines: the scan's work) by the worker that parses it, not first by the builder on one
    core, the other idle; and the workers parse while the walk lists the rest, not after
    it (Django: the builder's CPU up to the first fork's end 0.22-0.26 -> 0.18-0.19 s).
    The records are discover's, no file read (scanning.unread_records): each takes what
    its worker read (`facts_for`). `extraction` stays None while the files are too few for
    workers (read and parsed in the builder then, by `facts_for`). The compiled query steps
    the engines made (no facts cache yet: its runner identity comes later) are kept in
    `steps` for it."""

    def __init__(self, repo: Path, max_size: int, options: RunOptions, timeout_s: float) -> None:
        self.items: list[Item] = []
        self.steps: dict[str, bytes] = {}
        self.extraction: Extraction | None = None
        self._repo, self._max_size, self._options = repo, max_size, options
        self._timeout_s = timeout_s

    def add(self, files: list[SourceFile]) -> None:
        """Files discover listed, handed to the workers (forked once they are enough)."""
        items = [(sf.path, sf.language, Unread(sf.size, "")) for sf in files]
        self.items += items
        with keep_steps(lambda key: None, self.steps.__setitem__):
            if self.extraction is not None:
                self.extraction.add(items)
            elif _in_workers(self.items, self._options):
                self.extraction = Extraction(list(self.items), self._options.processes(),
                                             self._timeout_s, root=str(self._repo),
                                             max_size=self._max_size)  # fmt: skip

    def cancel(self) -> None:
        """Stop the workers when the run ends before `facts_for` took them (a no-op after)."""
        if self.extraction is not None:
            self.extraction.cancel()


def facts_for(
    repo: Path,
    max_size: int,
    records: list[FileRecord],
    data: dict[str, bytes],
    cache: FactsCache,
    options: RunOptions,
    progress: Progress | None,
    timeout_s: float,
    meanwhile: Callable[[], None] | None = None,
    early: EarlyExtraction | None = None,
    feed: Callable[[str, bytes], None] | None = None,
) -> tuple[LazyFacts, int]:
    """Facts of every parseable record, from the cache or by extraction; each record takes
    the status its facts report. Returns the facts and how many files were extracted.
    `meanwhile` runs once here when the first file is extracted, while the workers go on.
    A record no scan read (an empty content hash: scanning.unread_records) is extracted, never
    taken from the cache, and takes what its worker read (size, hash, lines, language, or
    why it could not be read); `early`: their extraction, started already.

    Each file's facts are decoded when first asked for (LazyFacts; `forget` drops the
    decoded form again): decoded, a file's facts take ~6x its blob. The blobs stay in the
    facts cache's pack on disk and are read back by content hash (`os.pread`: fork-safe, so
    resolution workers read them too): a kernel tree's blobs are ~760 MB that the process
    (and, copied page by page, its workers) held through resolution. A blob the cache could
    not take is kept here. A file whose bytes the scan did not keep (`data`) is read again
    by the worker that extracts it. `feed(path, blob)` hears each file's blob as its facts
    come (a resolve host decoding them meanwhile: indexer/resolve_feed.py)."""
    cached: dict[str, str] = {}  # path -> the key its blob is cached under
    kept: dict[str, bytes] = {}  # path -> its blob, when the cache does not hold it
    order: list[str] = []  # the paths in the order their facts came
    todo: list[Item] = []
    by_path = {r.path: r for r in records}

    def take(path: str, blob: bytes, key: str = "") -> None:
        rec = by_path[path]
        status = _status_of(blob)
        if status is None:  # another format: extracted again (the cache keeps the old one)
            f = facts_of_blob(rec, None, repo, max_size, cache)
            kept[path] = f.to_bytes()
            status = (f.status, f.error)
        elif cache.holds(key := key or facts_key(rec.language, rec.content_hash)):
            cached[path] = key
        else:
            kept[path] = blob
        order.append(path)
        if status[0] != "ok":
            rec.status, rec.detail = status
        if feed is not None:
            feed(path, kept.get(path, blob))

    unread: set[str] = set()  # the records no scan read that no worker read yet
    for rec in records:
        if rec.status.startswith("skipped:"):
            continue
        if not rec.content_hash:
            unread.add(rec.path)
            todo.append((rec.path, rec.language, Unread(rec.size, "")))
            continue
        blob = cache.get(facts_key(rec.language, rec.content_hash))
        if blob is not None:
            take(rec.path, blob)
        elif rec.path in data:
            todo.append((rec.path, rec.language, data[rec.path]))
        else:  # not kept by the scan (or taken as unchanged, facts not cached): read anew
            todo.append((rec.path, rec.language, Unread(rec.size, rec.content_hash)))

    def read_anew(path: str, read: Read) -> None:
        rec = by_path[path]
        rec.size, rec.content_hash, rec.lines, rec.language = read
        unread.discard(path)

    def extracted(path: str, blob: bytes) -> None:
        nonlocal meanwhile
        rec = by_path[path]
        key = facts_key(rec.language, rec.content_hash)
        cache.put(key, blob)
        take(path, blob, key)
        if meanwhile is not None:
            job, meanwhile = meanwhile, None
            job()

    # the fact engines made here take their compiled queries from the cache (and leave them
    # there): an edit of one file compiled Python's query for one parse (native/facts.py)
    if early is not None and early.extraction is not None:
        if sorted(early.items) != todo:  # (the records it was started for are these: never)
            raise ValueError("the early extraction was started for other files")
        for key, steps in early.steps.items():  # (compiled with no cache to take them from)
            cache.put(key, steps)
        cache.settle()
        n, failed = early.extraction.run(progress, extracted, read_anew)
    else:
        with keep_steps(cache.get, _own(cache)):
            n, failed = extract_files(todo, options, progress, timeout_s, extracted,
                                      root=str(repo), max_size=max_size, on_read=read_anew)  # fmt: skip
    for path, why in failed.items():
        code, _, detail = why.partition(": ")
        # recorded like an unreadable file: kept in the File table, no symbols
        by_path[path].status = f"skipped:{code}"
        by_path[path].detail = detail
    for path in unread:  # its worker was killed on it (timeout) or died: read here
        _scanned(by_path[path], repo, max_size)
    cache.settle()  # nothing left in the writer's buffer: a forked reader never writes

    def load(path: str) -> FileFacts:
        blob = kept.get(path)
        if blob is None:
            blob = cache.get(cached[path])  # None when damaged since: extracted again
        return facts_of_blob(by_path[path], blob, repo, max_size, cache)

    return LazyFacts(order, load), n


def _scanned(rec: FileRecord, repo: Path, max_size: int) -> None:
    """What a scan records of a file (its size, hash, lines, language by content) set on a
    record no scan read and no worker answered for; its status (why it failed) stays."""
    rr = read_source(str(repo), rec.path, max_size, rec.size)
    rec.size, rec.content_hash = rr.size, rr.content_hash
    if rr.data is not None:
        rec.lines = count_lines(rr.data)
        rec.language = content_language(rec.language, rr.data)


def _own(cache: FactsCache) -> Callable[[str, bytes], None]:
    """`cache.put` in this process only (a forked worker that made an engine must not write
    the cache's pack: only the run's process does, under the index lock), settled at once:
    the extraction workers are forked right after the engines are made, and a child holding
    the buffered bytes would write them a second time (FactsCache.settle)."""
    pid = os.getpid()

    def own(key: str, blob: bytes) -> None:
        if os.getpid() == pid:
            cache.put(key, blob)
            cache.settle()

    return own


# How marshal (version 4) starts a facts blob of FileFacts.to_bytes: a 13-tuple, the format
# number, then the language and status as short ASCII strings (type codes with or without
# the reference flag, 0x80).
_TUPLE13 = (b")\r", b"\xa9\r")
_INT, _SHORT_ASCII = frozenset(b"i\xe9"), frozenset(b"zZ\xfa\xda")
_FORMAT_BYTES = FACTS_FORMAT.to_bytes(4, "little", signed=True)
# the first 7 bytes, up to the language, of a blob of this format
_HEADS = frozenset(t + bytes([i]) + _FORMAT_BYTES for t in _TUPLE13 for i in _INT)
_OK_STATUS = frozenset((b"z\x02ok", b"\xfa\x02ok", b"Z\x02ok", b"\xda\x02ok"))
_OK = ("ok", "")


def _status_of(blob: bytes) -> tuple[str, str] | None:
    """(status, error) of a facts blob; None for one of another format. An "ok" blob (the
    error is then empty) is told by its first bytes: decoding every blob whole to read its
    status cost the builder ~0.1 s of CPU on Django."""
    if blob[:7] in _HEADS and len(blob) > 8 and blob[7] in _SHORT_ASCII:  # the language
        at = 9 + blob[8]
        if blob[at : at + 4] in _OK_STATUS:
            return _OK
    with contextlib.suppress(ValueError, EOFError, TypeError, IndexError):
        t = marshal.loads(blob)
        if t[0] == FACTS_FORMAT:
            return t[2], t[11]
    return None


def facts_from_source(root: str, path: str, language: str, max_size: int) -> FileFacts:
    """The facts of a file extracted from its bytes now (none when it cannot be read)."""
    return FileFacts.from_bytes(extract_source(language, read_source(root, path, max_size).data
                                               or b""))  # fmt: skip


def facts_of_blob(
    rec: FileRecord, blob: bytes | None, repo: Path, max_size: int, cache: FactsCache
) -> FileFacts:
    """The facts in a blob; a missing blob or one of another format is extracted again from
    the file (and cached when the file still has the content the run recorded)."""
    if blob is not None:
        with contextlib.suppress(ValueError, EOFError, TypeError, IndexError):
            return FileFacts.from_bytes(blob)
    rr = read_source(str(repo), rec.path, max_size)
    blob = extract_source(rec.language, rr.data or b"")
    if rr.content_hash == rec.content_hash:
        cache.put(facts_key(rec.language, rec.content_hash), blob)
    return FileFacts.from_bytes(blob)


# ---------------------------------------------------------------------- resolving
