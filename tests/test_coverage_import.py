"""`graph coverage import`: a real pytest-cov run in a subprocess, a real import, real indexes.

The repository (`coverage_repo.py`) has a function reached only through a dynamic
`getattr` (`handle_upper`): the static graph cannot see which test runs it, the
coverage data can. The held-out check: the import must link the test that runs it
and no test that does not (and `test_selection.py`: the tests to run then hold it).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from coverage import CoverageData

from codeimpact.cli import main
from codeimpact.graph import layout
from codeimpact.graph.errors import BadInput, CorruptIndex
from codeimpact.graph.observed import observed_path, read_observed
from codeimpact.indexer.build import analyze
from codeimpact.indexer.config import IndexConfig, RunOptions
from codeimpact.indexer.coverage_data import ParsedContext, parse_context
from codeimpact.indexer.coverage_import import import_coverage
from codeimpact.query.index import Index
from codeimpact.query.observed import coverage_status
from conftest import git, write_files
from coverage_repo import (
    DYNAMIC,
    NEVER,
    copy_measured,
    index,
    links_by_run_id,
    move_data,
    run_pytest_cov,
)


def run_cli(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture
def measured(coverage_measured) -> Path:
    return coverage_measured


@pytest.fixture
def copy_of(measured, tmp_path):
    return lambda: copy_measured(measured, tmp_path / "repo")


# ------------------------------------------------------------------ the held-out check
def test_import_links_the_test_that_runs_a_function_only_a_getattr_reaches(copy_of):
    repo = copy_of()
    with Index.open(repo) as idx:
        static = {t.uid for t in idx.impact("pkg/plugins.py::handle_upper", limit=0).tests}
    assert "tests/test_plugins.py::test_upper" not in static  # the graph alone cannot see it

    res = run_cli("coverage", "import", "--repo", str(repo), "--json")
    assert res.exit_code == 0, res.output
    report = json.loads(res.output)
    assert report["schema"] == "codeimpact.coverage-import/1"
    assert report["context_kind"] == "pytest" and report["skipped_files"] == []

    links = links_by_run_id(repo)
    assert "pkg/plugins.py::handle_upper" in links[DYNAMIC]
    who_runs_it = {r for r, fns in links.items() if "pkg/plugins.py::handle_upper" in fns}
    assert who_runs_it == {DYNAMIC}
    assert links[NEVER] == set()  # it only checks `load` is callable: nothing executed
    assert not any("pkg/plugins.py::unused" in fns for fns in links.values())


def test_definition_lines_run_at_import_are_not_calls(copy_of):
    """`import pkg.lazy` inside a test runs every `def` line (and the default `a=1`) under
    that test's context; only the function whose body ran is linked."""
    repo = copy_of()
    import_coverage(repo)
    lazy = {f for f in links_by_run_id(repo)["tests/test_plugins.py::test_lazy"] if "lazy" in f}
    assert lazy == {"pkg/lazy.py::first"}


def test_an_inherited_test_keeps_its_runnable_id_and_its_code(copy_of):
    repo = copy_of()
    import_coverage(repo)
    obs = read_observed(layout.index_dir(repo))
    shared = [t for t in obs.tests if t.run_id == "tests/test_inherit.py::TestSub::test_shared"]
    # the two parametrised items are one test, whose code is the base class's method
    assert [t.uid for t in shared] == ["tests/test_inherit.py::Shared.test_shared"]
    assert links_by_run_id(repo)[shared[0].run_id] == {"pkg/plugins.py::handle_lower"}


def test_test_function_contexts_from_a_coveragerc(copy_of):
    """coverage.py's own `dynamic_context = test_function` names tests by dotted name; a
    static context (`context = ci`) prefixes them (`ci|test_plugins.test_upper`) and alone
    labels the code run outside any test."""
    repo = copy_of()
    (repo / ".coveragerc").write_text(
        "[run]\ndynamic_context = test_function\ncontext = ci\nsource = pkg\ndata_file = .cov-fn\n"
    )
    run_pytest_cov(repo, "--cov", "--cov-config=.coveragerc")
    data = CoverageData(str(repo / ".cov-fn"))
    data.read()
    assert "ci|test_plugins.test_upper" in data.measured_contexts()
    report = import_coverage(repo, repo / ".cov-fn")
    assert report.context_kind == "test_function" and report.unmatched_contexts == 0
    links = links_by_run_id(repo)
    assert links[DYNAMIC] >= {"pkg/plugins.py::load", "pkg/plugins.py::handle_upper"}
    assert {r for r, f in links.items() if "pkg/plugins.py::handle_upper" in f} == {DYNAMIC}


