"""One way to run git for the freshness checks: never taking git's optional locks (a check
must not write into `.git`), bounded in time, and None for every failure."""

from __future__ import annotations

import subprocess
from pathlib import Path

GIT_TIMEOUT = 60


def run_git(repo: Path, *args: str, stdin: bytes | None = None,
            ok_codes: tuple[int, ...] = (0,)) -> subprocess.CompletedProcess | None:  # fmt: skip
    """`git -C repo ARGS`; None when git could not run, timed out or exited otherwise."""
    try:
        out = subprocess.run(
            ["git", "--no-optional-locks", "-C", str(repo), *args],
            input=stdin,
            capture_output=True,
            timeout=GIT_TIMEOUT,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out if out.returncode in ok_codes else None
