"""detect-changes on real git repositories: every scope, renames, moves, bad input."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest
from click.testing import CliRunner

from codeimpact.cli import main, to_jsonable
from codeimpact.graph.errors import BadInput
from codeimpact.indexer.lang import language_for
from codeimpact.query import gitdiff
from codeimpact.query.changes import detect_changes
from codeimpact.query.index import Index
from conftest import git, write_files

CORE = """
def helper(x):
    return x + 1


class Engine:
    def run(self):
        return helper(1)

    def stop(self):
        return 0
"""

APP = """
from pkg.core import Engine, helper


def main():
    return Engine().run() + helper(2)
"""

TEST_APP = """
from pkg.app import main


def test_main():
    assert main() == 5
"""

BASE_FILES = {"pkg/__init__.py": "", "pkg/core.py": CORE, "pkg/app.py": APP}
BASE_FILES["tests/test_app.py"] = TEST_APP


def module_end(text: str) -> int:
    """The module symbol's last line, by the extractor's own convention (not ours to fix)."""
    data = textwrap.dedent(text).lstrip("\n").encode()
    return language_for("m.py").extract(data).symbols[0].end_line


def changed(rep) -> set[tuple]:
    """{(uid, status, old_range, new_range)} of a report."""
    return {
        (
            s.uid,
            s.status,
            tuple(s.old_range) if s.old_range else None,
            tuple(s.new_range) if s.new_range else None,
        )
        for s in rep.symbols
    }


def run(repo, scope="unstaged", base=None):
    with Index.open(repo) as index:
        return detect_changes(index, scope, base)


@pytest.fixture
def repo(make_repo, index_repo):
    root = make_repo(BASE_FILES)
    index_repo(root)
    return root


def edit_core(root):
    """helper's body changes, Engine.stop becomes Engine.halt."""
    write_files(root, {"pkg/core.py": CORE.replace("x + 1", "x + 2").replace("stop", "halt")})


def test_unstaged_maps_hunks_to_symbols_with_ranges_and_impact(repo):
    edit_core(repo)
    rep = run(repo)
    assert changed(rep) == {
        ("pkg/core.py::helper", "modified", (1, 2), (1, 2)),
        ("pkg/core.py::Engine.halt", "added", None, (9, 10)),
        ("pkg/core.py::Engine.stop", "deleted", (9, 10), None),
    }
    by_uid = {s.uid: s for s in rep.symbols}
    assert by_uid["pkg/core.py::helper"].kind == "function"
    assert by_uid["pkg/core.py::Engine.halt"].kind == "method"
    assert by_uid["pkg/core.py::helper"].indexed and not by_uid["pkg/core.py::Engine.halt"].indexed
    # Old side matched against the index (which is at HEAD), new side extracted on the fly.
    assert [f.old_symbols_from for f in rep.files] == ["index"]
    assert rep.impact.targets == ["pkg/core.py::Engine.stop", "pkg/core.py::helper"]
    assert rep.impact.not_indexed == ["pkg/core.py::Engine.halt"]
    direct = {e.uid for g in rep.impact.groups if g.depth == 1 for e in g.entries}
    assert direct == {"pkg/app.py::main", "pkg/app.py::", "pkg/core.py::Engine.run"}
    assert [(t.uid, t.why) for t in rep.tests] == [("tests/test_app.py::test_main", "reaches")]
    assert rep.risk in ("LOW", "MEDIUM", "HIGH", "CRITICAL")
    assert rep.summary == {"files": 1, "added": 1, "modified": 1, "deleted": 1}


def test_method_edit_modifies_the_method_only_and_blank_lines_are_ignored(repo):
    text = CORE.replace(
        "        return helper(1)", "        value = helper(1)\n        return value"
    )
    text = text.replace("class Engine:", "\n\nclass Engine:")  # blank lines at module level
    write_files(repo, {"pkg/core.py": text})
    assert changed(run(repo)) == {("pkg/core.py::Engine.run", "modified", (6, 7), (8, 10))}


def test_decorator_line_belongs_to_the_definition_below(repo):
    write_files(repo, {"pkg/core.py": CORE.replace("def helper", "@staticmethod\ndef helper")})
    rep = run(repo)
    assert {(s.uid, s.status) for s in rep.symbols} == {("pkg/core.py::helper", "modified")}


def test_import_change_modifies_the_module_symbol(repo):
    write_files(repo, {"pkg/app.py": "import os\n" + APP.lstrip("\n")})
    rep = run(repo)
    old, new = module_end(APP), module_end("import os\n" + APP.lstrip("\n"))
    assert new == old + 1
    assert changed(rep) == {("pkg/app.py::", "modified", (1, old), (1, new))}


