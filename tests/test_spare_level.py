"""The spare is brought level with the live generation after a publish, in a detached
process (graph/spare_level.py, indexer/spare_leveller.py): the next edit opens it without a
replay. A leveller killed with SIGKILL at any of its stages leaves the live generation as it
was and the next edit correct (a spare without a record: a copy); a run that comes while a
leveller works waits for it, or kills it once it waited too long. Real Kùzu, real processes.
"""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest
from test_incremental import assert_same_as_full, dump, run

from codeimpact.graph import layout, manifest, spare
from codeimpact.indexer import spare_leveller
from conftest import write_files

FILES = {
    "m.py": "def a():\n    return b()\n\n\ndef b():\n    return 1\n",
    **{f"n{i}.py": "from m import a\n\n\ndef main():\n    a()\n" for i in range(1, 5)},
}
ADDED = "\n\ndef added():\n    return a()\n"


def _record(idx: Path) -> dict | None:
    try:
        return json.loads((spare.spare_dir(idx) / spare.RECORD_NAME).read_bytes())
    except OSError:
        return None


def _indexed(tmp_path: Path) -> tuple[Path, Path]:
    """A repository and its index, fully built."""
    repo = tmp_path / "repo"
    repo.mkdir()
    write_files(repo, FILES)
    assert run(repo).mode == "full"
    return repo, layout.index_dir(repo)


def _edited_while_paused(tmp_path: Path, monkeypatch, stage: str, seconds: float) -> tuple:
    """An edit after the full build whose leveller stops `seconds` at `stage`: the
    repository, its index and the leveller's pid."""
    repo, idx = _indexed(tmp_path)
    marker = tmp_path / "leveller.pid"
    _pause_at(monkeypatch, stage, marker, seconds)
    (repo / "m.py").write_text(FILES["m.py"] + ADDED)
    assert run(repo).mode == "incremental"
    return repo, idx, _paused_pid(marker)


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rpartition(")")[2].split()[0] == "Z"
    except OSError:
        return True


def _pause_at(monkeypatch, stage: str, marker: Path, seconds: float) -> None:
    """Levellers started from now on stop `seconds` at `stage`, their pid in `marker`."""
    monkeypatch.setenv(spare_leveller.PAUSE_ENV, f"{stage}:{seconds}:{marker}")


def _paused_pid(marker: Path) -> int:
    deadline = time.monotonic() + 30
    while not marker.exists() or not marker.read_text():
        assert time.monotonic() < deadline, "the leveller never reached its stage"
        time.sleep(0.01)
    return int(marker.read_text())


def test_after_a_publish_the_spare_holds_the_live_generation(tmp_path):
    repo, idx = _indexed(tmp_path)
    (repo / "m.py").write_text(FILES["m.py"] + ADDED)
    report = run(repo)  # a copy: the full build's database becomes the spare
    assert report.mode == "incremental" and report.delta["spare_used"] == 0, report.delta
    spare.waited(idx)
    live = layout.read_current(idx).number
    record = _record(idx)
    assert record["generation"] == live  # without the leveller: live - 1
    assert record["leveller_cpu_seconds"] > 0  # (what benchmarks add to a run's CPU)
    (repo / "m.py").write_text(FILES["m.py"])
    report = run(repo)
    assert report.delta["spare_used"] == 1 and report.delta["deltas_replayed"] == 0, report.delta
    assert report.forks["spare leveller"] == spare_leveller.STARTED
    assert_same_as_full(repo, tmp_path, with_answers=False)
    spare.waited(idx)
    assert _record(idx)["generation"] == live + 1
    (repo / "m.py").write_text(FILES["m.py"] + ADDED)
    assert run(repo).delta["deltas_replayed"] == 0
    assert_same_as_full(repo, tmp_path, with_answers=False)


def test_the_writer_starts_from_the_rows_its_leveller_counted(tmp_path, monkeypatch):
    """The leveller records the rows it checked beside the spare's checksums; the next
    writer, which verifies those checksums, counts no relationship table again (~18 ms of
    its CPU on Django) and its counts still match a full build's."""
    from codeimpact.graph import wal_store
    from codeimpact.graph.schema import REL_TABLES

    repo, idx = _indexed(tmp_path)
    (repo / "m.py").write_text(FILES["m.py"] + ADDED)
    run(repo)  # a copy: the full build's database becomes the spare, levelled
    spare.waited(idx)
    live = layout.read_current(idx)
    assert _record(idx)["rows"] == manifest.recorded_rows(live.path)
    counted = tmp_path / "counted"
    real = wal_store._count

    def count(conn, table):  # (in the forked writer)
        with open(counted, "a") as fh:
            fh.write(table + " ")
        return real(conn, table)

    monkeypatch.setattr(wal_store, "_count", count)
    (repo / "m.py").write_text(FILES["m.py"])
    report = run(repo)
    assert report.mode == "incremental" and report.delta["spare_used"] == 1, report.delta
    assert report.forks["delta writer"] == "forked"
    assert not set(counted.read_text().split()) & set(REL_TABLES), counted.read_text()
    assert_same_as_full(repo, tmp_path, with_answers=False)


