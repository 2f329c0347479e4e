"""A spare whose bytes differ from its record is never used (graph/spare.py).

The prestarted writer checks the spare's checksums itself, while the run resolves
(indexer/delta_write.py): a damaged spare fails that write, which is done again on a copy
of the live database. Both paths are run here: the forked writer and the write in this
process (a fork refused), each on a spare damaged in place (same size, other bytes)."""

from __future__ import annotations

import pytest
from test_incremental import assert_same_as_full, run

from codeimpact.graph import layout, spare
from codeimpact.indexer import delta_write
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