def test_scopes_staged_unstaged_all_and_untracked(repo):
    write_files(repo, {"pkg/core.py": CORE.replace("x + 1", "x + 2")})
    git(repo, "add", "pkg/core.py")
    write_files(repo, {"pkg/app.py": APP.replace("helper(2)", "helper(3)")})
    write_files(repo, {"pkg/extra.py": "def extra():\n    return 1\n"})
    staged = {(s.uid, s.status) for s in run(repo, "staged").symbols}
    unstaged = {(s.uid, s.status) for s in run(repo, "unstaged").symbols}
    everything = {(s.uid, s.status) for s in run(repo, "all").symbols}
    assert staged == {("pkg/core.py::helper", "modified")}
    assert unstaged == {
        ("pkg/app.py::main", "modified"),
        ("pkg/extra.py::", "added"),
        ("pkg/extra.py::extra", "added"),
    }
    assert everything == staged | unstaged
    extra = next(f for f in run(repo, "all").files if f.path == "pkg/extra.py")
    assert extra.untracked and extra.status == "added" and extra.lines_added == 2


def test_unstaged_compares_with_gits_index_not_head(repo):
    # Staged content is the old side of `unstaged`: the index (at HEAD) does not hold it,
    # so the old side is extracted from git's index blob.
    write_files(repo, {"pkg/core.py": CORE + "\n\ndef later():\n    return 1\n"})
    git(repo, "add", "pkg/core.py")
    write_files(repo, {"pkg/core.py": CORE + "\n\ndef later():\n    return 2\n"})
    rep = run(repo, "unstaged")
    assert changed(rep) == {("pkg/core.py::later", "modified", (13, 14), (13, 14))}
    assert rep.files[0].old_symbols_from == "extracted"


def test_compare_uses_the_merge_base(repo):
    git(repo, "checkout", "-q", "-b", "feature")
    write_files(repo, {"pkg/core.py": CORE.replace("return 0", "return -1")})
    git(repo, "commit", "-qam", "feature work")
    git(repo, "checkout", "-q", "main")
    write_files(repo, {"pkg/app.py": APP.replace("helper(2)", "helper(4)")})
    git(repo, "commit", "-qam", "main moves on")
    git(repo, "checkout", "-q", "feature")
    write_files(repo, {"pkg/core.py": CORE.replace("return 0", "return -1").replace("x + 1", "x")})
    rep = run(repo, "compare", "main")
    # main's own later commit (pkg/app.py) is not part of the branch's changes.
    assert {(s.uid, s.status) for s in rep.symbols} == {
        ("pkg/core.py::Engine.stop", "modified"),
        ("pkg/core.py::helper", "modified"),
    }
    assert rep.base == "main" and rep.base_commit == git(repo, "merge-base", "main", "HEAD").strip()


def test_git_mv_with_edits_is_modified_and_moved_not_deleted_and_added(repo):
    git(repo, "mv", "pkg/core.py", "pkg/engine.py")
    write_files(repo, {"pkg/engine.py": CORE.replace("x + 1", "x + 2")})
    git(repo, "add", "pkg/engine.py")
    rep = run(repo, "staged")
    got = {(s.uid, s.status, s.moved_from, s.body_changed) for s in rep.symbols}
    assert got == {
        ("pkg/engine.py::", "modified", "pkg/core.py::", True),
        ("pkg/engine.py::helper", "modified", "pkg/core.py::helper", True),
        ("pkg/engine.py::Engine", "modified", "pkg/core.py::Engine", False),
        ("pkg/engine.py::Engine.run", "modified", "pkg/core.py::Engine.run", False),
        ("pkg/engine.py::Engine.stop", "modified", "pkg/core.py::Engine.stop", False),
    }
    (f,) = rep.files
    assert (f.status, f.path, f.old_path) == ("renamed", "pkg/engine.py", "pkg/core.py")
    # The index holds the old uids: those are what the blast radius starts from.
    assert "pkg/core.py::helper" in rep.impact.targets


