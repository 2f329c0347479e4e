"""How codeimpact runs git: never taking git's optional locks, and passing git's refusals on.

A wrapper named `git` first on PATH records each command line and runs the real
git, so the test sees every git call the commands make, whatever module makes it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time

import pytest

from conftest import GIT_ENV, git

GOOD = "def helper():\n    return 1\n\n\ndef ok():\n    return helper()\n"


def graph(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "codeimpact", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


def one_line_error(out: subprocess.CompletedProcess, code: int, text: str) -> None:
    assert out.returncode == code, (out.returncode, out.stderr)
    assert out.stderr.count("\n") == 1 and text in out.stderr, out.stderr
    assert "Traceback" not in out.stderr


@pytest.fixture
def logged_git(tmp_path):
    """(env with a logging `git` first on PATH, the log file)."""
    real = shutil.which("git")
    assert real
    bindir = tmp_path / "bin"
    bindir.mkdir()
    log = tmp_path / "git.log"
    wrapper = bindir / "git"
    wrapper.write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> {log}\nexec {real} "$@"\n')
    wrapper.chmod(0o755)
    env = {**os.environ, **GIT_ENV, "PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}"}
    return env, log


def test_every_git_call_skips_optional_locks(make_repo, logged_git):
    env, log = logged_git
    repo = make_repo({"pkg/a.py": GOOD, "pkg/b.py": "from pkg.a import ok\n\nok()\n"})
    git(repo, "checkout", "-q", "-b", "topic")
    (repo / "pkg/a.py").write_text(GOOD + "\n\ndef more():\n    return ok()\n")
    git(repo, "commit", "-qam", "more")
    (repo / "pkg/b.py").write_text("from pkg.a import ok\n\nok()\nok()\n")  # unstaged
    commands = [
        ("analyze", "--index-only", str(repo)),
        ("status", str(repo)),
        ("status", "--check", str(repo)),
        ("impact", "--repo", str(repo), "--json", "helper"),
        ("detect-changes", "--repo", str(repo), "--json"),
        ("detect-changes", "--repo", str(repo), "--base", "main"),
        ("review", "--repo", str(repo), "--base", "main"),
        ("provenance", "--repo", str(repo), "pkg/a.py"),
        ("gate", "--repo", str(repo), "--require-clean", "--files", "pkg/a.py"),
        ("analyze", "--index-only", str(repo)),  # incremental this time
    ]
    for args in commands:
        out = graph(*args, env=env)
        assert out.returncode in (0, 1), (args, out.stderr)
    calls = log.read_text().splitlines()
    assert len(calls) >= len(commands)
    without = [c for c in calls if not c.startswith("--no-optional-locks ")]
    assert without == []
    # the lock a git status would take when it refreshes the index is never made
    assert not (repo / ".git/index.lock").exists()


def test_a_run_records_the_commit_its_git_status_reported(make_repo, logged_git):
    # the Meta's commit is the `branch.oid` of the status the run takes anyway (worktree.py):
    # no `git rev-parse` process at the write phase, which the run waited for
    from codeimpact.graph import layout
    from codeimpact.indexer.files_state import load_files_state

    env, log = logged_git
    files = {f"pkg/m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(6)}
    repo = make_repo({**files, "pkg/a.py": GOOD, "pkg/b.py": "from pkg.a import ok\n\nok()\n"})
    (repo / "pkg/a.py").write_text(GOOD + "\n\ndef more():\n    return ok()\n")
    git(repo, "commit", "-qam", "more")  # HEAD is not the first commit
    head = git(repo, "rev-parse", "HEAD").strip()
    for mode, edit in (("full", None), ("incremental", "pkg/b.py")):
        if edit:
            (repo / edit).write_text("from pkg.a import ok\n\nok()\nok()\n")
        log.write_text("")
        out = graph("analyze", "--index-only", "--json", str(repo), env=env)
        assert out.returncode == 0, out.stderr
        assert f'"mode": "{mode}"' in out.stdout
        calls = log.read_text().splitlines()
        assert any(" status " in c for c in calls), calls
        assert not any("HEAD^{commit}" in c for c in calls), calls
        gen = layout.read_current(layout.index_dir(repo))
        assert load_files_state(gen.path).commit == head


@pytest.fixture
def foreign_repo(make_repo, tmp_path):
    """A repository owned by another user, and an env whose git config does not trust it."""
    if os.geteuid() != 0:
        pytest.skip("needs root to give the repository to another user")
    repo = make_repo({"a.py": GOOD})
    subprocess.run(["chown", "-R", "nobody", str(repo)], check=True)
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, **GIT_ENV, "HOME": str(home)}
    env.pop("GIT_CONFIG_GLOBAL", None)
    probe = subprocess.run(
        ["git", "-C", str(repo), "status"], capture_output=True, text=True, env=env
    )
    if "dubious ownership" not in probe.stderr:
        pytest.skip("this git does not check repository ownership")
    return repo, env


def test_dubious_ownership_is_passed_on(foreign_repo):
    repo, env = foreign_repo
    out = graph("analyze", "--index-only", str(repo), env=env)
    one_line_error(out, 2, "dubious ownership")
    assert "safe.directory" in out.stderr  # git's own fix, on the same line
    assert not (repo / ".codeimpact/CURRENT").exists()  # not indexed as a plain folder


def test_dubious_ownership_after_indexing_is_not_reported_as_fresh(foreign_repo, tmp_path):
    repo, env = foreign_repo
    trusted_home = tmp_path / "trusted"
    trusted_home.mkdir()
    trusting = {**env, "HOME": str(trusted_home)}
    subprocess.run(
        ["git", "config", "--global", "--add", "safe.directory", str(repo)],
        check=True,
        env=trusting,
    )
    assert graph("analyze", "--index-only", str(repo), env=trusting).returncode == 0
    assert graph("status", "--check", str(repo), env=trusting).returncode == 0
    one_line_error(graph("status", "--check", str(repo), env=env), 2, "dubious ownership")
    one_line_error(graph("detect-changes", "--repo", str(repo), env=env), 2, "dubious ownership")


def test_bad_base_and_not_a_repository(make_repo, tmp_path):
    repo = make_repo({"a.py": GOOD})
    assert graph("analyze", "--index-only", str(repo)).returncode == 0
    for command in ("detect-changes", "review"):
        out = graph(command, "--repo", str(repo), "--base", "no-such-branch")
        one_line_error(out, 2, "'no-such-branch' does not name a commit")
    plain = make_repo({"a.py": GOOD}, git_init=False)
    assert graph("analyze", "--index-only", str(plain)).returncode == 0  # indexed without git
    one_line_error(graph("detect-changes", "--repo", str(plain)), 2, "not a git repository")


def test_an_edit_asks_git_for_the_tracked_files_once(make_repo, logged_git):
    # the tree signature's digest of the tracked paths is taken from discover's listing when
    # git's index file is the one it listed (treesig._record_git_index): no second `git
    # ls-files`, even with an index file the user's git just rewrote (racy: the previous
    # signature's digest is not reused then)
    from codeimpact.graph import layout
    from codeimpact.graph.meta_files import meta_from_files
    from codeimpact.indexer.config import IndexConfig
    from codeimpact.indexer.treesig import TreeSignature, tracked_digest

    env, log = logged_git
    files = {f"pkg/m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(6)}
    repo = make_repo({**files, "pkg/a.py": GOOD, "pkg/b.py": "from pkg.a import ok\n\nok()\n"})
    assert graph("analyze", "--index-only", str(repo), env=env).returncode == 0
    (repo / "pkg/b.py").write_text("from pkg.a import ok\n\nok()\nok()\n")
    git(repo, "add", "pkg/b.py")  # git's index file rewritten: racy for the run
    log.write_text("")
    out = graph("analyze", "--index-only", "--json", str(repo), env=env)
    assert out.returncode == 0 and '"mode": "incremental"' in out.stdout, out.stderr
    calls = log.read_text().splitlines()
    assert sum(" ls-files " in f" {c} " for c in calls) == 1, calls
    gen = layout.read_current(layout.index_dir(repo))
    sig = TreeSignature.from_text(meta_from_files(gen.path)["tree_signature"])
    assert sig.tracked == tracked_digest(repo.resolve(), IndexConfig())


def test_a_signature_asks_git_when_the_index_changed_after_the_listing(make_repo):
    # git's index file rewritten between discover's listing and the signature: the listing's
    # tracked paths are not the index's any more, git is asked (a file added to the index)
    from codeimpact.indexer import discover, treesig
    from codeimpact.indexer.config import IndexConfig

    repo = make_repo({"a.py": GOOD}).resolve()
    (repo / "b.py").write_text(GOOD)
    found = discover.Untracked()
    config = IndexConfig()
    assert [f.path for f in discover.discover(repo, config, untracked=found)] == ["a.py", "b.py"]
    assert found.tracked is not None and found.tracked.tracked() == ["a.py"]

    def signed() -> str | None:
        sig = treesig.take(repo, config, {}, {}, time.time_ns(), True, listing=found.tracked)
        return sig.tracked

    assert signed() == treesig.names_digest(["a.py"])
    git(repo, "add", "b.py")
    assert (
        signed() == treesig.names_digest(["a.py", "b.py"]) == treesig.tracked_digest(repo, config)
    )
