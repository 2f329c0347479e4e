"""The few facts about a git work tree that the indexer records."""

from __future__ import annotations

import subprocess
from pathlib import Path


def _git(repo: Path, *args: str) -> str | None:
    try:
        out = subprocess.run(
            ["git", "-C", str(repo), *args], capture_output=True, text=True, timeout=60
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0:
        return None
    return out.stdout.strip()


def head_commit(repo: Path) -> str | None:
    """HEAD's commit id, or None outside git or in a repository with no commits."""
    return _git(repo, "rev-parse", "--verify", "-q", "HEAD^{commit}") or None
