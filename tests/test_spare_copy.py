"""The spare's file is kept near a full build's size: once its free pages pass a share of it
the leveller replaces the levelled spare with a fresh copy (graph/spare_level.py,
graph/fresh_copy.py), which a run that wants the spare stops at once. Real Kùzu, real
processes (the leveller is a detached interpreter), real kills.
"""

from __future__ import annotations

import os
import shutil
import signal
import time
from pathlib import Path

import pytest
from test_incremental import assert_same_as_full, run
from test_spare_level import FILES, _gone, _indexed, _pause_at, _paused_pid, _record

from codeimpact.graph import fresh_copy, layout, spare, spare_level
from codeimpact.graph.store import kuzu_module
from codeimpact.indexer import spare_leveller

EDITS = [
    FILES["m.py"] + "\n\ndef added():\n    return a()\n",
    FILES["m.py"],
    FILES["m.py"].replace("return 1", "return 2") + "\n\ndef other():\n    return b()\n",
]


def _spare_db(idx: Path) -> Path:
    return spare.spare_dir(idx) / layout.DB_FILENAME


def _pages(db: Path) -> tuple[int, int]:
    """(free pages, pages) of a database file, read-only (a copy of it: nothing else opens
    the spare)."""
    kuzu = kuzu_module()
    database = kuzu.Database(str(db), read_only=True)
    try:
        conn = kuzu.Connection(database)
        found = fresh_copy.free_pages(conn)
        conn.close()
        return found
    finally:
        database.close()


def test_free_pages_are_what_a_fresh_copy_drops(tmp_path):
    # Kùzu's own accounting: a database whose checkpoints rewrote its chunks holds free
    # pages, its fresh copy none, and no more pages than that database less them
    repo, idx = _indexed(tmp_path)
    for text in EDITS * 2:
        (repo / "m.py").write_text(text)
        assert run(repo).mode == "incremental"
        spare.waited(idx)
    free, pages = _pages(_spare_db(idx))
    assert free > 0
    kuzu = kuzu_module()
    database = kuzu.Database(str(_spare_db(idx)))
    try:
        from codeimpact.graph.store import count_rows

        conn = kuzu.Connection(database)
        copy = fresh_copy.fresh_copy(conn, tmp_path / "copy", count_rows(conn), 64 << 20, 1)
        conn.close()
    finally:
        database.close()
    copied_free, copied_pages = _pages(copy)
    assert copied_free == 0 and copied_pages <= pages - free


def test_the_rule_copies_a_file_grown_a_fifth_and_by_enough():
    mb = 1024 * 1024 // fresh_copy.PAGE_BYTES  # pages
    assert spare_level.needs_copy(47 * mb, 38 * mb)  # Django after 75 edits
    assert not spare_level.needs_copy(43 * mb, 38 * mb)  # after 50
    assert not spare_level.needs_copy(3 * mb, mb)  # thrice, but 2 MB more: not worth a copy


def _edit(repo: Path, idx: Path, text: str):
    (repo / "m.py").write_text(text)
    report = run(repo)
    assert report.mode == "incremental", report.reason
    spare.waited(idx)
    return report


def test_a_grown_spare_is_copied_and_serves_the_next_edits(tmp_path, monkeypatch):
    """Each database of the index is the spare every other edit: both are copied in turn,
    each file then no larger than a full build's of the same content, and the edits made on
    the copies are the full build's, fact for fact. The first leveller after a full build
    records the lineage's size (a full build's: nothing to copy); a full build forgets it."""
    monkeypatch.setenv(spare_leveller.COPY_ENV, "0")  # (every levelled spare is copied)
    repo, idx = _indexed(tmp_path)
    _edit(repo, idx, EDITS[0])
    base = spare.base_pages(idx)
    assert base == _spare_db(idx).stat().st_size // fresh_copy.PAGE_BYTES
    for i, text in enumerate(EDITS[1:] + EDITS[:1]):
        replaced = layout.read_current(idx).db_path.stat().st_ino  # (the next spare)
        report = _edit(repo, idx, text)
        assert report.delta["spare_used"] == 1 and report.delta["deltas_replayed"] == 0
        assert _record(idx)["generation"] == layout.read_current(idx).number
        db = _spare_db(idx)
        assert db.stat().st_ino != replaced  # a new file: the copy
        assert list(_record(idx)["files"]) == [layout.DB_FILENAME]
        assert not (spare.spare_dir(idx) / spare_level.COPY_DIRNAME).exists()
        assert spare.base_pages(idx) == db.stat().st_size // fresh_copy.PAGE_BYTES
        assert_same_as_full(repo, tmp_path, with_answers=False)
        assert _pages(db)[0] == 0 and _pages(db)[1] <= _full_pages(repo, tmp_path / f"full{i}")
    run(repo, force=True)
    assert spare.base_pages(idx) is None


