"""An edit that changes no unresolved call site (a comment, a function whose calls all
resolve) links the live generation's unresolved sites (graph/sidecar.py) instead of
reading, patching and writing them again (2.4 MB on Django); any other edit rewrites them.
Either way the sites equal a full build's."""

from __future__ import annotations

import os
from pathlib import Path

from test_cutoff import _edit
from test_incremental import BASE, assert_same_as_full, run

from codeimpact.graph import layout
from codeimpact.graph.sidecar import UNRESOLVED_FILE, read_unresolved
from conftest import write_files

USES = "# uses\ndef go():\n    return unknown_call(1)\n"


def _sites(repo: Path) -> tuple[int, dict]:
    gen = layout.read_current(layout.index_dir(repo))
    path = gen.path / UNRESOLVED_FILE
    return os.stat(path).st_ino, read_unresolved(gen.path)


def test_unchanged_sites_are_linked_and_changed_ones_rewritten(tmp_path):
    repo = tmp_path / "repo"
    write_files(repo, {**BASE, "pkg/uses.py": USES})
    run(repo)
    inode, sites = _sites(repo)
    assert sites["unknown_call"] == [("pkg/uses.py::go", 3)]

    _edit(repo, "pkg/uses.py", "# uses\n", "# uses it\n")  # a comment: cut off
    assert run(repo).mode == "incremental"
    assert _sites(repo) == (inode, sites)
    assert_same_as_full(repo, tmp_path)

    _edit(repo, "pkg/core.py", "    return x + 1\n", "    return x + 1\n\n\ndef more():\n"
          "    return helper(3)\n")  # fmt: skip
    rep = run(repo)
    assert rep.mode == "incremental" and rep.delta["cut_off"] == 0
    assert _sites(repo) == (inode, sites)  # resolved again, every call resolved
    assert_same_as_full(repo, tmp_path)

    _edit(repo, "pkg/uses.py", "def go():\n", "\ndef go():\n")  # the site's line moves
    assert run(repo).mode == "incremental"
    moved_inode, moved = _sites(repo)
    assert moved_inode != inode and moved["unknown_call"] == [("pkg/uses.py::go", 4)]
    assert_same_as_full(repo, tmp_path)

    (repo / "pkg/uses.py").unlink()  # a file gone
    assert run(repo).mode == "incremental"
    assert "unknown_call" not in _sites(repo)[1]
    assert_same_as_full(repo, tmp_path)


def test_sites_are_read_once_the_writer_has_the_delta(tmp_path, monkeypatch):
    """The live sites (Django: 2.4 MB, ~18 ms to read) are read and patched while the
    writer commits the delta, not before the run hands it over."""
    from codeimpact.indexer import delta_write, incremental_run, worktree

    repo = tmp_path / "repo"
    write_files(repo, {**BASE, "pkg/uses.py": USES})
    run(repo)
    order: list[str] = []
    commit, read = delta_write.EarlyWrite.commit, incremental_run.read_unresolved

    def committed(self, *a, **k):
        order.append("commit")
        return commit(self, *a, **k)

    def reading(*a, **k):
        order.append("read")
        return read(*a, **k)

    monkeypatch.setattr(delta_write.EarlyWrite, "commit", committed)
    monkeypatch.setattr(incremental_run, "read_unresolved", reading)
    # the tree fields' child on time (its answer is waited for at the hand-over): when it is
    # late (a loaded machine), the run writes the side files it can before the hand-over, by
    # design (incremental_run._write), and the sites may be read first
    monkeypatch.setattr(worktree.EarlyFields, "ready", lambda self: True)
    _edit(repo, "pkg/uses.py", "def go():\n", "\ndef go():\n")  # the site's line moves
    assert run(repo).mode == "incremental"
    assert order == ["commit", "read"]
    assert _sites(repo)[1]["unknown_call"] == [("pkg/uses.py::go", 4)]
    assert_same_as_full(repo, tmp_path)
