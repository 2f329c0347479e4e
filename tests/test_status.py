"""`graph status` and the freshness block: real repositories, real indexes, real git."""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time

import pytest
from click.testing import CliRunner

from codeimpact.cli import main
from codeimpact.graph import layout
from codeimpact.graph.errors import StaleIndex
from codeimpact.indexer import worktree
from codeimpact.indexer.config import IndexConfig
from codeimpact.indexer.discover import Untracked, discover
from codeimpact.query.freshness import freshness
from codeimpact.query.index import Index
from codeimpact.query.status import collect
from conftest import git, write_files

FILES = {
    "pkg/__init__.py": "",
    "pkg/a.py": "def f():\n    return 1\n",
    "pkg/b.py": "from pkg.a import f\n\ndef g():\n    return f()\n",
    "README.md": "# demo\n",
}


def both(repo):
    """(exact status, cheap status) of the index at `repo`; they must agree on freshness."""
    with Index.open(repo) as index:
        exact = collect(index, exact=True)
        cheap = collect(index, exact=False)
        fr = freshness(index)
    assert fr.fresh == cheap.fresh and fr.reasons == cheap.reasons
    return exact, cheap


def drift(st) -> tuple[list, list, list]:
    return st.drift.changed, st.drift.added, st.drift.deleted


def run_cli(*args, env=None):
    return CliRunner().invoke(main, list(args), env=env, catch_exceptions=False)


def commit_all(repo, message="change"):
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


# --------------------------------------------------------------------- basics
def test_fresh_after_analyze_check_and_json_shape(make_repo, index_repo):
    repo = make_repo(FILES)
    index_repo(repo)
    res = run_cli("status", str(repo), "--check")
    assert res.exit_code == 0, res.output
    assert res.stdout == ""

    res = run_cli("status", str(repo), "--json")
    assert res.exit_code == 0
    data = json.loads(res.stdout)
    assert list(data)[0] == "schema" and data["schema"] == "codeimpact.status/1"
    assert data["fresh"] is True and data["reasons"] == []
    assert data["schema_version"] == {"indexed": 1, "current": 1, "ok": True}
    assert data["identity"]["current"] is True and data["identity"]["changed"] == []
    head = git(repo, "rev-parse", "HEAD").strip()
    assert data["commit"] == {
        "git": True,
        "indexed": head,
        "head": head,
        "behind": 0,
        "ahead": 0,
        "branch": "main",
        "detached": False,
        "shallow": False,
    }
    assert data["drift"] == {
        "exact": True,
        "known": True,
        "changed": [],
        "added": [],
        "deleted": [],
        "method": "rehash",
    }
    assert data["incomplete"] == [] and data["analyzing"] is None
    assert data["generation"] >= 1 and data["indexed_at"].endswith("Z")

    res = run_cli("status", str(repo))
    assert res.exit_code == 0 and "fresh:" in res.stdout and "yes" in res.stdout


def test_edits_additions_and_deletions_are_named(make_repo, index_repo):
    repo = make_repo(FILES)
    index_repo(repo)
    (repo / "pkg/a.py").write_text("def f():\n    return 2\n")
    (repo / "pkg/c.py").write_text("x = 1\n")
    (repo / "pkg/b.py").unlink()
    exact, cheap = both(repo)
    for st in (exact, cheap):
        assert st.fresh is False
        assert drift(st) == (["pkg/a.py"], ["pkg/c.py"], ["pkg/b.py"])
    assert exact.drift.exact and not cheap.drift.exact
    assert any("pkg/a.py" in r and "changed" in r for r in exact.reasons)

    res = run_cli("status", str(repo), "--check")
    assert res.exit_code == 1
    assert res.stdout == ""
    assert "pkg/a.py" in res.stderr and "pkg/c.py" in res.stderr and "pkg/b.py" in res.stderr

    index_repo(repo)
    exact, cheap = both(repo)
    assert exact.fresh and cheap.fresh


def test_staged_changes_count_too(make_repo, index_repo):
    repo = make_repo(FILES)
    index_repo(repo)
    (repo / "pkg/a.py").write_text("def f():\n    return 3\n")
    git(repo, "add", "pkg/a.py")
    for st in both(repo):
        assert drift(st) == (["pkg/a.py"], [], [])