# ------------------------------------------------------------------ what lines are trusted
def test_lines_of_a_file_edited_after_the_run_are_not_used(copy_of):
    repo = copy_of()
    path = repo / "pkg/plugins.py"
    path.write_text("# a new first line shifts every line below\n" + path.read_text())
    index(repo)  # the index holds the edited content: only the mtime tells
    report = import_coverage(repo)
    skipped = {f.path: f.reason for f in report.skipped_files}
    assert "modified after the coverage data was written" in skipped["pkg/plugins.py"]
    assert not any(f.startswith("pkg/plugins.py::") for fns in links_by_run_id(repo).values()
                   for f in fns)  # fmt: skip
    assert links_by_run_id(repo)["tests/test_plugins.py::test_lazy"] == {"pkg/lazy.py::first"}


def test_a_file_that_differs_from_the_index_is_not_mapped(copy_of):
    repo = copy_of()
    old = os.stat(repo / ".coverage").st_mtime
    (repo / "pkg/lazy.py").write_text("def first():\n    return 1\n")
    os.utime(repo / "pkg/lazy.py", (old - 10, old - 10))  # even when its mtime looks older
    report = import_coverage(repo)
    skipped = {f.path: f.reason for f in report.skipped_files}
    assert skipped["pkg/lazy.py"].startswith("changed since indexing: run `graph analyze`")
    st_files = {f["path"] for f in _status(repo).skipped_files}
    assert st_files == {"pkg/lazy.py"}


def test_data_recorded_in_another_checkout_needs_its_root(copy_of, measured, tmp_path):
    """A data file from CI names files under the CI's checkout: nothing outside the
    repository is read, so the import says which root to pass, and maps with it."""
    repo = copy_of()
    other = tmp_path / "ci" / "checkout"
    shutil.copytree(measured, other, symlinks=True, ignore=shutil.ignore_patterns(".codeimpact"))
    move_data(other / ".coverage", measured, other)
    shutil.rmtree(other / "pkg")  # the CI checkout is gone; only its data file is here
    with pytest.raises(BadInput, match=f"import with --recorded-root {other}$"):
        import_coverage(repo, other / ".coverage")
    report = import_coverage(repo, other / ".coverage", recorded_root=other)
    assert report.skipped_files == [] and report.outside_files == 0
    assert any("--commit REV" in n for n in report.notes)  # it cannot tell the commit
    assert "pkg/plugins.py::handle_upper" in links_by_run_id(repo)[DYNAMIC]


def test_data_measured_at_another_commit_maps_on_that_commit(copy_of):
    """main's suite measured, a branch that moved handle_upper down: with --commit the
    lines are mapped on main's content, so the link is the right function, and stale
    (without it, only the file's modification time could keep the measured line numbers
    off the function now at those lines)."""
    repo = copy_of()
    git(repo, "checkout", "-q", "-b", "feature")
    path = repo / "pkg/plugins.py"
    text = path.read_text().replace(
        "import sys\n", "import sys\n\n\ndef inserted():\n    return 0\n", 1
    )
    path.write_text(text)
    git(repo, "commit", "-qam", "a function above the others")
    index(repo)
    res = run_cli("coverage", "import", "--commit", "main", "--json", "--repo", str(repo))
    assert res.exit_code == 0, res.output
    report = json.loads(res.stdout)
    assert report["commit"] == git(repo, "rev-parse", "main").strip()
    assert report["skipped_files"] == []
    assert "pkg/plugins.py::inserted" not in links_by_run_id(repo)[DYNAMIC]
    assert "pkg/plugins.py::handle_upper" in links_by_run_id(repo)[DYNAMIC]
    with Index.open(repo) as idx:
        hits = {t.uid: t for t in idx.impact("pkg/plugins.py::handle_upper", limit=0).tests}
    assert hits[DYNAMIC].stale and "changed since the observation at" in hits[DYNAMIC].stale_reason
    assert [f["path"] for f in _status(repo).stale_files] == ["pkg/plugins.py"]

    res = run_cli("coverage", "import", "--commit", "no-such-ref", "--repo", str(repo))
    assert res.exit_code == 2 and res.stderr.count("\n") == 1
    assert "--commit no-such-ref: not a commit of the repository" in res.stderr


