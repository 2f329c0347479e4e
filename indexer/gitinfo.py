"""Running git, and the few facts about a git work tree that the indexer records.

Every git command codeimpact runs goes through `run_git` (or `start_git` for one
read later), which adds `--no-optional-locks`: a `graph` running in the
background must never take `.git/index.lock` (git status refreshes the index
file when it may), or the user's own `git commit` at that moment fails on it.

git's messages are read in the C locale, so "not a git repository" (the one
failure that only means "index this folder without git") can be told from the
others ("detected dubious ownership", a bad revision, a damaged repository),
which are passed on to the user as one line (`GitError`, exit 2).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path

from codeimpact.graph.errors import GitError

GIT_TIMEOUT = 60
NOT_A_REPOSITORY = "not a git repository"


@cache
def _git_env() -> dict[str, str]:
    # English messages (see the module docstring); the rest of the environment as it is
    env = dict(os.environ)
    env["LC_ALL"] = "C"
    env.pop("LANGUAGE", None)
    return env


def git_argv(repo: Path, args: Sequence[str]) -> list[str]:
    return ["git", "--no-optional-locks", "-C", str(repo), *args]


def run_git(
    repo: Path, *args: str, stdin: bytes | None = None, timeout: float = GIT_TIMEOUT
) -> subprocess.CompletedProcess:
    """git `args` in `repo`, output captured as bytes; OSError when git cannot be run,
    subprocess.TimeoutExpired after `timeout` seconds. The exit code is the caller's."""
    return subprocess.run(
        git_argv(repo, args), input=stdin, capture_output=True, timeout=timeout, env=_git_env()
    )


def start_git(repo: Path, *args: str) -> subprocess.Popen:
    """git `args` in `repo`, started now; stdout and stderr are pipes to read later."""
    return subprocess.Popen(
        git_argv(repo, args),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_git_env(),
    )


def run_git_meanwhile(repo: Path, args: Sequence[str], meanwhile: Callable[[], object],
                      timeout: float = GIT_TIMEOUT) -> subprocess.CompletedProcess:  # fmt: skip
    """`run_git`'s answer, with `meanwhile()` called while git runs: the caller's own work
    where it would wait (git runs on another core). git is killed and reaped when
    `meanwhile` raises or git outlives `timeout` (subprocess.TimeoutExpired, as run_git)."""
    with start_git(repo, *args) as proc:
        try:
            meanwhile()
            out, err = proc.communicate(timeout=timeout)
        except BaseException:
            proc.kill()
            proc.communicate()
            raise
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def not_a_repository(stderr: bytes) -> bool:
    """Whether git failed only because the folder is not inside a work tree."""
    return NOT_A_REPOSITORY.encode() in stderr


def git_error(args: Sequence[str], returncode: int, stderr: bytes) -> GitError:
    """git's own message as one line: its first line, and the fix it suggests."""
    lines = [ln.strip() for ln in stderr.decode("utf-8", "replace").splitlines() if ln.strip()]
    first = lines[0].removeprefix("fatal: ").removeprefix("error: ") if lines else ""
    message = f"git {args[0]}: {first or f'exit {returncode}'}"
    if "dubious ownership" in first:
        fix = next((ln for ln in lines if ln.startswith("git config")), None)
        if fix:
            message += f" (if you trust it: {fix})"
    return GitError(message)


def checked(args: Sequence[str], out: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    """`out` if git succeeded, else GitError with git's message."""
    if out.returncode != 0:
        raise git_error(args, out.returncode, out.stderr)
    return out


def try_git(
    repo: Path, *args: str, stdin: bytes | None = None, ok_codes: tuple[int, ...] = (0,)
) -> subprocess.CompletedProcess | None:
    """git `args` in `repo`; None when git could not run, timed out or exited otherwise
    (for the freshness checks, which fall back to reading the files)."""
    try:
        out = run_git(repo, *args, stdin=stdin)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out if out.returncode in ok_codes else None


def run_in_work_tree(repo: Path, *args: str, timeout: float = GIT_TIMEOUT):
    """git's output; None outside git or when git cannot be run.

    GitError when git refuses the repository (dubious ownership, a damaged `.git`):
    indexing it as a plain folder would record a wrong freshness.
    """
    try:
        out = run_git(repo, *args, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0:
        if not_a_repository(out.stderr):
            return None
        raise git_error(args, out.returncode, out.stderr)
    return out


def toplevel(repo: Path) -> Path | None:
    """The work tree's top folder; None outside git (see `run_in_work_tree`)."""
    out = run_in_work_tree(repo, "rev-parse", "--show-toplevel", timeout=30)
    return None if out is None else Path(out.stdout.decode("utf-8", "surrogateescape").strip())


def head_commit(repo: Path) -> str | None:
    """HEAD's commit id, or None outside git or in a repository with no commits."""
    try:
        out = run_git(repo, "rev-parse", "--verify", "-q", "HEAD^{commit}")
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0:
        return None
    return out.stdout.decode().strip() or None