def test_files_that_are_not_indexed_do_not_make_it_stale(make_repo, index_repo):
    repo = make_repo({**FILES, ".gitignore": "build/\n"})
    index_repo(repo)
    (repo / "README.md").write_text("# changed\n")
    write_files(
        repo,
        {
            "build/gen.py": "x = 1\n",  # ignored by .gitignore
            "node_modules/m.py": "y = 1\n",  # always skipped
            "notes.txt": "not a source file\n",
        },
    )
    for st in both(repo):
        assert st.fresh, st.reasons


def test_changes_present_at_indexing_then_reverted(make_repo, index_repo):
    repo = make_repo(FILES)
    (repo / "pkg/a.py").write_text("def f():\n    return 'dirty'\n")
    (repo / "pkg/new.py").write_text("z = 1\n")
    index_repo(repo)
    for st in both(repo):
        assert st.fresh, st.reasons
    with Index.open(repo) as index:
        assert set(index.meta["dirty"]) == {"pkg/a.py", "pkg/new.py"}
        assert index.meta["dirty_digest"] == worktree.dirty_digest(index.meta["dirty"])

    git(repo, "checkout", "-q", "--", "pkg/a.py")  # back to HEAD's content
    (repo / "pkg/new.py").unlink()
    for st in both(repo):
        assert drift(st) == (["pkg/a.py"], [], ["pkg/new.py"])


def test_freshness_check_does_not_write_into_git(make_repo, index_repo):
    repo = make_repo(FILES)
    index_repo(repo)
    # same content, new mtime: a plain `git status` would refresh (rewrite) .git/index
    future = time.time() + 5
    os.utime(repo / "pkg/a.py", (future, future))
    before = (repo / ".git/index").stat().st_mtime_ns
    for st in both(repo):
        assert st.fresh
    assert (repo / ".git/index").stat().st_mtime_ns == before


# --------------------------------------------------------------------- commits
def test_head_moving_is_reported_with_the_distance(make_repo, index_repo):
    repo = make_repo(FILES)
    index_repo(repo)
    indexed = git(repo, "rev-parse", "HEAD").strip()
    (repo / "README.md").write_text("# one\n")
    commit_all(repo, "one")
    (repo / "pkg/a.py").write_text("def f():\n    return 9\n")
    commit_all(repo, "two")
    exact, cheap = both(repo)
    for st in (exact, cheap):
        assert st.fresh is False
        assert st.commit.indexed == indexed and st.commit.behind == 2 and st.commit.ahead == 0
        assert any("HEAD moved" in r and "2 commits behind" in r for r in st.reasons)
    assert drift(exact) == (["pkg/a.py"], [], [])  # the exact check still names the file
    assert cheap.drift.known is False

    index_repo(repo)
    for st in both(repo):
        assert st.fresh, st.reasons


def test_detached_head_going_back(make_repo, index_repo):
    repo = make_repo(FILES)
    (repo / "pkg/a.py").write_text("def f():\n    return 2\n")
    commit_all(repo)
    index_repo(repo)
    git(repo, "checkout", "-q", "--detach", "HEAD~1")
    exact, cheap = both(repo)
    for st in (exact, cheap):
        assert st.commit.detached is True and st.commit.branch is None
        assert st.commit.behind == 0 and st.commit.ahead == 1
        assert not st.fresh
    assert drift(exact) == (["pkg/a.py"], [], [])

    index_repo(repo)
    exact, cheap = both(repo)
    assert exact.fresh and cheap.fresh and exact.commit.detached
    res = run_cli("status", str(repo))
    assert "detached HEAD" in res.stdout


def test_shallow_clone(make_repo, index_repo, tmp_path):
    src = make_repo(FILES)
    for i in range(3):
        (src / "README.md").write_text(f"# {i}\n")
        commit_all(src, f"c{i}")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{src}", str(clone))
    index_repo(clone)
    exact, cheap = both(clone)
    assert exact.fresh and cheap.fresh
    assert exact.commit.shallow is True

    (src / "pkg/a.py").write_text("def f():\n    return 5\n")
    commit_all(src, "upstream")
    git(clone, "fetch", "-q", "--depth", "1", "origin", "main")
    git(clone, "reset", "-q", "--hard", "FETCH_HEAD")
    exact, cheap = both(clone)
    assert not exact.fresh and not cheap.fresh
    assert any("HEAD moved" in r for r in exact.reasons)
    assert drift(exact) == (["pkg/a.py"], [], [])


