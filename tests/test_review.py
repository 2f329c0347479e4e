"""The review view of a branch against its merge base, and its Markdown rendering."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from codeimpact.cli import main
from codeimpact.graph.errors import BadInput
from codeimpact.query.index import Index
from codeimpact.query.review import review, to_markdown
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

FILES = {
    "pkg/__init__.py": "",
    "pkg/core.py": CORE,
    "pkg/app.py": "from pkg.core import helper\n\n\ndef main():\n    return helper(2)\n",
    "tests/test_app.py": "from pkg.app import main\n\n\ndef test_main():\n    assert main() == 3\n",
}


@pytest.fixture
def branch(make_repo, index_repo):
    """main, then a feature branch that edits helper and Engine.stop and adds extra()."""
    root = make_repo(FILES)
    git(root, "checkout", "-q", "-b", "feature")
    text = CORE.replace("x + 1", "x + 2").replace("return 0", "return 1")
    write_files(root, {"pkg/core.py": text + "\n\ndef extra():\n    return 5\n"})
    git(root, "commit", "-qam", "feature")
    index_repo(root)  # the index is at the branch's HEAD
    return root


def test_review_lists_changes_dependents_tests_and_gaps(branch):
    with Index.open(branch) as index:
        r = review(index, "main")
    assert r.merge_base == git(branch, "rev-parse", "main").strip()
    assert {(i.symbol.uid, i.symbol.status) for i in r.symbols} == {
        ("pkg/core.py::helper", "modified"),
        ("pkg/core.py::Engine.stop", "modified"),
        ("pkg/core.py::extra", "added"),
    }
    by_uid = {i.symbol.uid: i for i in r.symbols}
    helper = by_uid["pkg/core.py::helper"]
    # Engine.run is in a changed file but not in the diff: a reviewer must look at it.
    assert {(d.uid, d.relation) for d in helper.dependents} == {
        ("pkg/app.py::main", "CALLS"),
        ("pkg/app.py::", "IMPORTS"),
        ("pkg/core.py::Engine.run", "CALLS"),
    }
    assert helper.tests == ["tests/test_app.py::test_main"] and helper.tested
    assert by_uid["pkg/core.py::Engine.stop"].dependents == []
    assert r.untested == ["pkg/core.py::Engine.stop", "pkg/core.py::extra"]
    assert r.tests == ["tests/test_app.py::test_main"]
    assert r.summary["dependents"] == 3 and r.summary["untested"] == 2


def test_markdown_rendering(branch):
    with Index.open(branch) as index:
        md = to_markdown(review(index, "main"))
    assert md.startswith("### codeimpact review: `main`")
    assert "| modified | `pkg/core.py::helper` (function) | 1-2 | 3 | 1 |" in md
    assert "| modified | `pkg/core.py::Engine.stop` (method) | 9-10 | 0 | **none** |" in md
    assert "- `pkg/app.py::main` (pkg/app.py:5) CALLS `pkg/core.py::helper`" in md
    assert "#### Tests to run\n\n- `tests/test_app.py::test_main`" in md
    assert "#### Changed symbols no test reaches\n\n- `pkg/core.py::Engine.stop`" in md


def test_default_base_and_nothing_to_review(branch):
    with Index.open(branch) as index:
        assert review(index).base == "main"
    git(branch, "checkout", "-q", "main")
    with Index.open(branch) as index:
        r = review(index)
    assert r.symbols == [] and any("nothing to review" in n for n in r.notes)


def test_uncommitted_edits_are_not_reviewed_but_noted(branch):
    write_files(branch, {"pkg/app.py": FILES["pkg/app.py"].replace("helper(2)", "helper(9)")})
    with Index.open(branch) as index:
        r = review(index, "main")
    assert "pkg/app.py::main" not in {i.symbol.uid for i in r.symbols}
    assert any("uncommitted" in n for n in r.notes)


def test_bad_base(branch):
    with Index.open(branch) as index, pytest.raises(BadInput, match="does not name a commit"):
        review(index, "no-such-branch")


def test_cli_json_and_markdown(branch):
    cli = CliRunner()
    res = cli.invoke(main, ["review", "--repo", str(branch), "--base", "main", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert list(data)[0] == "schema" and data["schema"] == "codeimpact.review/1"
    assert "freshness" in data and data["untested"] == [
        "pkg/core.py::Engine.stop",
        "pkg/core.py::extra",
    ]
    md = cli.invoke(main, ["review", "--repo", str(branch), "--format", "markdown"])
    assert md.exit_code == 0 and md.output.startswith("### codeimpact review")
    bad = cli.invoke(main, ["review", "--repo", str(branch), "--base", "nope"])
    assert bad.exit_code == 2


def test_limit_cuts_every_list_and_says_n_of_m(branch):
    with Index.open(branch) as index:
        whole = review(index, "main")
        cut = review(index, "main", limit=1)
    helper = next(i for i in cut.symbols if i.symbol.uid == "pkg/core.py::helper")
    assert len(cut.symbols) == 1 and cut.symbols_total == 3 == len(whole.symbols)
    assert len(helper.dependents) == 1 and helper.dependents_total == 3
    assert cut.dependents_total == 3 and len(cut.dependents) == 1
    assert len(cut.untested) == 1 and cut.untested_total == 2
    assert cut.summary == whole.summary and cut.run_ids == whole.run_ids  # never cut
    cli = CliRunner()
    args = ["review", "--repo", str(branch), "--base", "main", "--limit", "1"]
    text = cli.invoke(main, args)
    assert text.exit_code == 0, text.output
    assert "... and 2 more (1 of 3 shown; --limit 0 lists all)" in text.output
    assert "untested (2)" in text.output and "1 of 2 shown" in text.output
    data = json.loads(cli.invoke(main, [*args, "--json"]).output)
    assert (data["symbols_total"], data["untested_total"], len(data["symbols"])) == (3, 2, 1)
    assert cli.invoke(main, [*args[:-1], "-1"]).exit_code == 2
