"""The gate: each check on real repositories, the JSON shape and the exit codes."""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner

from codeimpact.cli import main
from codeimpact.graph.errors import BadInput
from codeimpact.query.gate import allowed_by, gate, repo_relative
from conftest import write_files

FILES = {
    "src/app/core.py": "def f():\n    return 1\n",
    "src/app/util.py": "def g():\n    return 2\n",
    "docs/guide.md": "guide\n",
}


@pytest.fixture
def repo(make_repo, index_repo):
    root = make_repo(FILES)
    index_repo(root)
    return root


def checks(result) -> dict[str, bool]:
    return {c.name: c.passed for c in result.checks}


def test_everything_passes(repo):
    r = gate(
        repo,
        require_fresh=True,
        require_clean=True,
        allow=["src/**"],
        files=["src/app/core.py", "src/app/util.py"],
    )
    assert r.passed and r.reason is None
    assert checks(r) == {
        "index_fresh": True,
        "worktree_clean": True,
        "files_in_repo": True,
        "files_allowed": True,
        "files_exist": True,
        "files_indexed": True,
    }
    assert [c.name for c in r.checks] == list(checks(r))  # the documented, fixed order


def test_no_checks_asked_is_a_pass(repo):
    r = gate(repo)
    assert r.passed and r.checks == []


def test_dirty_tree_and_stale_index(repo):
    write_files(repo, {"src/app/core.py": "def f():\n    return 3\n", "scratch.txt": "x\n"})
    r = gate(repo, require_fresh=True, require_clean=True)
    assert not r.passed
    assert checks(r) == {"index_fresh": False, "worktree_clean": False}
    assert r.reason.startswith("index_fresh: ")
    clean = next(c for c in r.checks if c.name == "worktree_clean")
    assert "scratch.txt" in clean.detail and "src/app/core.py" in clean.detail


def test_files_outside_the_allowed_globs(repo):
    r = gate(repo, allow=["src/app/*.py"], files=["src/app/core.py", "docs/guide.md"])
    assert checks(r)["files_allowed"] is False
    assert r.reason == "files_allowed: outside src/app/*.py: docs/guide.md"


def test_paths_escaping_the_repository(repo, tmp_path):
    outside = tmp_path / "secret.py"
    outside.write_text("x = 1\n")
    os.symlink(outside, repo / "src/link.py")
    for bad in ("../secret.py", str(outside), "src/link.py", "src/../../secret.py"):
        r = gate(repo, allow=["**"], files=[bad])
        # Never looked at further: every later check fails for it as "not checked".
        assert checks(r) == {
            "files_in_repo": False,
            "files_allowed": False,
            "files_exist": False,
            "files_indexed": False,
        }, bad
        assert "outside the repository" in r.reason
        assert all("not checked" in c.detail for c in r.checks[1:])
    # An absolute path inside the repository is fine.
    r = gate(repo, files=[str(repo / "src/app/core.py")])
    assert r.passed, r.reason


def test_missing_and_unindexed_files(repo):
    write_files(repo, {"src/app/new.py": "def h():\n    return 1\n"})
    r = gate(repo, files=["src/app/gone.py", "src/app/new.py", "docs/guide.md"])
    assert checks(r) == {
        "files_in_repo": True,
        "files_exist": False,
        "files_indexed": False,
    }
    detail = {c.name: c.detail for c in r.checks}
    assert detail["files_exist"] == "missing: src/app/gone.py"
    assert detail["files_indexed"] == (
        "not indexed: src/app/gone.py, src/app/new.py, docs/guide.md"
    )


def test_no_index_fails_the_checks_that_need_one(make_repo):
    root = make_repo(FILES)
    r = gate(root, require_fresh=True, require_clean=True, files=["src/app/core.py"])
    assert checks(r) == {
        "index_fresh": False,
        "worktree_clean": True,
        "files_in_repo": True,
        "files_exist": True,
        "files_indexed": False,
    }
    assert "no index" in r.reason


def test_glob_semantics():
    assert allowed_by("src/a/b.py", ["src/**"])
    assert allowed_by("src/a/b.py", ["src"])  # a folder covers what is below it
    assert allowed_by("src/a/b.py", ["src/"])
    assert allowed_by("src/a/b.py", ["**/*.py"])
    assert allowed_by("b.py", ["**/*.py"])
    assert allowed_by("b.py", ["*.py"])
    assert not allowed_by("src/b.py", ["*.py"])  # * stays within one folder
    assert not allowed_by("srcx/b.py", ["src"])
    assert allowed_by("src/b1.py", ["src/b[0-9].py"])
    assert not allowed_by("src/bx.py", ["src/b[0-9].py"])


def test_repo_relative(tmp_path):
    root = tmp_path / "r"
    (root / "a").mkdir(parents=True)
    assert repo_relative(root, "a/../b.py") == "b.py"
    assert repo_relative(root, str(root / "a" / "x.py")) == "a/x.py"
    for bad in ("", "..", "../r2/x.py", "/", str(tmp_path)):
        with pytest.raises(BadInput):
            repo_relative(root, bad)


def test_cli_json_shape_and_exit_codes(repo):
    cli = CliRunner()
    ok = cli.invoke(main, ["gate", "--repo", str(repo), "--require-clean", "--json"])
    assert ok.exit_code == 0
    data = json.loads(ok.output)
    assert list(data) == ["schema", "pass", "reason", "checks", "freshness"]
    assert data["freshness"]["fresh"] is None  # not asked for: not checked
    assert data["schema"] == "codeimpact.gate/1" and data["pass"] is True
    assert data["checks"] == [
        {"name": "worktree_clean", "pass": True, "detail": "no changed or untracked files"}
    ]
    bad = cli.invoke(
        main, ["gate", "--repo", str(repo), "--allow", "docs/**", "--files", "src/app/core.py"]
    )
    assert bad.exit_code == 1 and "FAIL" in bad.output
    missing = cli.invoke(main, ["gate", "--repo", str(repo / "nope")])
    assert missing.exit_code == 2