def _status(repo: Path):
    with Index.open(repo) as idx:
        return coverage_status(idx)


# ------------------------------------------------------------------ storage and generations
def test_links_survive_reindexing_and_changed_files_are_reported_stale(copy_of):
    repo = copy_of()
    import_coverage(repo)
    before = links_by_run_id(repo)
    (repo / "pkg/lazy.py").write_text(
        (repo / "pkg/lazy.py").read_text() + "\n\ndef third():\n    return 3\n"
    )
    assert index(repo).mode == "incremental"
    assert links_by_run_id(repo) == before
    st = _status(repo)
    assert st.imported and [f["path"] for f in st.stale_files] == ["pkg/lazy.py"]
    assert "changed since the observation at" in st.stale_files[0]["reason"]
    assert st.stale_links == 1  # test_lazy -> first

    analyze(repo, IndexConfig(), RunOptions(workers=1, force=True))
    assert links_by_run_id(repo) == before  # --force rebuilds the graph, keeps the evidence
    res = run_cli("coverage", "status", "--repo", str(repo), "--json")
    data = json.loads(res.output)
    assert data["schema"] == "codeimpact.coverage-status/1" and data["stale_links"] == 1
    text = run_cli("coverage", "status", "--repo", str(repo)).output
    assert "  stale: 1 link\n  changed since the observation: 1 file\n" in text
    assert "\n    pkg/lazy.py changed since the observation at " in text  # the path once

    assert run_cli("coverage", "clear", "--repo", str(repo)).exit_code == 0
    assert read_observed(layout.index_dir(repo)) is None
    assert not _status(repo).imported


def test_damaged_links_are_refused_then_replaced_by_a_new_import(copy_of):
    repo = copy_of()
    import_coverage(repo)
    path = observed_path(layout.index_dir(repo))
    raw = bytearray(path.read_bytes())
    raw[-5] ^= 0xFF
    path.write_bytes(bytes(raw))
    with pytest.raises(CorruptIndex, match="fails its checksum"):
        read_observed(layout.index_dir(repo))
    res = run_cli("coverage", "status", "--repo", str(repo))
    assert res.exit_code == 2
    assert res.stderr.count("\n") == 1 and "graph coverage import" in res.stderr
    report = import_coverage(repo)
    assert report.replaced and links_by_run_id(repo)[DYNAMIC]


# ------------------------------------------------------------------ bad input
def test_bad_input_is_one_line_exit_2_and_keeps_the_earlier_import(copy_of, tmp_path):
    repo = copy_of()
    import_coverage(repo)
    kept = observed_path(layout.index_dir(repo)).read_bytes()
    (tmp_path / "text").write_text("not coverage data\n")
    plain = CoverageData(str(tmp_path / "nocontexts"))  # what `pytest --cov=pkg` records
    plain.add_lines({str(repo / "pkg/plugins.py"): [9, 13]})
    plain.write()
    static = CoverageData(str(tmp_path / "static"))  # `coverage run --context=test`
    static.set_context("test")
    static.add_lines({str(repo / "pkg/plugins.py"): [9, 13]})
    static.write()
    empty = CoverageData(str(tmp_path / "empty"))  # a run that measured nothing
    empty.add_lines({})
    empty.write()
    cases = {
        str(tmp_path / "missing"): "no coverage data at",
        str(tmp_path / "text"): "is not coverage.py data",
        str(tmp_path / "nocontexts"): "records no per-test contexts",
        str(tmp_path / "static"): "records only static contexts ('test'), which label",
        str(tmp_path / "empty"): "holds no measured files",
        str(tmp_path): "is not a coverage data file",
    }
    for data_file, message in cases.items():
        res = run_cli("coverage", "import", data_file, "--repo", str(repo))
        assert res.exit_code == 2, (data_file, res.output)
        assert res.stderr.count("\n") == 1 and message in res.stderr, res.stderr
        assert "Traceback" not in res.output
    res = run_cli("coverage", "import", str(tmp_path / "nocontexts"), "--repo", str(repo))
    assert "--cov-context=test" in res.stderr  # the message says how to record them
    assert observed_path(layout.index_dir(repo)).read_bytes() == kept