def _full_pages(repo: Path, where: Path) -> int:
    """The pages of a full build's database of `repo`'s files."""
    shutil.copytree(repo, where, ignore=shutil.ignore_patterns(".codeimpact", ".git"))
    run(where, force=True)
    return _pages(layout.read_current(layout.index_dir(where)).db_path)[1]


def test_a_spare_not_grown_enough_is_levelled_in_place(tmp_path):
    repo, idx = _indexed(tmp_path)
    _edit(repo, idx, EDITS[0])
    base = spare.base_pages(idx)
    for text in EDITS[1:]:
        replaced = layout.read_current(idx).db_path.stat().st_ino
        _edit(repo, idx, text)
        # the database the edit replaced is the spare, levelled in its own file
        assert _spare_db(idx).stat().st_ino == replaced
    assert spare.base_pages(idx) == base


def test_a_database_over_the_checkpoint_bound_is_never_copied(tmp_path, monkeypatch):
    """A larger database (spare_level.CHECKPOINT_DB_MAX: a kernel's) is not copied, however
    grown: the copy reads each whole table at once."""
    monkeypatch.setenv(spare_leveller.COPY_ENV, "0")  # (any other spare would be copied)
    monkeypatch.setenv(spare_leveller.CHECKPOINT_DB_ENV, "0")  # (every database is larger)
    repo, idx = _indexed(tmp_path)
    for text in EDITS:
        replaced = layout.read_current(idx).db_path.stat().st_ino
        report = _edit(repo, idx, text)
        assert report.delta["deltas_replayed"] == 0, report.delta
        assert _spare_db(idx).stat().st_ino == replaced  # levelled in its own file
    assert spare.base_pages(idx) is None
    assert_same_as_full(repo, tmp_path, with_answers=False)


def test_a_run_stops_a_copy_at_once_and_takes_the_levelled_spare(tmp_path, monkeypatch):
    """The copy is optional work: a run does not wait for it (nor for the leveller's wait
    limit, made longer than any test here) but kills it and takes the spare as levelled."""
    monkeypatch.setenv(spare_leveller.COPY_ENV, "0")
    monkeypatch.setattr(spare, "LEVELLER_WAIT", 3600.0)
    repo, idx = _indexed(tmp_path)
    _edit(repo, idx, EDITS[2])  # (its leveller records the lineage's size)
    marker = tmp_path / "leveller.pid"
    _pause_at(monkeypatch, "copying", marker, 2.0)  # (the copy would end within seconds)
    (repo / "m.py").write_text(EDITS[0])
    run(repo)
    pid = _paused_pid(marker)
    levelled = _spare_db(idx).stat().st_ino
    assert _record(idx)["generation"] == layout.read_current(idx).number
    monkeypatch.delenv(spare_leveller.PAUSE_ENV)
    (repo / "m.py").write_text(EDITS[1])
    report = run(repo)
    assert report.delta["spare_used"] == 1 and report.delta["deltas_replayed"] == 0, report.delta
    assert _gone(pid)
    # the database the run wrote is the levelled spare, not a copy of it
    assert layout.read_current(idx).db_path.stat().st_ino == levelled
    assert_same_as_full(repo, tmp_path, with_answers=False)


@pytest.mark.parametrize("stage", ["copying", "copied"])
def test_a_leveller_killed_while_it_copies_leaves_the_levelled_spare(tmp_path, monkeypatch,
                                                                     stage):  # fmt: skip
    monkeypatch.setenv(spare_leveller.COPY_ENV, "0")
    repo, idx = _indexed(tmp_path)
    _edit(repo, idx, EDITS[2])  # (its leveller records the lineage's size)
    marker = tmp_path / "leveller.pid"
    _pause_at(monkeypatch, stage, marker, 60)
    (repo / "m.py").write_text(EDITS[0])
    run(repo)
    pid = _paused_pid(marker)
    os.kill(pid, signal.SIGKILL)
    while not _gone(pid):
        time.sleep(0.01)
    monkeypatch.delenv(spare_leveller.PAUSE_ENV)
    live = layout.read_current(idx)
    assert _record(idx)["generation"] == live.number  # levelled, recorded before the copy
    (repo / "m.py").write_text(EDITS[1])
    report = run(repo)
    assert report.delta["spare_used"] == 1 and report.delta["deltas_replayed"] == 0, report.delta
    assert_same_as_full(repo, tmp_path, with_answers=False)
    spare.waited(idx)
    assert _record(idx)["generation"] == live.number + 1
    assert not (spare.spare_dir(idx) / spare_level.COPY_DIRNAME).exists()