def test_empty_repository_before_and_after_the_first_commit(make_repo, index_repo):
    repo = make_repo(FILES, commit=False)
    index_repo(repo)
    exact, cheap = both(repo)
    for st in (exact, cheap):
        assert st.fresh, st.reasons
        assert st.commit.git and st.commit.indexed is None and st.commit.head is None
        assert st.commit.branch == "main"
    (repo / "pkg/a.py").write_text("def f():\n    return 7\n")
    for st in both(repo):
        assert drift(st) == (["pkg/a.py"], [], [])

    commit_all(repo, "first")
    for st in both(repo):
        assert any("indexed before any commit" in r for r in st.reasons)
    index_repo(repo)
    for st in both(repo):
        assert st.fresh


def test_repository_without_python_files(make_repo, index_repo):
    repo = make_repo({"README.md": "# nothing to index\n", "data.json": "{}\n"})
    report = index_repo(repo)
    assert report.files == 0
    for st in both(repo):
        assert st.fresh
    (repo / "tool.py").write_text("print('hi')\n")
    for st in both(repo):
        assert drift(st) == ([], ["tool.py"], [])
    res = run_cli("status", str(repo))
    assert res.exit_code == 0 and "1 added" in res.stdout


def test_directory_outside_git(make_repo, index_repo):
    repo = make_repo(FILES, git_init=False)
    index_repo(repo)
    exact, cheap = both(repo)
    for st in (exact, cheap):
        assert st.fresh, st.reasons
        assert st.commit.git is False
        assert st.commit.indexed is None and st.commit.head is None
        assert st.commit.behind is None and st.commit.branch is None
    with Index.open(repo) as index:
        assert index.meta["dirty"] is None and index.meta["dirty_digest"]
    (repo / "pkg/a.py").write_text("def f():\n    return 0\n")
    (repo / "pkg/b.py").unlink()
    for st in both(repo):
        assert drift(st) == (["pkg/a.py"], [], ["pkg/b.py"])
    res = run_cli("status", str(repo), "--json")
    assert json.loads(res.stdout)["commit"]["indexed"] is None


def test_subfolder_of_a_git_repository(make_repo, index_repo):
    top = make_repo({"other.py": "x = 1\n", "sub/pkg/__init__.py": "", "sub/pkg/m.py": "y = 1\n"})
    repo = top / "sub"
    index_repo(repo)
    for st in both(repo):
        assert st.fresh, st.reasons
    (top / "other.py").write_text("x = 2\n")  # outside the indexed folder
    for st in both(repo):
        assert st.fresh, st.reasons
    (repo / "pkg/m.py").write_text("y = 2\n")
    (repo / "pkg/n.py").write_text("z = 2\n")
    for st in both(repo):
        assert drift(st) == (["pkg/m.py"], ["pkg/n.py"], [])


# -------------------------------------------------------------------- identity
def test_identity_change_names_the_component(make_repo, index_repo, monkeypatch):
    repo = make_repo(FILES)
    index_repo(repo)
    monkeypatch.setenv("CODEIMPACT_IDENTITY_OVERRIDE", json.dumps({"tree_sitter": "99.0"}))
    for st in both(repo):
        assert not st.fresh and not st.identity.current
        assert [c["component"] for c in st.identity.changed] == ["tree_sitter"]
        assert st.identity.changed[0]["current"] == "99.0"
        assert any("tree_sitter" in r for r in st.reasons)

    monkeypatch.setenv("CODEIMPACT_IDENTITY_OVERRIDE", json.dumps({"extractors.python": 99}))
    exact, _ = both(repo)
    assert [c["component"] for c in exact.identity.changed] == ["extractors.python"]

    res = subprocess.run(
        ["graph", "status", "--check", str(repo)],
        capture_output=True,
        text=True,
        env={**os.environ, "CODEIMPACT_IDENTITY_OVERRIDE": json.dumps({"kuzu": "0.0.1"})},
    )
    assert res.returncode == 1 and "kuzu" in res.stderr

    # re-indexing under the new identity makes it current again
    monkeypatch.setenv("CODEIMPACT_IDENTITY_OVERRIDE", json.dumps({"kuzu": "0.0.1"}))
    index_repo(repo)
    for st in both(repo):
        assert st.fresh, st.reasons


