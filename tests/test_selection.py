"""Tests to run = static ∪ observed: every tests list says why each test is there.

On the repository of `coverage_repo.py`, measured by a real pytest-cov run and
imported with `graph coverage import`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_test_ids import collected

from codeimpact.cli import main
from codeimpact.indexer.coverage_import import import_coverage
from codeimpact.query.index import Index
from conftest import git
from coverage_repo import DYNAMIC, NEVER, copy_measured, index

UPPER = "pkg/plugins.py::handle_upper"
TEST_UPPER = "tests/test_plugins.py::test_upper"
TEST_NEVER = "tests/test_plugins.py::test_never"


@pytest.fixture(scope="module")
def imported(coverage_measured, tmp_path_factory) -> Path:
    """The measured repository with its coverage imported (read-only: copy to change)."""
    repo = copy_measured(coverage_measured, tmp_path_factory.mktemp("sel") / "repo")
    import_coverage(repo)
    return repo


@pytest.fixture
def copy_of(imported, tmp_path):
    return lambda: copy_measured(imported, tmp_path / "repo")


def selected_tests(repo: Path, target: str, **kw) -> dict:
    with Index.open(repo) as idx:
        result = idx.impact(target, limit=0, **kw)
    return {t.uid: t for t in result.tests}, result


def test_the_union_adds_the_test_only_a_getattr_reaches_and_no_other(imported, copy_of):
    assert DYNAMIC == TEST_UPPER and NEVER == TEST_NEVER
    tests, result = selected_tests(imported, UPPER)
    hit = tests[TEST_UPPER]
    assert (hit.why, hit.reasons, hit.depth) == ("covered", ["covered"], None)
    assert hit.path == [TEST_UPPER, UPPER] and not hit.stale and hit.stale_reason is None
    assert TEST_NEVER not in tests  # it never runs handle_upper
    assert set(tests) == {TEST_UPPER}
    assert result.counts.tests == 1 and result.test_files == ["tests/test_plugins.py"]
    assert result.completeness.reasons == []

    fresh = copy_of()  # the same repository without the import: the graph alone
    (fresh / ".codeimpact/observed/links.bin").unlink()
    static, _ = selected_tests(fresh, UPPER)
    assert static == {}


def test_a_test_both_reaching_and_seen_says_both(imported):
    tests, _ = selected_tests(imported, "pkg/plugins.py::load")
    assert tests[TEST_UPPER].reasons == ["reaches", "covered"]
    assert tests[TEST_UPPER].why == "reaches" and tests[TEST_UPPER].depth == 1
    assert TEST_NEVER not in tests  # it names `load` without calling it: neither


def test_observed_coverage_marks_dependents_tested(imported, copy_of):
    """`api` calls `base`; only a getattr runs `api`: statically it is untested."""
    _, with_cov = selected_tests(imported, "pkg/util.py::base")
    assert [e.uid for g in with_cov.groups for e in g.entries] == ["pkg/util.py::api"]
    assert with_cov.counts.untested == 0
    fresh = copy_of()
    (fresh / ".codeimpact/observed/links.bin").unlink()
    _, static = selected_tests(fresh, "pkg/util.py::base")
    assert static.counts.untested == 1


def test_only_a_selection_following_calls_uses_observed_links(imported):
    tests, _ = selected_tests(imported, UPPER, relation="IMPORTS,REFERENCES")
    assert tests == {}
    tests, _ = selected_tests(imported, UPPER, min_confidence=1.0)  # an observed run is no guess
    assert TEST_UPPER in tests


def test_links_into_a_changed_file_are_stale_and_completeness_says_so(copy_of):
    repo = copy_of()
    path = repo / "pkg/plugins.py"
    path.write_text(path.read_text().replace("return value.upper()", "return value.title()"))
    index(repo)
    tests, result = selected_tests(repo, UPPER)
    hit = tests[TEST_UPPER]
    assert hit.stale and hit.why == "covered"
    assert hit.stale_reason.startswith("pkg/plugins.py changed since the observation at ")
    assert result.completeness.status == "lower-bound"
    assert any("stale" in r and "graph coverage import" in r for r in result.completeness.reasons)
    # a test that also reaches it in the graph rests on the graph: not stale
    load, _ = selected_tests(repo, "pkg/plugins.py::load")
    assert not load[TEST_UPPER].stale


def test_a_test_that_no_longer_exists_is_not_selected(copy_of):
    repo = copy_of()
    path = repo / "tests/test_plugins.py"
    path.write_text(path.read_text().replace("def test_upper(", "def test_upper_renamed("))
    index(repo)
    tests, _ = selected_tests(repo, UPPER)
    assert tests == {}  # its id would not run anything


def test_blast_radius_and_context_take_the_union(imported):
    with Index.open(imported) as idx:
        br = idx.blast_radius([UPPER, "pkg/util.py::base"], limit=0)
        ctx = idx.context(UPPER)
    assert {t.uid for t in br.tests} >= {TEST_UPPER, "tests/test_plugins.py::test_api"}
    assert ctx.test_count == 1 and ctx.tests[0].why == "covered"


def cli(*args: str) -> str:
    res = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return res.stdout


def test_detect_changes_selects_the_covered_test(copy_of):
    repo = copy_of()
    path = repo / "pkg/plugins.py"
    path.write_text(path.read_text().replace("return value.upper()", "return value.swapcase()"))
    data = json.loads(cli("detect-changes", "--json", "--repo", str(repo)))
    assert [s["uid"] for s in data["symbols"]] == [UPPER]
    assert [(t["uid"], t["why"], t["reasons"]) for t in data["tests"]] == [
        (TEST_UPPER, "covered", ["covered"])
    ]
    assert cli("detect-changes", "--tests-only", "--repo", str(repo)).split() == [TEST_UPPER]
    # the function changed since it was seen running: the index (not analyzed since) still
    # holds the measured content, the change does not, so the link is stale all the same
    (test,) = data["tests"]
    assert test["stale"] is True
    assert test["stale_reason"].startswith("pkg/plugins.py changed since the observation at ")
    assert test["stale_reason"].endswith("(in this change)")
    completeness = data["impact"]["completeness"]
    assert completeness["status"] == "lower-bound"
    assert any("stale" in r for r in completeness["reasons"])
    text = cli("detect-changes", "--repo", str(repo))
    assert f"{TEST_UPPER}  (stale: seen running it before the change)" in text
    assert "completeness: lower-bound" in text


def test_tests_only_names_the_subclass_that_runs_an_inherited_test(copy_of):
    """`TestSub` inherits `Shared.test_shared`; only coverage knows the node id that runs it,
    and pytest collects exactly what --tests-only prints."""
    repo = copy_of()
    path = repo / "pkg/plugins.py"
    path.write_text(path.read_text().replace("return value.lower()", "return value.casefold()"))
    shared = "tests/test_inherit.py::TestSub::test_shared"
    ids = cli("detect-changes", "--tests-only", "--repo", str(repo)).split()
    assert ids == [shared]
    assert cli(
        "blast-radius", "pkg/plugins.py::handle_lower", "--tests-only", "--repo", str(repo)
    ).split() == [shared]
    data = json.loads(cli("detect-changes", "--json", "--repo", str(repo)))
    covered = [t for t in data["tests"] if t["run_id"] == shared]
    assert [(t["uid"], t["why"]) for t in covered] == [
        ("tests/test_inherit.py::Shared.test_shared", "covered")
    ]
    code, nodes = collected(repo, ids)
    assert code == 0 and nodes == {f"{shared}[A]", f"{shared}[B]"}


def test_review_lists_covered_tests_with_why(copy_of):
    repo = copy_of()
    git(repo, "checkout", "-q", "-b", "feature")
    path = repo / "pkg/plugins.py"
    path.write_text(path.read_text().replace("return value.upper()", "return value.swapcase()"))
    git(repo, "commit", "-qam", "upper")
    before = json.loads(cli("review", "--base", "main", "--json", "--repo", str(repo)))
    assert [t["stale"] for t in before["tests_to_run"]] == [True]  # not analyzed yet
    index(repo)
    data = json.loads(cli("review", "--base", "main", "--json", "--repo", str(repo)))
    assert [(t["uid"], t["why"]) for t in data["tests_to_run"]] == [(TEST_UPPER, "covered")]
    assert data["run_ids"] == [TEST_UPPER]
    (item,) = data["symbols"]
    assert item["tests"] == [TEST_UPPER] and item["tested"] is True
    # observed at main, reviewed at feature: the link into the changed file is stale
    assert data["tests_to_run"][0]["stale"] is True


def test_a_question_refuses_damaged_links(copy_of):
    repo = copy_of()
    path = repo / ".codeimpact/observed/links.bin"
    path.write_bytes(path.read_bytes()[:-7])  # truncated
    for args in (["impact", UPPER], ["context", UPPER], ["blast-radius", UPPER]):
        res = CliRunner().invoke(main, [*args, "--repo", str(repo)], catch_exceptions=False)
        assert res.exit_code == 2, res.output
        assert res.stderr.count("\n") == 1 and "observed coverage" in res.stderr
        assert "graph coverage clear" in res.stderr and res.stdout == ""


def mcp(repo: Path, name: str, args: dict) -> dict:
    from codeimpact import tools

    tool = tools.get(name)
    with Index.open(repo) as index:
        return tools.answer(index, tool, tools.prepare(tool, args))


def mcp_impact(repo: Path, target: str) -> dict:
    return mcp(repo, "impact", {"target": target})


def test_an_agent_is_told_why_and_what_is_stale(imported, copy_of):
    reply = mcp_impact(imported, UPPER)
    assert reply["tests"]["items"] == [TEST_UPPER]
    assert reply["tests_why"] == {TEST_UPPER: "covered"} and reply["tests_stale"] == []
    assert (
        "1 test in 1 file reaches it (1 only seen running it by observed coverage)"
        in (reply["summary"])
    )
    why = mcp_impact(imported, "pkg/plugins.py::load")["tests_why"]
    assert why[TEST_UPPER] == "reaches+covered" and TEST_NEVER not in why  # a graph path only

    repo = copy_of()
    path = repo / "pkg/plugins.py"
    path.write_text(path.read_text().replace("return value.upper()", "return value.title()"))
    index(repo)
    reply = mcp_impact(repo, UPPER)
    assert reply["tests_stale"] == [TEST_UPPER]
    assert reply["completeness"]["status"] == "lower-bound"
    assert "stale" in reply["completeness"]["reasons"][0]
    assert reply["summary"].endswith(
        "a lower bound (1 of 1 tests are selected only by observed coverage that is stale)"
    )
    # a change the index has not seen: detect_changes says it too
    path.write_text(path.read_text().replace("value.title()", "value.swapcase()"))
    reply = mcp(repo, "detect_changes", {})
    assert reply["run_ids"]["items"] == [TEST_UPPER]
    assert reply["tests_why"] == {TEST_UPPER: "covered"} and reply["tests_stale"] == [TEST_UPPER]
    assert "stale" in reply["completeness"]["reasons"][0]