@pytest.mark.parametrize("scope", ["unstaged", "staged", "all"])
def test_staged_rename_then_unstaged_edit_keeps_the_old_uid_and_its_callers(repo, scope):
    # git mv, then an edit left unstaged: every scope finds helper in the new file, under
    # the uid the index knows it by, with its callers (the index is at HEAD).
    git(repo, "mv", "pkg/core.py", "pkg/engine.py")
    write_files(repo, {"pkg/engine.py": CORE.replace("x + 1", "x + 2")})
    rep = run(repo, scope)
    helper = next(s for s in rep.symbols if s.uid == "pkg/engine.py::helper")
    assert (helper.status, helper.moved_from) == ("modified", "pkg/core.py::helper")
    # staged holds the rename only: helper moved, its body is the committed one
    assert helper.body_changed is (scope != "staged")
    assert helper.indexed and "pkg/core.py::helper" in rep.impact.targets
    direct = {e.uid for g in rep.impact.groups if g.depth == 1 for e in g.entries}
    assert "pkg/app.py::main" in direct
    assert not any("could not be read" in n for f in rep.files for n in f.notes)
    if scope == "unstaged":  # the rename is not part of this diff: only the edit is listed
        assert [s.uid for s in rep.symbols] == ["pkg/engine.py::helper"]
        assert any("renamed from pkg/core.py" in n for n in rep.files[0].notes)
    else:
        assert {s.status for s in rep.symbols} == {"modified"}
        assert all(s.moved_from for s in rep.symbols)


@pytest.mark.parametrize("scope", ["unstaged", "staged", "all"])
def test_staged_rename_with_its_importer_updated_keeps_the_callers_and_breaks_nothing(repo, scope):
    # app.py's import follows the move (staged): its module is a changed symbol, but main,
    # which calls helper, is not changed: it is helper's dependent, and nothing is broken
    git(repo, "mv", "pkg/core.py", "pkg/engine.py")
    write_files(repo, {"pkg/app.py": APP.replace("pkg.core", "pkg.engine")})
    git(repo, "add", "pkg/app.py")
    write_files(repo, {"pkg/engine.py": CORE.replace("x + 1", "x + 2")})
    rep = run(repo, scope)
    helper = next(s for s in rep.symbols if s.uid == "pkg/engine.py::helper")
    assert helper.moved_from == "pkg/core.py::helper"
    d1 = {e.uid: e for g in rep.impact.groups if g.depth == 1 for e in g.entries}
    assert "pkg/app.py::main" in d1
    assert d1["pkg/app.py::main"].relation == "CALLS"
    assert rep.impact.counts.direct >= 1
    assert rep.impact.broken == [] and not any(r.startswith("broken") for r in rep.risk_reasons)
    assert "tests/test_app.py::test_main" in rep.run_ids


def test_plain_mv_is_paired_with_the_untracked_file(repo):
    (repo / "pkg/core.py").rename(repo / "pkg/engine.py")
    rep = run(repo, "unstaged")
    statuses = {s.status for s in rep.symbols}
    assert statuses == {"modified"}
    assert {s.moved_from for s in rep.symbols} == {
        "pkg/core.py::",
        "pkg/core.py::helper",
        "pkg/core.py::Engine",
        "pkg/core.py::Engine.run",
        "pkg/core.py::Engine.stop",
    }
    assert [(f.status, f.old_path) for f in rep.files] == [("renamed", "pkg/core.py")]


def test_symbol_moved_to_another_file(repo):
    write_files(
        repo,
        {
            "pkg/core.py": CORE.replace("def helper(x):\n    return x + 1\n", ""),
            "pkg/util.py": "def helper(x):\n    return x + 1\n",
        },
    )
    rep = run(repo, "all")
    moved = [s for s in rep.symbols if s.name == "helper"]
    assert [(s.uid, s.status, s.moved_from, s.body_changed) for s in moved] == [
        ("pkg/util.py::helper", "modified", "pkg/core.py::helper", False)
    ]
    assert tuple(moved[0].old_range) == (1, 2) and tuple(moved[0].new_range) == (1, 2)


def test_deleted_file_deletes_its_symbols(repo):
    (repo / "pkg/core.py").unlink()
    rep = run(repo, "unstaged")
    assert changed(rep) == {
        ("pkg/core.py::", "deleted", (1, module_end(CORE)), None),
        ("pkg/core.py::helper", "deleted", (1, 2), None),
        ("pkg/core.py::Engine", "deleted", (5, 10), None),
        ("pkg/core.py::Engine.run", "deleted", (6, 7), None),
        ("pkg/core.py::Engine.stop", "deleted", (9, 10), None),
    }
    assert rep.files[0].status == "deleted"


def test_binary_file_and_path_with_spaces(make_repo, index_repo):
    root = make_repo({"my pkg/a b.py": "def f():\n    return 1\n", "data.bin": b"\0\1\2"})
    index_repo(root)
    write_files(root, {"my pkg/a b.py": "def f():\n    return 2\n", "data.bin": b"\0\3\4"})
    rep = run(root, "all")
    assert changed(rep) == {("my pkg/a b.py::f", "modified", (1, 2), (1, 2))}
    binary = next(f for f in rep.files if f.path == "data.bin")
    assert binary.binary and binary.symbols == 0 and "binary: not parsed" in binary.notes