@pytest.mark.parametrize("large", [False, True])
def test_the_leveller_checkpoints_the_log_of_a_database_not_too_large(tmp_path, monkeypatch,
                                                                      large):  # fmt: skip
    """The leveller checkpoints the delta it applied, however small, while the database is
    at most spare_level.CHECKPOINT_DB_MAX: the next edit's writer opens the spare with no log
    to replay (Kùzu's replay of even one edge's log cost the writer ~8 ms of CPU), and the
    generation it publishes holds its own delta's log only. Above it (a kernel's database: a
    checkpoint ~30 s of CPU that a next edit would wait for) it leaves a log below wal_store's
    COMPACT_WAL_BYTES, as before. Either way the next writer replays and checkpoints nothing."""
    if large:
        monkeypatch.setenv(spare_leveller.CHECKPOINT_DB_ENV, "0")  # (every database is larger)
    repo, idx = _indexed(tmp_path)
    files = [layout.DB_FILENAME, *([layout.DB_FILENAME + spare.WAL_SUFFIX] if large else [])]
    for text in (FILES["m.py"] + ADDED, FILES["m.py"], FILES["m.py"] + ADDED):
        (repo / "m.py").write_text(text)
        report = run(repo)
        assert report.mode == "incremental", report.reason
        spare.waited(idx)
        record = _record(idx)
        assert record["generation"] == layout.read_current(idx).number
        assert list(record["files"]) == files, record
    assert report.delta["spare_used"] == 1 and report.delta["compacted"] == 0, report.delta
    assert report.delta["deltas_replayed"] == 0, report.delta
    assert_same_as_full(repo, tmp_path, with_answers=False)


@pytest.mark.parametrize("stage", ["checked", "unrecorded", "applied", "written"])
def test_a_leveller_killed_at_any_stage_costs_at_most_a_copy(tmp_path, monkeypatch, stage):
    repo, idx, pid = _edited_while_paused(tmp_path, monkeypatch, stage, 60)
    live = layout.read_current(idx)
    before = dump(repo, with_answers=False)
    os.kill(pid, signal.SIGKILL)
    while not _gone(pid):
        time.sleep(0.01)
    monkeypatch.delenv(spare_leveller.PAUSE_ENV)
    # the live generation is untouched and answers as before
    assert layout.read_current(idx) == live
    assert dump(repo, with_answers=False) == before
    # the spare: still the generation before (killed before its record went), or none
    record = _record(idx)
    if stage == "checked":
        assert record is not None and record["generation"] == live.number - 1
    else:
        assert record is None
    (repo / "m.py").write_text(FILES["m.py"])
    report = run(repo)
    assert report.mode == "incremental", report.reason
    assert report.delta["spare_used"] == int(stage == "checked"), report.delta
    assert report.delta["deltas_replayed"] == int(stage == "checked"), report.delta
    assert_same_as_full(repo, tmp_path, with_answers=False)
    # and the spare is brought level again after this run
    spare.waited(idx)
    assert _record(idx)["generation"] == live.number + 1


def test_a_run_waits_for_a_leveller_at_work(tmp_path, monkeypatch):
    """Without the spare's lock the run would find a spare without its record (being
    levelled), drop it and copy."""
    repo, _, _ = _edited_while_paused(tmp_path, monkeypatch, "applied", 1.0)
    monkeypatch.delenv(spare_leveller.PAUSE_ENV)
    (repo / "m.py").write_text(FILES["m.py"])
    report = run(repo)  # while the leveller sleeps at "applied"
    assert report.delta["spare_used"] == 1 and report.delta["deltas_replayed"] == 0, report.delta
    assert_same_as_full(repo, tmp_path, with_answers=False)


def test_a_leveller_that_takes_too_long_is_killed(tmp_path, monkeypatch):
    repo, _, pid = _edited_while_paused(tmp_path, monkeypatch, "applied", 120)
    monkeypatch.delenv(spare_leveller.PAUSE_ENV)
    monkeypatch.setattr(spare, "LEVELLER_WAIT", 0.2)
    (repo / "m.py").write_text(FILES["m.py"])
    report = run(repo)
    assert report.mode == "incremental" and report.delta["spare_used"] == 0, report.delta
    assert _gone(pid)
    assert_same_as_full(repo, tmp_path, with_answers=False)


