"""The scan: stat, read and hash the files a run indexes, reading only those whose stamp
does not vouch for them."""

from __future__ import annotations

import os
from pathlib import Path

from codeimpact.indexer.config import IndexConfig
from codeimpact.indexer.discover import SourceFile
from codeimpact.indexer.files_state import FileState
from codeimpact.indexer.lang import LANGUAGES, content_language, same_spec
from codeimpact.indexer.lang.api import count_lines
from codeimpact.indexer.reading import read_source
from codeimpact.indexer.report import FileRecord

# A file modified this close to the last scan may have changed within one mtime tick.
# (read at call time, here and by run.meta: tests shorten it)
RACY_NS = 2_000_000_000
# Source bytes the scan keeps for extraction; past this the extracting worker reads a file
# again (page cache) instead of the parent holding a large tree's source (Linux: 1.2 GB).
SCAN_KEEP_BYTES = 256 << 20


def scan(
    repo: Path,
    files: list[SourceFile],
    config: IndexConfig,
    previous: dict[str, FileState] | None,
    scanned_at_ns: int,
) -> tuple[list[FileRecord], dict[str, bytes]]:
    """Stat, read and hash the files; a file whose size and mtime match the previous run (and
    was not modified within a tick of it) is taken as unchanged without reading it.
    Returns the records and the bytes of the files that were read and can be parsed, up to
    SCAN_KEEP_BYTES (extraction reads the others again)."""
    root = str(repo)
    records: list[FileRecord] = []
    data: dict[str, bytes] = {}
    kept = 0
    for sf in files:
        # discover's stat, taken after `scanned_at_ns` as this one was: the size compared
        # below is its too (a second stat of every file was ~2,900 calls on Django)
        mtime = sf.mtime_ns
        if mtime < 0:
            try:
                mtime = os.stat(os.path.join(root, sf.path)).st_mtime_ns
            except OSError:
                mtime = 0
        old = previous.get(sf.path) if previous else None
        if (
            old is not None
            and same_spec(old.language, sf.language)
            and old.size == sf.size
            and old.mtime_ns == mtime
            and mtime < scanned_at_ns - RACY_NS
        ):
            records.append(
                FileRecord(
                    sf.path,
                    old.language,
                    old.size,
                    old.content_hash,
                    old.status,
                    old.detail,
                    old.lines,
                    old.is_test,
                    mtime,
                )  # fmt: skip
            )
            continue
        # discover's size with its stat: no fstat of the opened file (~2,900 calls on Django)
        rr = read_source(root, sf.path, config.max_file_size, sf.size if sf.mtime_ns >= 0 else -1)
        lang = content_language(sf.language, rr.data)  # a `.h` holding C++ is cpp
        rec = FileRecord(sf.path, lang, rr.size, rr.content_hash, rr.status, rr.detail)
        if old is not None and rr.status == "ok" and old.content_hash == rr.content_hash:
            # same bytes, same facts: the status extraction gave them (ok or partial) stands
            if old.status in ("ok", "partial"):
                rec.status, rec.detail = old.status, old.detail
        rec.mtime_ns = mtime
        # a rule of the path alone: a file read again (just written, or edited) keeps its
        # answer, and a run whose files are all unchanged imports no language for it
        if old is not None:
            rec.is_test = old.is_test
        else:
            rec.is_test = LANGUAGES[sf.language].is_test_path(sf.path)
        if rr.data is not None:
            rec.lines = count_lines(rr.data)
            if kept + len(rr.data) <= SCAN_KEEP_BYTES:
                data[sf.path] = rr.data
                kept += len(rr.data)
        records.append(rec)
    return records, data


def unread_records(files: list[SourceFile]) -> list[FileRecord]:
    """The records of a new index's files, none read: discover's stat (size, mtime) and the
    path's rules; each is read by the worker that parses it (indexer/extraction.py
    EarlyExtraction), which gives it the hash, lines and status a scan would have (an empty
    content hash says it is not read yet)."""
    return [FileRecord(sf.path, sf.language, sf.size, "", "ok", "", 0,
                       LANGUAGES[sf.language].is_test_path(sf.path), sf.mtime_ns)
            for sf in files]  # fmt: skip