def test_contexts_of_another_repository_name_no_test(copy_of, make_repo, index_repo):
    measured_repo = copy_of()
    other = make_repo(
        {"app/x.py": "def f():\n    return 1\n", "tests/test_y.py": "def test_y():\n    pass\n"}
    )
    index_repo(other)
    with pytest.raises(BadInput, match="names a test of the index"):
        import_coverage(other, measured_repo / ".coverage")
    assert read_observed(layout.index_dir(other)) is None


def test_no_index_is_exit_2(copy_of):
    repo = copy_of()
    shutil.rmtree(repo / ".codeimpact")
    res = run_cli("coverage", "import", "--repo", str(repo))
    assert res.exit_code == 2 and "graph analyze" in res.stderr


# ------------------------------------------------------------------ contexts
@pytest.mark.parametrize(
    ("context", "expected"),
    [
        (
            "tests/t.py::TestC::test_y|run",
            ParsedContext("pytest", "tests/t.py", ("TestC", "test_y")),
        ),
        ("t.py::test_y[1-a|b]|setup", ParsedContext("pytest", "t.py", ("test_y",))),
        ("t.py::test_y", ParsedContext("pytest", "t.py", ("test_y",))),
        (
            "t.py::C::test_y[\\x1b[1;38:2::255m]|run",
            ParsedContext("pytest", "t.py", ("C", "test_y")),
        ),
        (
            "test_mod.TestC.test_y",
            ParsedContext("test_function", "", ("test_mod", "TestC", "test_y")),
        ),
        ("", None),
        # a static context (`--context=ci`) before the dynamic one, or alone
        ("ci|tests/t.py::test_y|run", ParsedContext("pytest", "tests/t.py", ("test_y",))),
        ("ci|test_mod.test_y", ParsedContext("test_function", "", ("test_mod", "test_y"))),
        ("ci", None),
        ("t.py::|run", None),
        ("not a name", None),
    ],
)
def test_parse_context(context, expected):
    assert parse_context(context) == expected


def test_a_held_lock_is_exit_5(copy_of):
    repo = copy_of()
    with layout.writer_lock(layout.index_dir(repo)):
        res = subprocess.run(
            [sys.executable, "-m", "codeimpact", "coverage", "import", "--repo", str(repo)],
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert res.returncode == 5 and "another `graph analyze`" in res.stderr


def test_a_body_with_no_statement_is_linked_by_its_call(tmp_path):
    """A docstring-only method records no line when it runs; with branch data the entry
    into its code object (an arc from -<its def line>) says which test called it, and a
    nested function only defined (not called) by a test is not linked to it."""
    repo = tmp_path / "silent"
    repo.mkdir()
    write_files(
        repo,
        {
            "pytest.ini": "[pytest]\n",
            "pkg/__init__.py": "",
            "pkg/visit.py": """
                class Visitor:
                    def visit_block(self, node):
                        \"\"\"Stop visiting at blocks.\"\"\"

                    def dispatch(self, name):
                        return getattr(self, "visit_" + name)(None)


                def outer(call):
                    def inner():
                        \"\"\"Only a docstring.\"\"\"

                    if call:
                        inner()
                    return inner
                """,
            "tests/test_visit.py": """
                from pkg.visit import Visitor, outer


                def test_dispatch():
                    Visitor().dispatch("block")


                def test_outer_calls():
                    outer(True)


                def test_outer_defines():
                    outer(False)
                """,
        },
    )
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "initial")
    run_pytest_cov(repo, "--cov=pkg", "--cov-branch", "--cov-context=test")
    index(repo)
    import_coverage(repo)
    links = links_by_run_id(repo)
    assert "pkg/visit.py::Visitor.visit_block" in links["tests/test_visit.py::test_dispatch"]
    assert "pkg/visit.py::outer.inner" in links["tests/test_visit.py::test_outer_calls"]
    assert links["tests/test_visit.py::test_outer_defines"] == {"pkg/visit.py::outer"}
