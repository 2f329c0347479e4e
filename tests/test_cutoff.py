"""Early cut-off: an edit that moves no fact but the symbols' byte offsets (a comment's text,
spacing within a line) resolves nothing again, and the graph still equals a full build."""

from __future__ import annotations

import textwrap
from pathlib import Path

from test_incremental import BASE, assert_same_as_full, run

from conftest import write_files


def _edit(repo: Path, rel: str, old: str, new: str) -> None:
    path = repo / rel
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def test_comment_text_and_spacing_stop_after_extraction(tmp_path):
    repo = tmp_path / "repo"
    comprehension = "\n\ndef squares(xs):\n    return [helper(x) for x in xs if x]\n"
    core = "# helpers\n" + textwrap.dedent(BASE["pkg/core.py"]).lstrip("\n") + comprehension
    write_files(repo, {**BASE, "pkg/core.py": core})
    assert run(repo).files_by_status == {"ok": len(BASE)}
    # a longer comment: every symbol below it moves by 22 bytes, no line moves (and the
    # comprehension's local, named by its offset, is renamed)
    _edit(repo, "pkg/core.py", "# helpers\n", "# helpers, and their base class\n")
    rep = run(repo)
    assert rep.mode == "incremental" and rep.delta["cut_off"] == 1 and rep.resolved == 0
    assert rep.delta["symbols_updated"] > 0  # their byte columns
    assert_same_as_full(repo, tmp_path)
    # spacing within a line
    _edit(repo, "pkg/core.py", "return x + 1", "return  x  +  1")
    rep = run(repo)
    assert rep.delta["cut_off"] == 1 and rep.resolved == 0
    assert_same_as_full(repo, tmp_path)


def test_an_edit_that_moves_lines_or_calls_is_resolved(tmp_path):
    repo = tmp_path / "repo"
    write_files(repo, BASE)
    run(repo)
    _edit(repo, "pkg/core.py", "def helper(x):\n", "# a line more\ndef helper(x):\n")
    rep = run(repo)
    assert rep.delta["cut_off"] == 0 and rep.resolved >= 1
    assert_same_as_full(repo, tmp_path)
    # a literal argument is no fact: the facts are the same to the byte
    _edit(repo, "pkg/core.py", "return helper(1)", "return helper(2)")
    rep = run(repo)
    assert rep.delta["cut_off"] == 1 and rep.delta["symbols_updated"] == 0
    assert_same_as_full(repo, tmp_path)
    # a name called: resolved again
    _edit(repo, "pkg/core.py", "return helper(2)", "return Base(2)")
    rep = run(repo)
    assert rep.delta["cut_off"] == 0 and rep.resolved >= 1
    assert_same_as_full(repo, tmp_path)
