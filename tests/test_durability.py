"""A generation is durable whole before CURRENT names it.

The fsyncs of its files and folders are made together when it is published (graph/layout.py
`_sync_paths`), not one by one as they are written: the order that matters is every one of
them, then CURRENT. Batching drops none and adds none (a file no writer synced before, such
as the spare's database, is not forced to disk by the batch). What only saves time (the verified stamp) is written without
fsync, and not at all when it has nothing new.
"""

from __future__ import annotations

import os
import re
import threading
import time

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


def _current_written(log: list[str]) -> int:
    return next(i for i, p in enumerate(log) if os.path.basename(p).startswith("CURRENT.tmp"))


def _relative(log: list[str], repo) -> set[str]:
    """The paths of `log` inside `repo`, relative, under their final names (a file synced
    before its rename has its temporary name), without their random tokens (CSR arrays,
    shared tables)."""
    root = str(repo) + os.sep
    names = (re.sub(r"\.tmp\d*$", "", p[len(root) :]) for p in log if p.startswith(root))
    return {re.sub(r"-[0-9a-f]{8}(?=\.\w+$)", "", p) for p in names}


_FILES = {f"pkg/m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(6)}
_EDITS = [
    {"pkg/a.py": "def f():\n    return 2\n\n\ndef g():\n    return f()\n"},
    {"pkg/a.py": "def f():\n    return 3\n\n\ndef h():\n    return f()\n"},  # takes the spare
]


def _synced_runs(make_repo, index_repo, fsyncs, runs: int) -> tuple:
    """(repo, the fsyncs of its `runs`-th analyze: a full build, then the edits in order)."""
    repo = make_repo({**_FILES, "pkg/a.py": "def f():\n    return 1\n"})
    for i in range(runs):
        if i:
            (repo / "pkg/a.py").write_text(_EDITS[i - 1]["pkg/a.py"])
        fsyncs.clear()
        report = index_repo(repo)
        assert report.mode == ("incremental" if i else "full")
    return repo, list(fsyncs)


class _Ignoring(dict):
    def __setitem__(self, key, value) -> None:
        pass


@pytest.mark.parametrize("runs", [1, 2, 3])
def test_a_generation_is_synced_as_without_batching_and_before_current_names_it(
    make_repo, index_repo, fsyncs, monkeypatch, runs
):
    repo, batched = _synced_runs(make_repo, index_repo, fsyncs, runs)
    gen = layout.read_current(repo / ".codeimpact").path
    assert not layout._UNSYNCED  # nothing left to sync later
    in_gen = [p for p in batched if p.startswith(str(gen) + os.sep) or p == str(gen)]
    assert in_gen and str(gen) in in_gen  # its files and its folder
    first_after = _current_written(batched)
    assert not [p for p in batched[first_after:] if p in in_gen]
    with monkeypatch.context() as m:  # no generation deferred: each fsync made where asked
        m.setattr(layout, "_UNSYNCED", _Ignoring())
        plain_repo, plain = _synced_runs(make_repo, index_repo, fsyncs, runs)
    assert _relative(batched, repo) == _relative(plain, plain_repo)


def test_an_edits_side_files_are_synced_while_its_writer_commits(
    make_repo, index_repo, fsyncs, monkeypatch
):
    # layout.sync_ahead: once its side files are written, the edit starts their fsyncs on
    # threads and then waits for its database writer; publish waits for those threads (and
    # syncs what came after) before CURRENT names the generation
    from codeimpact.indexer import delta_write

    real, seen, wanted = delta_write.PendingWrite.result, [], {"state-files.bin", "state-graph.bin"}

    def result(self):
        gen = str(self.gen.path) + os.sep
        synced = lambda: {os.path.basename(p) for p in fsyncs if p.startswith(gen)}  # noqa: E731
        deadline = time.monotonic() + 20
        while not synced() >= wanted and time.monotonic() < deadline:
            time.sleep(0.01)
        seen.extend(synced())
        return real(self)

    monkeypatch.setattr(delta_write.PendingWrite, "result", result)
    repo, batched = _synced_runs(make_repo, index_repo, fsyncs, 3)
    gen = layout.read_current(repo / ".codeimpact").path
    assert set(seen) >= wanted
    assert not layout._AHEAD and not layout._UNSYNCED
    first_after = _current_written(batched)  # all of it before CURRENT, the folder last too
    assert str(gen) in batched[:first_after]
    assert not [p for p in batched[first_after:] if p.startswith(str(gen))]


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


def test_the_write_marker_waits_for_no_disk(tmp_path, fsyncs):
    # it only reports a write a killed writer left (in the page cache as much as on disk);
    # after a machine's crash the leftovers go all the same: no sync at the run's start
    idx = tmp_path / ".codeimpact"
    idx.mkdir()
    gen = layout.next_generation(idx)
    try:
        assert fsyncs == []
        marker = layout.read_marker(idx)
        assert marker is not None and marker.dir == gen.path.name
    finally:
        layout.discard(gen)
    assert layout.read_marker(idx) is None


def _batches(monkeypatch) -> list[list[str]]:
    """The paths of each fsync batch started (`publish`'s, and an edit's `sync_ahead`)."""
    batches: list[list[str]] = []
    real = layout._start_sync

    def record(paths):
        batches.append(sorted(paths))
        return real(batches[-1])

    monkeypatch.setattr(layout, "_start_sync", record)
    return batches


@pytest.mark.parametrize("runs", [1, 2])
def test_the_facts_cache_is_synced_in_the_publish_batch(make_repo, index_repo, monkeypatch, runs):
    """The cache files a generation relies on (its facts: the pack and its folder, the index
    in the generation's folder) are synced with the generation's own, before CURRENT, not
    one after another as the run flushes them."""
    batches = _batches(monkeypatch)  # the last run's (`_synced_runs` clears it)
    repo, _ = _synced_runs(make_repo, index_repo, batches, runs)
    facts = repo / ".codeimpact" / "facts"
    synced = {os.path.relpath(p, facts) for b in batches for p in b if p.startswith(str(facts))}
    assert "." in synced and any(p.endswith(".pack") for p in synced), synced
    gen = layout.read_current(repo / ".codeimpact").path
    synced = {os.path.relpath(p, gen) for b in batches for p in b if p.startswith(str(gen))}
    assert any(p.startswith("facts-") and p.endswith(".index") for p in synced), synced


@pytest.mark.parametrize(
    "runs", [2, 3]
)  # the first edit copies the database, the next takes the spare
def test_an_edits_meta_files_are_synced_in_the_publish_batch(make_repo, index_repo, monkeypatch,
                                                             runs):  # fmt: skip
    """The Meta values kept in files (the tree signature: ~600 KB on Django) are written by
    the run, synced with the rest of its generation: not by the database's writer child,
    which synced each one (file, then folder) while the run waited for its commit."""
    batches = _batches(monkeypatch)
    repo, _ = _synced_runs(make_repo, index_repo, batches, runs)
    gen = layout.read_current(repo / ".codeimpact").path
    synced = {os.path.relpath(p, gen) for b in batches for p in b if p.startswith(str(gen))}
    assert {"tree-signature.json", "incomplete.json"} <= synced, synced