def test_binary_source_file_is_reported_not_parsed(repo):
    write_files(repo, {"pkg/core.py": b"\0\0binary now"})
    rep = run(repo)
    assert rep.symbols == [] and rep.files[0].binary


def test_merge_conflict_in_progress(repo):
    git(repo, "checkout", "-q", "-b", "other")
    write_files(repo, {"pkg/core.py": CORE.replace("return 0", "return 2")})
    git(repo, "commit", "-qam", "other")
    git(repo, "checkout", "-q", "main")
    write_files(repo, {"pkg/core.py": CORE.replace("return 0", "return 3")})
    git(repo, "commit", "-qam", "main")
    subprocess.run(["git", "-C", str(repo), "merge", "-q", "other"], capture_output=True)
    assert "<<<<<<<" in (repo / "pkg/core.py").read_text()
    for scope in ("unstaged", "all"):
        rep = run(repo, scope)
        (f,) = rep.files
        assert "merge conflict markers" in f.notes
        assert "syntax errors: symbols parsed from a partial tree" in f.notes
        # The markers break the parse of stop's body: the lines fall to the module.
        assert {(s.uid, s.status) for s in rep.symbols} == {("pkg/core.py::", "modified")}
    staged = run(repo, "staged")
    assert staged.symbols == [] and staged.files[0].status == "unmerged"


def test_edits_already_indexed_old_side_extracted_from_head(repo, index_repo):
    edit_core(repo)
    index_repo(repo)  # the index now holds the new side; HEAD still the old one
    rep = run(repo, "all")
    assert changed(rep) == {
        ("pkg/core.py::helper", "modified", (1, 2), (1, 2)),
        ("pkg/core.py::Engine.halt", "added", None, (9, 10)),
        ("pkg/core.py::Engine.stop", "deleted", (9, 10), None),
    }
    assert rep.files[0].old_symbols_from == "extracted"
    assert {s.uid: s.indexed for s in rep.symbols}["pkg/core.py::Engine.halt"]


def test_repository_without_commits(make_repo, index_repo):
    root = make_repo({"a.py": "def f():\n    return 1\n"}, commit=False)
    index_repo(root)
    git(root, "add", "a.py")
    for scope in ("staged", "all"):
        rep = run(root, scope)
        assert changed(rep) == {
            ("a.py::", "added", None, (1, module_end("def f():\n    return 1\n"))),
            ("a.py::f", "added", None, (1, 2)),
        }
        assert any("no commits" in n for n in rep.notes)
    with pytest.raises(BadInput, match="no commits"):
        run(root, "compare", "main")


def test_bad_base_and_not_a_git_repository(repo, make_repo, index_repo):
    with pytest.raises(BadInput, match="does not name a commit"):
        run(repo, "compare", "no-such-branch")
    with pytest.raises(BadInput, match="needs --base"):
        run(repo, "compare")
    plain = make_repo({"a.py": "x = 1\n"}, git_init=False)
    index_repo(plain)
    with pytest.raises(BadInput, match="not a git repository"):
        run(plain)


def test_parse_diff_handles_quoted_paths_and_renames():
    raw = (
        b":100644 100644 " + b"1" * 40 + b" " + b"0" * 40 + b" M\0tab\there.py\0"
        b":100644 100644 " + b"2" * 40 + b" " + b"3" * 40 + b" R087\0old name.py\0new name.py\0\0"
        b'diff --git "a/tab\\there.py" "b/tab\\there.py"\n'
        b'--- "a/tab\\there.py"\n+++ "b/tab\\there.py"\n@@ -2 +2,2 @@\n-a\n+b\n+c\n'
        b"diff --git a/old name.py b/new name.py\nsimilarity index 87%\n"
        b"rename from old name.py\nrename to new name.py\n"
        b"--- a/old name.py\t\n+++ b/new name.py\t\n@@ -5,0 +6 @@ x\n+y\n"
    )
    tab, ren = gitdiff.parse_diff(raw)
    assert (tab.status, tab.path, tab.new_blob) == ("modified", "tab\there.py", None)
    assert [(h.old_start, h.old_count, h.new_start, h.new_count) for h in tab.hunks] == [
        (2, 1, 2, 2)
    ]
    assert (ren.status, ren.old_path, ren.new_path, ren.similarity) == (
        "renamed",
        "old name.py",
        "new name.py",
        87,
    )
    assert [(h.old_start, h.old_count, h.new_start, h.new_count) for h in ren.hunks] == [
        (5, 0, 6, 1)
    ]