def test_malformed_identity_override_is_an_error(make_repo, index_repo, monkeypatch):
    repo = make_repo(FILES)
    index_repo(repo)
    res = run_cli("status", str(repo), env={"CODEIMPACT_IDENTITY_OVERRIDE": "[1, 2]"})
    assert res.exit_code == 2 and "CODEIMPACT_IDENTITY_OVERRIDE" in res.stderr


def test_status_judges_with_the_config_the_index_was_built_with(make_repo, index_repo):
    big = "x = 1\n" * 50
    repo = make_repo({**FILES, "pkg/big.py": big})
    index_repo(repo, max_file_size=100, ignore=("pkg/b.py",))
    exact, cheap = both(repo)
    for st in (exact, cheap):
        assert st.identity.current
        assert drift(st) == ([], [], [])  # big.py stays skipped, b.py stays ignored
        assert st.incomplete == [
            {"code": "file_too_large", "path": "pkg/big.py", "detail": "300 bytes > 100"}
        ]
        assert any("not fully indexed" in r and "pkg/big.py" in r for r in st.reasons)
    (repo / "pkg/big.py").write_text(big + "y = 2\n")  # still too large, but a new size
    (repo / "pkg/b.py").write_text("changed = True\n")  # ignored: no drift
    for st in both(repo):
        assert drift(st) == (["pkg/big.py"], [], [])


# ------------------------------------------------------------------ incomplete
def test_incomplete_files_make_it_stale_and_are_named(make_repo, index_repo):
    repo = make_repo(
        {**FILES, "pkg/broken.py": "def broken(:\n    pass\n", "pkg/blob.py": b"\x00\x01binary"}
    )
    index_repo(repo)
    exact, _ = both(repo)
    codes = {(r["code"], r["path"]) for r in exact.incomplete}
    assert codes == {("parse_error", "pkg/broken.py"), ("binary", "pkg/blob.py")}
    assert not exact.fresh
    res = run_cli("status", str(repo), "--check")
    assert res.exit_code == 1 and "pkg/broken.py" in res.stderr


# --------------------------------------------------------------- the file set
def test_worktree_file_set_is_discovers(make_repo, tmp_path):
    outside = tmp_path / "outside.py"
    outside.write_text("secret = 1\n")
    files = {
        **FILES,
        ".gitignore": "ignored/\n*.gen.py\n",
        "ignored/x.py": "x = 1\n",
        "pkg/y.gen.py": "y = 1\n",
        "node_modules/z.py": "z = 1\n",
        ".venv/lib.py": "v = 1\n",
        "pkg/skipme.py": "s = 1\n",
    }
    for git_init in (True, False):
        repo = make_repo(files, git_init=git_init, commit=False)
        os.symlink(repo / "pkg/a.py", repo / "pkg/link.py")
        os.symlink(outside, repo / "pkg/out.py")
        os.symlink(repo / "pkg", repo / "pkglink")
        config = IndexConfig(ignore=("pkg/skipme.py",))
        expected = {sf.path for sf in discover(repo, config)}
        wt = worktree.scan(repo, config)
        assert wt.in_git is git_init
        got = {p for p, e in wt.dirty.items() if e != worktree.ABSENT}
        assert got == expected
        assert "pkg/link.py" in got and "pkg/out.py" not in got and "pkg/skipme.py" not in got