def test_the_leveller_is_a_new_interpreter_that_no_caller_waits_for(tmp_path, monkeypatch):
    """Not a fork of the run: a copy of a caller's threads' locks (an embedder's Kùzu) could
    never be released in it; and not a child of the caller, who would have to reap it."""
    _, idx, pid = _edited_while_paused(tmp_path, monkeypatch, "checked", 60)
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            argv = fh.read().split(b"\0")
        with open(f"/proc/{pid}/stat") as fh:
            parent = int(fh.read().rpartition(")")[2].split()[1])
        assert b"-c" in argv, argv  # a program started anew, not this one forked
        assert parent != os.getpid()
        assert os.getsid(pid) != os.getsid(0)  # detached: a session of its own
    finally:
        os.kill(pid, signal.SIGKILL)
        while not _gone(pid):
            time.sleep(0.01)
    spare.waited(idx)


def test_a_job_file_of_another_format_is_refused(tmp_path):
    """The leveller's job is plain data (marshal), never code: a file of another format
    (a pickle, an older version's) is refused, nothing of it run."""
    import marshal
    import pickle

    from codeimpact.graph.delta import GraphDelta
    from codeimpact.graph.delta_log import delta_data

    job = tmp_path / spare_leveller.JOB_NAME
    good = (spare_leveller.JOB_FORMAT, 7, delta_data(GraphDelta(files_delete=["a.py"])),
            {"k": [1, "v"]}, {"File": 3}, 1 << 20)  # fmt: skip
    job.write_bytes(marshal.dumps(good))
    live, delta, meta, rows, pool = spare_leveller.read_job(job)
    assert (live, delta.files_delete, meta, rows, pool) == (7, ["a.py"], {"k": [1, "v"]},
                                                            {"File": 3}, 1 << 20)  # fmt: skip
    for bad in (marshal.dumps((0, *good[1:])), marshal.dumps(good[:5]),
                marshal.dumps((*good[:2], (99, {}), *good[3:]))):  # fmt: skip
        job.write_bytes(bad)
        with pytest.raises(spare_leveller.BadJob):
            spare_leveller.read_job(job)
    job.write_bytes(pickle.dumps(good))
    with pytest.raises((spare_leveller.BadJob, ValueError, EOFError)):
        spare_leveller.read_job(job)


@pytest.mark.parametrize("compact", [False, True])
def test_the_database_the_writer_verified_is_not_hashed_again_at_publish(tmp_path, monkeypatch,
                                                                          compact):  # fmt: skip
    """An edit that takes the spare writes its database through the WAL only: the checksum
    the writer took of the file (verifying the spare) is the manifest's. A compaction
    rewrites the file: then it is hashed at publish."""
    from codeimpact.graph import manifest, wal_store

    repo, idx = _indexed(tmp_path)
    (repo / "m.py").write_text(FILES["m.py"] + ADDED)
    run(repo)  # a copy: the full build's database becomes the spare
    spare.waited(idx)
    if compact:  # (the writer is forked; the spare's log is empty: the leveller checkpointed it)
        monkeypatch.setattr(wal_store, "COMPACT_WAL_BYTES", -1)
    hashed: list[str] = []
    real = manifest.file_digest

    def file_digest(path, size=None):
        hashed.append(Path(path).name)
        return real(path, size)

    monkeypatch.setattr(manifest, "file_digest", file_digest)
    (repo / "m.py").write_text(FILES["m.py"])
    report = run(repo)
    assert report.delta["spare_used"] == 1 and report.delta["compacted"] == int(compact)
    assert (layout.DB_FILENAME in hashed) == compact, hashed
    gen = layout.read_current(idx)
    found = manifest.load(gen.path, gen.manifest, gen.number)
    entry = found.files[f"{gen.path.name}/{layout.DB_FILENAME}"]
    assert entry.xxh3 == real(gen.db_path) and entry.size == gen.db_path.stat().st_size
    assert_same_as_full(repo, tmp_path, with_answers=False)


def test_the_leveller_removes_the_folder_the_run_replaced(tmp_path, monkeypatch):
    """The run renames the generation it replaced to the trash (deleting it was 5-8 ms of
    an edit's wall on Django) and its leveller deletes it; a killed leveller leaves it to
    the next run's."""
    repo, idx, pid = _edited_while_paused(tmp_path, monkeypatch, "checked", 60)
    live = layout.read_current(idx)

    def folders() -> list[str]:
        return sorted(p.name for p in idx.iterdir() if p.name.startswith(("gen-", "trash-")))

    old = layout.TRASH_PREFIX + layout.generation_dirname(live.number - 1)
    assert folders() == [live.path.name, old]
    os.kill(pid, signal.SIGKILL)
    while not _gone(pid):
        time.sleep(0.01)
    monkeypatch.delenv(spare_leveller.PAUSE_ENV)
    assert folders() == [live.path.name, old]
    (repo / "m.py").write_text(FILES["m.py"])
    assert run(repo).forks["spare leveller"] == spare_leveller.STARTED
    spare.waited(idx)
    assert folders() == [layout.read_current(idx).path.name]
    assert_same_as_full(repo, tmp_path, with_answers=False)
