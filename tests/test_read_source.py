"""read_source (indexer/reading.py) reads a file with one open, fstat, read and close and gives
what open(...).read(max_size + 1) after a stat of the size gave: on this repository's files
and on each edge (at the limit, over it, empty, a stat of size 0 with content, a folder, a
missing file, a file that grows between the stat and the read); and it never makes a buffer
of max_size for a small file (the old read made a bytes of 16 MB + 1 per file)."""

from __future__ import annotations

import os
import tracemalloc
from pathlib import Path

import pytest

from codeimpact.indexer import reading
from codeimpact.indexer.reading import ReadResult, read_source

ROOT = Path(__file__).resolve().parents[1]


def _old(root: str, path: str, max_size: int) -> ReadResult:
    """The way before: a stat for the size, then open(...).read(max_size + 1)."""
    full = os.path.join(root, path)
    try:
        size = os.path.getsize(full)
        if size > max_size:
            return ReadResult(size, "", "skipped:file_too_large", f"{size} bytes > {max_size}",
                              None)  # fmt: skip
        with open(full, "rb") as fh:
            data = fh.read(max_size + 1)
    except OSError as e:
        return ReadResult(0, "", "skipped:unreadable", e.strerror or str(e), None)
    if len(data) > max_size:
        return ReadResult(len(data), "", "skipped:file_too_large",
                          f"{len(data)} bytes > {max_size}", None)  # fmt: skip
    return read_source_checks(data)


def read_source_checks(data: bytes) -> ReadResult:
    # the checks after the read are read_source's own: take them from a file of these bytes
    return ReadResult(len(data), reading.content_hash(data), "", "", data)


def _same(root: str, path: str, max_size: int) -> None:
    new, old = read_source(root, path, max_size), _old(root, path, max_size)
    if old.status == "":  # read: compare the bytes and the hash, the rest is shared code
        assert (new.size, new.content_hash) == (old.size, old.content_hash)
        assert new.data is None or new.data == old.data
    else:
        assert new == old


def test_this_repositorys_files_read_as_before():
    files = [p for p in ROOT.rglob("*") if p.is_file() and ".git" not in p.parts][:3000]
    assert len(files) > 500
    for p in files:
        _same(str(ROOT), str(p.relative_to(ROOT)), 16 << 20)


def test_each_edge(tmp_path):
    (tmp_path / "at.py").write_bytes(b"x" * 100)
    (tmp_path / "over.py").write_bytes(b"x" * 101)
    (tmp_path / "empty.py").write_bytes(b"")
    (tmp_path / "folder").mkdir()
    for name in ("at.py", "over.py", "empty.py", "folder", "missing.py"):
        _same(str(tmp_path), name, 100)
    assert read_source(str(tmp_path), "over.py", 100).detail == "101 bytes > 100"
    _same(str(tmp_path), "folder", 1 << 20)
    assert read_source(str(tmp_path), "folder", 1 << 20).detail == "Is a directory"
    assert read_source(str(tmp_path), "empty.py", 100).status == "ok"
    # a stat of size 0 and content (as /proc's files): read to the end
    status = read_source("/proc/self", "status", 1 << 20)
    assert status.status == "ok" and b"Name:" in status.data


def test_a_file_that_grows_after_its_stat(tmp_path, monkeypatch):
    (tmp_path / "g.py").write_bytes(b"a" * 50)
    real_fstat = os.fstat

    def stale_fstat(fd):  # the size before the file grew to 50 bytes
        st = real_fstat(fd)
        return os.stat_result((*st[:6], 10, *st[7:]))

    monkeypatch.setattr(reading.os, "fstat", stale_fstat)
    assert read_source(str(tmp_path), "g.py", 100).data == b"a" * 50
    over = read_source(str(tmp_path), "g.py", 30)
    assert over.status == "skipped:file_too_large" and over.size == 31


@pytest.mark.parametrize("size", [10, 5000])
def test_no_buffer_of_the_limit_for_a_small_file(tmp_path, size):
    (tmp_path / "s.py").write_bytes(b"y" * size)
    tracemalloc.start()
    try:
        read_source(str(tmp_path), "s.py", 16 << 20)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20


def test_a_size_given_spares_the_fstat_and_the_bytes_still_rule(tmp_path, monkeypatch):
    # the scan passes discover's size (its stat, just taken): no fstat of the opened file;
    # a file grown or shrunk since reads as its bytes are, one over the limit by that size
    # is too large as before
    (tmp_path / "g.py").write_bytes(b"a" * 50)
    real_fstat, seen = os.fstat, []

    def counted_fstat(fd):  # (os is everyone's: count only the calls made in read_source)
        seen.append(fd)
        return real_fstat(fd)

    def read(*args):
        monkeypatch.setattr(reading.os, "fstat", counted_fstat)
        try:
            return read_source(str(tmp_path), "g.py", *args)
        finally:
            monkeypatch.setattr(reading.os, "fstat", real_fstat)

    for stale in (10, 50, 80):
        assert read(100, stale).data == b"a" * 50
    assert read(30, 10).status == "skipped:file_too_large"
    assert read(30, 50).detail == "50 bytes > 30"
    assert seen == []
    assert read(100).data == b"a" * 50 and len(seen) == 1  # no size: the fstat says it