def test_digest_depends_on_paths_and_contents():
    base = {"a.py": "h1", "b.py": "h2"}
    d = worktree.dirty_digest(base)
    assert d == worktree.dirty_digest(dict(reversed(list(base.items()))))
    assert d != worktree.dirty_digest({"a.py": "h1", "b.py": "h3"})
    assert d != worktree.dirty_digest({"a.py": "h1", "c.py": "h2"})
    assert d != worktree.dirty_digest({"a.py": "h1"})
    assert worktree.dirty_digest({"ab": "c"}) != worktree.dirty_digest({"a": "bc"})


# -------------------------------------------------------------- require-fresh
def test_require_fresh_refuses_a_stale_index(make_repo, index_repo):
    repo = make_repo(FILES)
    index_repo(repo)
    Index.open(repo, require_fresh=True).close()
    (repo / "pkg/a.py").write_text("def f():\n    return 4\n")
    with pytest.raises(StaleIndex, match="pkg/a.py"):
        Index.open(repo, require_fresh=True)
    res = run_cli("search", "f", "--repo", str(repo), "--require-fresh")
    assert res.exit_code == 1 and "pkg/a.py" in res.stderr
    assert run_cli("search", "f", "--repo", str(repo)).exit_code == 0


# ------------------------------------------------------------------ no index
def test_no_index_and_bad_paths(make_repo, tmp_path):
    repo = make_repo(FILES)
    for args in (["status", str(repo)], ["status", "--check", str(repo)]):
        res = run_cli(*args)
        assert res.exit_code == 2
        assert f"graph analyze {repo}" in res.stderr
    res = run_cli("status", str(tmp_path / "missing"))
    assert res.exit_code == 2 and "no such directory" in res.stderr


# ----------------------------------------------------------------------- clean
def test_clean_removes_the_index(make_repo, index_repo, tmp_path):
    repo = make_repo(FILES)
    index_repo(repo)
    res = run_cli("clean", str(repo))
    assert res.exit_code == 0 and "removed" in res.stdout
    assert not (repo / ".codeimpact").exists()
    assert run_cli("status", str(repo)).exit_code == 2
    res = run_cli("clean", str(repo))
    assert res.exit_code == 0 and "no index" in res.stdout

    # a .codeimpact that is a link: the link goes, never what it points to
    target = tmp_path / "elsewhere"
    target.mkdir()
    (target / "keep.txt").write_text("keep")
    os.symlink(target, repo / ".codeimpact")
    assert run_cli("clean", str(repo)).exit_code == 0
    assert not (repo / ".codeimpact").exists() and (target / "keep.txt").exists()


