"""A spare whose bytes differ from its record is never used (graph/spare.py).

The prestarted writer checks the spare's checksums itself, while the run resolves
(indexer/delta_write.py): a damaged spare fails that write, which is done again on a copy
of the live database. Both paths are run here: the forked writer and the write in this
process (a fork refused), each on a spare damaged in place (same size, other bytes)."""

from __future__ import annotations

import json

import pytest
from test_incremental import assert_same_as_full, run

from codeimpact.graph import layout, manifest, spare
from codeimpact.indexer import delta_write, spare_leveller
from conftest import write_files

FILES = {
    "m.py": "def a():\n    return b()\n\n\ndef b():\n    return 1\n",
    **{f"n{i}.py": "from m import a\n\n\ndef main():\n    a()\n" for i in range(1, 5)},
}
ADDED = "\n\ndef added():\n    return a()\n"


def _damage(path) -> None:
    data = bytearray(path.read_bytes())
    middle = len(data) // 2
    data[middle : middle + 64] = bytes(b ^ 0xFF for b in data[middle : middle + 64])
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("forked", [True, False], ids=["prestarted", "in-process"])
def test_a_damaged_spare_is_checked_and_copied_instead(tmp_path, monkeypatch, forked):
    repo = tmp_path / "repo"
    repo.mkdir()
    write_files(repo, FILES)
    idx = layout.index_dir(repo)
    assert run(repo).mode == "full"
    (repo / "m.py").write_text(FILES["m.py"] + ADDED)
    assert run(repo).delta["spare_used"] == 0  # the first edit copies; its old database: spare
    (repo / "m.py").write_text(FILES["m.py"])
    assert run(repo).delta["spare_used"] == 1  # a sound spare is used
    spare.waited(idx)  # (its leveller is done: graph/spare_level.py)
    _damage(spare.spare_dir(idx) / layout.DB_FILENAME)
    if not forked:  # the writer is not prestarted: `start_delta` takes the spare later
        monkeypatch.setattr(delta_write, "fork_unsafe_reason", lambda: "a test says so")
    (repo / "m.py").write_text(FILES["m.py"] + ADDED)
    report = run(repo)
    assert report.mode == "incremental", report.reason
    assert report.delta["spare_used"] == 0, report.delta  # found damaged: a copy instead
    assert_same_as_full(repo, tmp_path, with_answers=False)
    # the generation it replaced is the spare again, sound: the next edit uses it
    (repo / "m.py").write_text(FILES["m.py"])
    assert run(repo).delta["spare_used"] == 1
    assert_same_as_full(repo, tmp_path, with_answers=False)


def test_the_spare_keeps_the_checksums_its_generation_recorded(tmp_path, monkeypatch):
    """Salvage takes a leaving database's checksums from its generation's manifest while
    the writer's stamp of the file still holds (no second hash of the kernel's 1 GB): the
    record is what the file holds, and a wrong manifest only costs a copy."""
    # the levellers leave their small logs (a checkpoint rewrites the file, hashed anew)
    monkeypatch.setenv(spare_leveller.CHECKPOINT_DB_ENV, "0")
    repo = tmp_path / "repo"
    repo.mkdir()
    write_files(repo, FILES)
    idx = layout.index_dir(repo)
    assert run(repo).mode == "full"
    (repo / "m.py").write_text(FILES["m.py"] + ADDED)
    assert run(repo).delta["spare_used"] == 0
    spare.waited(idx)
    record = json.loads((spare.spare_dir(idx) / spare.RECORD_NAME).read_bytes())
    for name, want in record["files"].items():
        assert spare._checksum(spare.spare_dir(idx) / name) == want
    # the live generation's manifest says another checksum for its database, its stamp
    # still holds: the next edit's salvage records that, and the edit after it finds the
    # spare damaged and copies
    live = layout.read_current(idx)
    data = json.loads((live.path / manifest.MANIFEST_NAME).read_bytes())
    key = f"{live.path.name}/{layout.DB_FILENAME}"
    data["files"][key][1] = "0" * 16
    body = json.dumps(data).encode()
    (live.path / manifest.MANIFEST_NAME).write_bytes(body)
    current = json.loads((idx / layout.CURRENT).read_bytes())
    current["manifest"] = manifest.digest(body)  # (re-sealed: the run trusts it)
    current["check"] = layout._current_check(current)
    (idx / layout.CURRENT).write_text(json.dumps(current))
    (repo / "m.py").write_text(FILES["m.py"])
    assert run(repo).delta["spare_used"] == 1
    spare.waited(idx)  # its leveller keeps the checksum: the database file is unchanged
    record = json.loads((spare.spare_dir(idx) / spare.RECORD_NAME).read_bytes())
    assert record["files"][layout.DB_FILENAME][1] == "0" * 16
    (repo / "m.py").write_text(FILES["m.py"] + ADDED)
    assert run(repo).delta["spare_used"] == 0
    assert_same_as_full(repo, tmp_path, with_answers=False)
