"""The facts of the files a run reads: from the facts cache when a file's content was seen
before, else extracted (in worker processes when there is enough to parse), each file's
blob kept for the cache and the state."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path

from codeimpact.indexer.config import RunOptions
from codeimpact.indexer.facts_cache import FactsCache
from codeimpact.indexer.lang.api import FileFacts
from codeimpact.indexer.reading import extract_many, extract_source, read_source
from codeimpact.indexer.report import FileRecord, Progress
from codeimpact.indexer.workers import extract_parallel

# Below this, worker start-up costs more than it saves (and no file is big enough to hang).
PARALLEL_MIN_BYTES = 256 * 1024


def extract_files(
    todo: list[tuple[str, str, bytes]],
    options: RunOptions,
    progress: Progress | None,
    timeout_s: float,
    on_blob: Callable[[str, bytes], None],
) -> tuple[int, dict[str, str]]:
    """Extract the given files, handing each facts blob to `on_blob(path, blob)` as it is
    made (nothing keeps it here); returns how many were extracted and the files that failed
    (path -> reason).

    Worker processes do the work (with the per-file time limit) unless there is too
    little of it to pay for them."""
    nbytes = sum(len(d) for _, _, d in todo)
    workers = options.processes()
    if nbytes < PARALLEL_MIN_BYTES and (workers <= 1 or len(todo) < 8):
        for i, item in enumerate(todo):
            for path, blob in extract_many([item]):
                on_blob(path, blob)
            if progress and (i % 16 == 0 or i + 1 == len(todo)):
                progress("extract", i + 1, len(todo))
        return len(todo), {}
    return extract_parallel(todo, workers, timeout_s, progress, on_blob)


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
) -> tuple[dict[str, FileFacts], int]:
    """Facts of every parseable record, from the cache or by extraction; each record takes
    the status its facts report. Returns the facts and how many files were extracted.
    `meanwhile` runs once here when the first file is extracted, while the workers go on.

    A blob is decoded as it arrives, while the workers go on, and not kept: no file's facts
    are held twice."""
    facts: dict[str, FileFacts] = {}
    todo: list[tuple[str, str, bytes]] = []
    by_path = {r.path: r for r in records}

    def take(path: str, blob: bytes) -> None:
        rec = by_path[path]
        f = facts[path] = facts_of_blob(rec, blob, repo, max_size, cache)
        if f.status != "ok":
            rec.status, rec.detail = f.status, f.error

    for rec in records:
        if rec.status.startswith("skipped:"):
            continue
        blob = cache.get(rec.content_hash)
        if blob is not None:
            take(rec.path, blob)
        elif rec.path in data:
            todo.append((rec.path, rec.language, data[rec.path]))
        else:  # taken as unchanged by the scan, but its facts are not cached: read it now
            rr = read_source(str(repo), rec.path, max_size)
            rec.size, rec.content_hash, rec.status, rec.detail = (
                rr.size, rr.content_hash, rr.status, rr.detail
            )  # fmt: skip
            if rr.data is not None:
                todo.append((rec.path, rec.language, rr.data))

    def extracted(path: str, blob: bytes) -> None:
        nonlocal meanwhile
        cache.put(by_path[path].content_hash, blob)
        take(path, blob)
        if meanwhile is not None:
            job, meanwhile = meanwhile, None
            job()

    n, failed = extract_files(todo, options, progress, timeout_s, extracted)
    for path, why in failed.items():
        code, _, detail = why.partition(": ")
        # recorded like an unreadable file: kept in the File table, no symbols
        by_path[path].status = f"skipped:{code}"
        by_path[path].detail = detail
    return facts, n


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
        cache.put(rec.content_hash, blob)
    return FileFacts.from_bytes(blob)


# ---------------------------------------------------------------------- resolving