# ------------------------------------------------------------------------ lock
def test_second_analyze_is_refused_or_waits(make_repo, index_repo):
    repo = make_repo(FILES)
    index_repo(repo)
    idx = layout.index_dir(repo)
    entered = threading.Event()
    release = threading.Event()

    def hold():
        with layout.writer_lock(idx):
            entered.set()
            release.wait(60)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert entered.wait(10)
        res = subprocess.run(["graph", "analyze", str(repo)], capture_output=True, text=True)
        assert res.returncode == 5
        assert res.stderr.count("\n") == 1 and "another `graph analyze`" in res.stderr
        assert f"pid {os.getpid()}" in res.stderr and "--wait" in res.stderr
        assert run_cli("clean", str(repo)).exit_code == 5

        # queries still answer, and status says an analyze is running
        with Index.open(repo) as index:
            st = collect(index)
            assert index.search("f")
        assert st.analyzing is not None and st.analyzing["pid"] == os.getpid()
        assert st.fresh  # a write in progress is not by itself a reason

        waiting = subprocess.Popen(
            ["graph", "analyze", "--wait", "120", str(repo)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        time.sleep(1.0)  # let it reach the lock; the outcome does not depend on this
        release.set()
        holder.join()
        out, err = waiting.communicate(timeout=120)
        assert waiting.returncode == 0, err
    finally:
        release.set()
        holder.join()
    assert both(repo)[0].analyzing is None


def test_a_file_changed_while_analyze_ran_is_recorded_dirty(make_repo):
    # The analyze read one content, git status ran after the file went back to HEAD's:
    # the recorded dirty set must still hold the file, or the stale index looks fresh.
    repo = make_repo(FILES)
    config = IndexConfig()
    read = {sf.path: ("0" * 16, 1) for sf in discover(repo, config)}
    fields = worktree.index_fields(repo, config, read)
    assert set(fields["dirty"]) == set(read)
    assert fields["worktree"]["head"] == git(repo, "rev-parse", "HEAD").strip()

    honest = {}
    for p in read:
        rr = worktree.read_source(str(repo), p, config.max_file_size)
        honest[p] = (rr.content_hash, rr.size)
    assert worktree.index_fields(repo, config, honest)["dirty"] == {}


def test_untracked_files_come_from_the_listing_before_the_read(make_repo, index_repo):
    # A run's git status lists tracked files only; the untracked ones come from discover's
    # `git ls-files`, taken before the files were read. The recorded set must equal what a
    # whole `git status` (with its untracked walk) says of the same tree.
    repo = make_repo(FILES)
    (repo / "pkg/new.py").write_text("z = 1\n")
    (repo / "pkg/a.py").write_text("def f():\n    return 'dirty'\n")
    index_repo(repo)
    with Index.open(repo) as index:
        assert index.meta["dirty"] == worktree.scan(repo, IndexConfig()).dirty
        assert set(index.meta["dirty"]) == {"pkg/a.py", "pkg/new.py"}

    # an untracked file that appears after the listing (while a run reads the files) is in
    # neither list: the recorded set lacks it, and a later check, which lists it, calls the
    # index stale, as it is (the file was not indexed)
    config = IndexConfig()
    listed = Untracked()
    read = {}
    for sf in discover(repo, config, None, listed):
        rr = worktree.read_source(str(repo), sf.path, config.max_file_size)
        read[sf.path] = (rr.content_hash, rr.size)
    assert listed.paths == {"pkg/new.py"}
    (repo / "pkg/late.py").write_text("w = 2\n")
    fields = worktree.index_fields(
        repo, config, read, probe=worktree.StatusProbe(repo, listed.paths)
    )
    assert set(fields["dirty"]) == {"pkg/a.py", "pkg/new.py"}
    assert fields["dirty_digest"] != worktree.scan(repo, config).dirty_digest
    (repo / "pkg/late.py").unlink()
    assert fields["dirty_digest"] == worktree.scan(repo, config).dirty_digest


def test_an_edit_takes_the_tree_fields_beside_the_run(make_repo, index_repo):
    # an incremental run's git status, stat pass and tree signature run in a child forked
    # as the run begins (worktree.EarlyFields): what it records is what the write would
    repo = make_repo(
        {**FILES, **{f"pkg/m{i}.py": f"def m{i}():\n    return {i}\n" for i in range(12)}}
    )
    index_repo(repo)
    (repo / "pkg/a.py").write_text("def f():\n    return 'dirty'\n")
    (repo / "pkg/new.py").write_text("z = 1\n")
    report = index_repo(repo)
    assert report.mode == "incremental" and report.forks["tree fields"] == "forked"
    with Index.open(repo) as index:
        assert index.meta["dirty"] == worktree.scan(repo, IndexConfig()).dirty
        assert set(index.meta["dirty"]) == {"pkg/a.py", "pkg/new.py"}
        assert index.meta["tree_signature"]
    for st in both(repo):
        assert st.fresh, st.reasons
    with Index.open(repo) as index:
        assert freshness(index).method == "stat"  # the signature taken by the child decides
    (repo / "pkg/b.py").write_text("def g():\n    return 0\n")
    for st in both(repo):
        assert not st.fresh


def test_search_and_cypher_json_carry_freshness(make_repo, index_repo):
    repo = make_repo(FILES)
    index_repo(repo)
    queries = (
        ["search", "f", "--repo", str(repo), "--json"],
        ["cypher", "MATCH (s:Symbol) RETURN count(*)", "--repo", str(repo), "--json"],
    )
    for args in queries:
        data = json.loads(run_cli(*args).stdout)
        assert data["freshness"] == {"fresh": True, "reasons": [], "method": "stat"}
    (repo / "pkg/b.py").write_text("def g():\n    return 0\n")
    for args in queries:
        data = json.loads(run_cli(*args).stdout)
        assert data["freshness"]["fresh"] is False
        assert any("pkg/b.py" in r for r in data["freshness"]["reasons"])
