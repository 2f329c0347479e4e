"""Deleted and moved-away symbols keep their dependents, whichever side the index holds."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from codeimpact.cli import main
from codeimpact.query.changes import detect_changes
from codeimpact.query.index import Index
from codeimpact.query.review import review
from conftest import git, write_files

CORE = """
def helper(x):
    return x + 1


def other():
    return 2


class Engine:
    def run(self):
        return other()

    def stop(self):
        return 0
"""

APP = """
from pkg.core import Engine, helper


def main():
    return helper(2)


def shut(e: Engine):
    return e.stop()
"""

TEST_APP = """
from pkg.app import main


def test_main():
    assert main() == 3
"""

FILES = {
    "pkg/__init__.py": "",
    "pkg/core.py": CORE,
    "pkg/app.py": APP,
    "tests/test_app.py": TEST_APP,
}

WITHOUT_HELPER = CORE.replace("def helper(x):\n    return x + 1\n\n\n", "")


def direct(rep) -> set[str]:
    return {e.uid for g in rep.impact.groups if g.depth == 1 for e in g.entries}


def broken(rep) -> set[tuple]:
    return {(b.uid, b.relation, b.of, b.in_diff, b.found_by) for b in rep.impact.broken}


@pytest.fixture
def deleted_and_indexed(make_repo, index_repo):
    """A branch that deletes helper (main still calls it), indexed after the change."""
    root = make_repo(FILES)
    git(root, "checkout", "-q", "-b", "feature")
    write_files(root, {"pkg/core.py": WITHOUT_HELPER})
    git(root, "commit", "-qam", "delete helper")
    index_repo(root)
    return root


def test_detect_changes_base_keeps_a_deleted_functions_callers(deleted_and_indexed):
    with Index.open(deleted_and_indexed) as index:
        rep = detect_changes(index, "compare", "main")
    (helper,) = [s for s in rep.symbols if s.uid == "pkg/core.py::helper"]
    assert helper.status == "deleted" and not helper.indexed
    # the index has no node for helper: the callers were found by resolving the indexed
    # files with the old helper put back, with the rule and confidence of any edge
    assert broken(rep) == {
        ("pkg/app.py::main", "CALLS", "pkg/core.py::helper", False, "resolved"),
        ("pkg/app.py::", "IMPORTS", "pkg/core.py::helper", False, "resolved"),
    }
    assert {"pkg/app.py::main", "pkg/app.py::"} <= direct(rep)
    entry = next(e for g in rep.impact.groups for e in g.entries if e.uid == "pkg/app.py::main")
    assert (entry.depth, entry.relation, entry.confidence) == (1, "CALLS", 1.0)
    assert entry.path == ["pkg/app.py::main", "pkg/core.py::helper"]
    # the test calling main runs the broken code: it is a test to run; so is its module,
    # whose import (`from pkg.app import main` -> `from pkg.core import helper`) runs the
    # changed top level of pkg/core.py first
    assert [t.uid for t in rep.tests] == ["tests/test_app.py::", "tests/test_app.py::test_main"]
    assert rep.risk in ("HIGH", "CRITICAL")
    assert any(r.startswith("broken 2 >= 1 (HIGH)") for r in rep.risk_reasons)
    assert not any("new since" in n for n in rep.notes)
    assert "pkg/core.py::helper" not in rep.impact.not_indexed


def test_a_module_importing_a_removed_symbol_no_longer_loads_so_all_its_tests_run(
    make_repo, index_repo
):
    # test_shut calls only shut, which never used helper: but pkg/app.py imports helper,
    # so importing the module fails and test_shut breaks too (both sides of the index)
    files = {**FILES, "tests/test_shut.py": "from pkg.app import shut\n\n\n"
             "def test_shut():\n    assert shut(None) is None or True\n"}  # fmt: skip
    root = make_repo(files)
    index_repo(root)
    write_files(root, {"pkg/core.py": WITHOUT_HELPER})
    with Index.open(root) as index:
        at_old = detect_changes(index)
    git(root, "checkout", "-q", "-b", "feature")
    git(root, "commit", "-qam", "delete helper")
    index_repo(root)  # incremental, as a user's plain `graph analyze` after the commit
    with Index.open(root) as index:
        at_new = detect_changes(index, "compare", "main")
        r = review(index, "main")
    for rep in (at_old, at_new):
        # each module too: importing it fails, so every test in its file breaks
        assert {t.uid for t in rep.tests} == {
            "tests/test_app.py::",
            "tests/test_app.py::test_main",
            "tests/test_shut.py::",
            "tests/test_shut.py::test_shut",
        }
    assert (
        r.run_ids
        == at_new.run_ids
        == ["tests/test_app.py::test_main", "tests/test_shut.py::test_shut"]
    )


def test_review_lists_a_deleted_functions_callers_as_broken(deleted_and_indexed):
    with Index.open(deleted_and_indexed) as index:
        r = review(index, "main")
    item = next(i for i in r.symbols if i.symbol.uid == "pkg/core.py::helper")
    assert {(d.uid, d.relation, d.broken) for d in item.dependents} == {
        ("pkg/app.py::main", "CALLS", True),
        ("pkg/app.py::", "IMPORTS", True),
    }
    assert item.tests == ["tests/test_app.py::", "tests/test_app.py::test_main"] and item.tested
    assert r.risk in ("HIGH", "CRITICAL")
    md = CliRunner().invoke(main, ["review", "--repo", str(deleted_and_indexed), "--base", "main",
                                   "--format", "markdown"])  # fmt: skip
    assert "`pkg/app.py::main` (pkg/app.py:5) CALLS `pkg/core.py::helper` **(broken" in md.output
    text = CliRunner().invoke(
        main, ["review", "--repo", str(deleted_and_indexed), "--base", "main"]
    )
    assert "broken pkg/app.py::main (pkg/app.py:5, CALLS)" in text.output
    assert "tests to run (1)\n  tests/test_app.py::test_main\n" in text.output  # one a line
    data = json.loads(
        CliRunner()
        .invoke(main, ["review", "--repo", str(deleted_and_indexed), "--base", "main", "--json"])
        .output
    )
    assert {d["uid"] for d in data["dependents"] if d["broken"]} == {
        "pkg/app.py::main",
        "pkg/app.py::",
    }


def test_index_at_the_old_side_callers_outside_the_diff_are_broken(make_repo, index_repo):
    # Not committed, index at HEAD: helper is a node; main (outside the diff) still calls it.
    root = make_repo(FILES)
    index_repo(root)
    write_files(root, {"pkg/core.py": WITHOUT_HELPER})
    with Index.open(root) as index:
        rep = detect_changes(index)
    assert broken(rep) == {
        ("pkg/app.py::main", "CALLS", "pkg/core.py::helper", False, "index"),
        ("pkg/app.py::", "IMPORTS", "pkg/core.py::helper", False, "index"),
    }
    assert rep.risk in ("HIGH", "CRITICAL")


def test_callers_fixed_in_the_same_change_are_not_broken(make_repo, index_repo):
    root = make_repo(FILES)
    git(root, "checkout", "-q", "-b", "feature")
    write_files(root, {
        "pkg/core.py": WITHOUT_HELPER,
        "pkg/app.py": APP.replace("Engine, helper", "Engine").replace("helper(2)", "2 + 1"),
    })  # fmt: skip
    git(root, "commit", "-qam", "delete helper and its uses")
    index_repo(root)
    with Index.open(root) as index:
        rep = detect_changes(index, "compare", "main")
        assert broken(rep) == set()
        assert not any(r.startswith("broken") for r in rep.risk_reasons)
        # the index at the old side: main and the module changed too, so not counted
        git(root, "checkout", "-q", "main")
    index_repo(root)
    git(root, "checkout", "-q", "feature", "--", ".")
    with Index.open(root) as index:
        rep = detect_changes(index, "staged")
    assert broken(rep) == set()


def test_renamed_method_and_deleted_file_keep_their_dependents(make_repo, index_repo):
    # Engine.stop becomes Engine.halt (shut still calls stop, through its annotation), and
    # the file a test imports is deleted: both found resolving the old side.
    root = make_repo({**FILES, "pkg/extra.py": "def extra():\n    return 1\n",
                      "tests/test_extra.py": "from pkg.extra import extra\n\n\n"
                                             "def test_extra():\n    assert extra() == 1\n"})  # fmt: skip
    git(root, "checkout", "-q", "-b", "feature")
    write_files(root, {"pkg/core.py": CORE.replace("def stop", "def halt")})
    git(root, "rm", "-q", "pkg/extra.py")
    git(root, "commit", "-qam", "rename stop, drop extra")
    index_repo(root)
    with Index.open(root) as index:
        rep = detect_changes(index, "compare", "main")
    got = broken(rep)
    assert ("pkg/app.py::shut", "CALLS", "pkg/core.py::Engine.stop", False, "resolved") in got
    assert ("tests/test_extra.py::", "IMPORTS", "pkg/extra.py::extra", False, "resolved") in got
    assert ("tests/test_extra.py::test_extra", "CALLS", "pkg/extra.py::extra", False,
            "resolved") in got  # fmt: skip
    shut = next(b for b in rep.impact.broken if b.uid == "pkg/app.py::shut")
    assert (shut.confidence, shut.reason, shut.at_line) == (0.8, "local-type", 9)
    assert "tests/test_extra.py::test_extra" in {t.uid for t in rep.tests}


def test_cli_detect_changes_text_and_json_show_the_broken_callers(deleted_and_indexed):
    cli = CliRunner()
    res = cli.invoke(main, ["detect-changes", "--repo", str(deleted_and_indexed), "--base", "main"])
    assert res.exit_code == 0, res.output
    assert "pkg/app.py::main" in res.output and "risk HIGH" in res.output
    data = json.loads(
        cli.invoke(
            main, ["detect-changes", "--repo", str(deleted_and_indexed), "--base", "main", "--json"]
        ).output
    )
    assert {b["uid"] for b in data["impact"]["broken"]} == {"pkg/app.py::main", "pkg/app.py::"}
    assert data["risk"] in ("HIGH", "CRITICAL")


def test_a_renamed_files_importers_that_still_name_the_old_module_are_broken(make_repo, index_repo):
    root = make_repo(FILES)
    git(root, "checkout", "-q", "-b", "feature")
    git(root, "mv", "pkg/core.py", "pkg/engine.py")
    git(root, "commit", "-qm", "move core to engine, importers not updated")
    index_repo(root)
    with Index.open(root) as index:
        rep = detect_changes(index, "compare", "main")
        r = review(index, "main")
    helper = next(s for s in rep.symbols if s.uid == "pkg/engine.py::helper")
    assert helper.moved_from == "pkg/core.py::helper" and not helper.body_changed
    assert ("pkg/app.py::main", "CALLS", "pkg/core.py::helper", False, "resolved") in broken(rep)
    assert rep.risk in ("HIGH", "CRITICAL")
    item = next(i for i in r.symbols if i.symbol.uid == "pkg/engine.py::helper")
    assert ("pkg/app.py::main", True) in {(d.uid, d.broken) for d in item.dependents}
    assert item.tests == ["tests/test_app.py::", "tests/test_app.py::test_main"]


@pytest.mark.parametrize("scope", ["unstaged", "staged", "all"])
def test_an_edited_caller_is_broken_only_if_its_new_side_still_names_it(
    make_repo, index_repo, scope
):
    # Index at HEAD (the old side). core.py moves to engine.py and app.py's import follows
    # it (staged): main's indexed edge still points at core.py::helper, but its new side
    # binds elsewhere, so it is not broken. shut's file was edited too, but it still calls
    # Engine.stop, which the unstaged edit deletes: broken.
    root = make_repo(FILES)
    index_repo(root)
    git(root, "mv", "pkg/core.py", "pkg/engine.py")
    write_files(root, {"pkg/app.py": APP.replace("pkg.core", "pkg.engine") + "\n# edited\n"})
    git(root, "add", "pkg/app.py")
    no_stop = CORE.replace("\n    def stop(self):\n        return 0\n", "\n")
    write_files(root, {"pkg/engine.py": no_stop})
    with Index.open(root) as index:
        rep = detect_changes(index, scope)
    got = {b[:3] for b in broken(rep)}
    assert ("pkg/app.py::main", "CALLS", "pkg/core.py::helper") not in got
    assert ("pkg/app.py::", "IMPORTS", "pkg/core.py::helper") not in got
    if scope != "staged":  # staged holds the rename only: stop is still there
        assert ("pkg/app.py::shut", "CALLS", "pkg/core.py::Engine.stop") in got
        assert rep.risk in ("HIGH", "CRITICAL")
    else:
        assert got == set() and not any(r.startswith("broken") for r in rep.risk_reasons)


def test_typescript_deleted_export_keeps_its_importers(make_repo, index_repo):
    # TypeScript binds an import through the file's export list (facts' `extra`), not its
    # symbols: the old side's exports are put back with the symbol.
    root = make_repo({
        "src/a.ts": "export function f(): number {\n  return 1;\n}\n\n"
                    "export function g(): number {\n  return 2;\n}\n",
        "src/b.ts": 'import { f } from "./a";\n\nexport function h(): number {\n'
                    "  return f() + 1;\n}\n",
        "src/b.test.ts": 'import { h } from "./b";\n\ntest("h", () => {\n'
                         "  expect(h()).toBe(2);\n});\n",
    })  # fmt: skip
    git(root, "checkout", "-q", "-b", "feature")
    write_files(root, {"src/a.ts": "export function g(): number {\n  return 2;\n}\n"})
    git(root, "commit", "-qam", "drop f")
    index_repo(root)
    with Index.open(root) as index:
        rep = detect_changes(index, "compare", "main")
    assert broken(rep) == {
        ("src/b.ts::h", "CALLS", "src/a.ts::f", False, "resolved"),
        ("src/b.ts::", "IMPORTS", "src/a.ts::f", False, "resolved"),
    }
    assert rep.run_ids == ["src/b.test.ts"] and rep.risk in ("HIGH", "CRITICAL")