# ------------------------------------------------------------------------------ CLI


def test_cli_json_shape_and_errors(repo):
    edit_core(repo)
    cli = CliRunner()
    res = cli.invoke(main, ["detect-changes", "--repo", str(repo), "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert list(data)[0] == "schema" and data["schema"] == "codeimpact.detect-changes/1"
    assert "fresh" in data["freshness"] and data["freshness"]["fresh"] is False
    assert {s["uid"] for s in data["symbols"]} == {
        "pkg/core.py::helper",
        "pkg/core.py::Engine.halt",
        "pkg/core.py::Engine.stop",
    }
    text = cli.invoke(main, ["detect-changes", "--repo", str(repo)])
    assert text.exit_code == 0 and "pkg/core.py::Engine.halt" in text.output


def test_cli_bad_base_is_one_line_exit_2(repo):
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "codeimpact",
            "detect-changes",
            "--repo",
            str(repo),
            "--base",
            "nope",
        ],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2
    assert out.stderr.strip().count("\n") == 0 and "nope" in out.stderr
    assert "Traceback" not in out.stderr


def test_python_api_same_names(repo):
    import codeimpact

    edit_core(repo)
    with codeimpact.Index.open(repo) as index:
        via_method = changed(index.detect_changes("unstaged"))
        via_function = changed(codeimpact.detect_changes(index, "unstaged"))
        record = codeimpact.provenance(index, ["pkg/core.py"])
        assert not index.drift(to_jsonable(record)).drifted
        assert index.gate(files=["pkg/core.py"]).passed
        assert index.review("main").symbols == []  # nothing committed on top of main
    assert via_method == via_function and len(via_method) == 3


def test_index_of_a_folder_below_the_git_top_level(make_repo, index_repo):
    root = make_repo({"proj/pkg/a.py": "def f():\n    return 1\n", "top.py": "x = 1\n"})
    index_repo(root / "proj")
    write_files(root, {"proj/pkg/a.py": "def f():\n    return 2\n", "top.py": "x = 2\n"})
    write_files(root, {"proj/new.py": "y = 1\n"})
    rep = run(root / "proj", "all")
    # Paths are relative to the indexed folder; changes above it are not ours.
    assert {(s.uid, s.status) for s in rep.symbols} == {
        ("pkg/a.py::f", "modified"),
        ("new.py::", "added"),
        ("new.py::y", "added"),
    }


def test_limit_caps_every_list_not_counts_or_the_run_ids(repo):
    edit_core(repo)
    write_files(repo, {"tests/test_more.py": TEST_APP.replace("test_main", "test_again")})
    with Index.open(repo) as index:
        capped = detect_changes(index, "unstaged", limit=1)
        whole = detect_changes(index, "unstaged", limit=0)
        with pytest.raises(BadInput, match="--limit"):
            detect_changes(index, "unstaged", limit=-1)
    (group,) = capped.impact.groups
    assert group.count == 3 and len(group.entries) == 1
    assert capped.symbols_total == len(whole.symbols) == 5 and len(capped.symbols) == 1
    assert capped.symbols == whole.symbols[:1]
    assert capped.tests_total == len(whole.tests) == 2 and len(capped.tests) == 1
    # Engine.stop was deleted: Engine.run does not call it, nothing is broken
    assert capped.impact.broken_total == 0
    assert (
        capped.run_ids
        == whole.run_ids
        == [
            "tests/test_app.py::test_main",
            "tests/test_more.py::test_again",
        ]
    )
    out = CliRunner().invoke(main, ["detect-changes", "--repo", str(repo), "--limit", "1"]).output
    assert "... and 4 more (1 of 5 shown; --limit 0 lists all)" in out
    assert "tests to run (2)\n  tests/test_app.py::test_main\n  ... and 1 more (1 of 2" in out


def test_oversized_and_nested_repository_untracked_entries(repo):
    from codeimpact.indexer.config import DEFAULT_MAX_FILE_SIZE

    big = "x = 1\n" * (DEFAULT_MAX_FILE_SIZE // 6 + 1)  # one line over the limit
    write_files(repo, {"big.py": big, "data.csv": "a,b\n" * 10})
    nested = repo / "vendor"
    nested.mkdir()
    git(nested, "init", "-q")
    write_files(nested, {"v.py": "y = 1\n"})
    rep = run(repo, "unstaged")
    assert rep.symbols == []
    by_path = {f.path: f for f in rep.files}
    assert set(by_path) == {"big.py", "data.csv"}
    assert any(n.startswith("larger than") for n in by_path["big.py"].notes)
    assert by_path["data.csv"].language is None and by_path["data.csv"].symbols == 0
