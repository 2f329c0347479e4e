"""A generation is durable whole before CURRENT names it.

Its files are fsynced together when it is published (graph/layout.py `_sync_tree`), not
one by one as they are written: the order that matters is every file and folder of the
generation, then CURRENT. What only saves time (the verified stamp) is written without
fsync, and not at all when it has nothing new.
"""

from __future__ import annotations

import os
import threading

import pytest

from codeimpact.graph import layout


@pytest.fixture
def fsyncs(monkeypatch):
    """Every fsync this process makes, in order: the path of the file or folder."""
    real = os.fsync
    log: list[str] = []
    lock = threading.Lock()

    def record(fd: int) -> None:
        real(fd)
        with lock:
            log.append(os.readlink(f"/proc/self/fd/{fd}"))

    monkeypatch.setattr(os, "fsync", record)
    return log


def _current_written(log: list[str], idx) -> int:
    return next(i for i, p in enumerate(log) if os.path.basename(p).startswith("CURRENT.tmp"))


@pytest.mark.parametrize("edit", [False, True])
def test_every_file_of_a_generation_is_synced_before_current_names_it(
    make_repo, index_repo, fsyncs, edit
):
    files = {f"pkg/m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(6)}
    repo = make_repo({**files, "pkg/a.py": "def f():\n    return 1\n"})
    if edit:
        index_repo(repo)
        (repo / "pkg/a.py").write_text("def f():\n    return 2\n\n\ndef g():\n    return f()\n")
        fsyncs.clear()
    report = index_repo(repo)
    assert report.mode == ("incremental" if edit else "full")
    idx = repo / ".codeimpact"
    gen = layout.read_current(idx).path
    before = set(fsyncs[: _current_written(fsyncs, idx)])
    written = {os.path.join(root, n) for root, _, names in os.walk(gen) for n in names}
    written -= {str(gen / "verified.json")}  # written after publishing: a cache
    folders = {root for root, _, _ in os.walk(gen)}
    assert written and written <= before, (sorted(written - before), fsyncs)
    assert folders <= before
    assert not layout._UNSYNCED  # nothing left to sync later


def test_paths_of_a_generation_being_written_wait_for_its_publish(tmp_path):
    idx = tmp_path / ".codeimpact"
    idx.mkdir()
    gen = layout.next_generation(idx)
    try:
        assert layout._deferred(gen.path / "state-files.bin")
        assert layout._deferred(gen.path / "csr" / "meta.json")
        assert not layout._deferred(idx / "CURRENT")
        assert not layout._deferred(str(gen.path) + "-other/x")
    finally:
        layout.discard(gen)
    assert not layout._deferred(gen.path / "state-files.bin")


def test_a_noop_writes_no_stamp(make_repo, index_repo):
    repo = make_repo({"pkg/a.py": "def f():\n    return 1\n"})
    index_repo(repo)
    stamp = layout.read_current(repo / ".codeimpact").path / "verified.json"
    index_repo(repo)  # the first no-op may hash what the build did not stamp
    before = os.stat(stamp)
    assert index_repo(repo).mode == "unchanged"
    after = os.stat(stamp)
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
