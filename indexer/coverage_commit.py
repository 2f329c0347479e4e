"""Coverage measured at a known commit (`graph coverage import --commit REV`).

coverage.py's data holds line numbers, not the contents they were measured on. When the
tests ran in another checkout (a CI job on the main branch) and this checkout is another
commit (a branch), a measured file may differ here: its lines would land on the wrong
functions. With the commit the tests ran at, each measured file is read as it was at
that commit (from this repository's git objects: nothing outside the repository), the
lines are mapped on that content, and the links are recorded with that content's hash,
so a file the branch changed gives *stale* links (query/observed.py) instead of wrong ones.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from codeimpact.graph.errors import BadInput
from codeimpact.indexer.coverage_map import CALLABLE_KINDS
from codeimpact.indexer.gitinfo import run_git
from codeimpact.indexer.lang import language_for


class FunctionRow(NamedTuple):
    """A function of a file's content at the commit (what `body_spans` needs of a symbol)."""

    uid: str
    name: str
    start_line: int
    end_line: int


@dataclass
class MeasuredAt:
    """The repository's files at the commit the coverage was measured at."""

    repo: Path
    commit: str  # the full commit id
    prefix: str  # the repository's folder below git's top ("" at the top)

    @classmethod
    def resolve(cls, repo: Path, rev: str) -> MeasuredAt:
        try:
            out = run_git(repo, "rev-parse", "--verify", "-q", "--show-prefix", f"{rev}^{{commit}}")
        except (OSError, subprocess.TimeoutExpired) as e:
            raise BadInput(f"--commit {rev}: git could not run ({e})") from e
        lines = out.stdout.decode("utf-8", "surrogateescape").splitlines()
        if out.returncode != 0 or len(lines) != 2:
            raise BadInput(
                f"--commit {rev}: not a commit of the repository at {repo} (fetch it first: "
                "the commit the tests ran at must be in this clone)"
            )
        prefix, commit = lines
        return cls(repo, commit.strip(), prefix.strip())

    def read(self, paths: list[str]) -> dict[str, bytes | None]:
        """path -> its bytes at the commit (None: not a file there), in one git call."""
        if not paths:
            return {}
        stdin = "".join(f"{self.commit}:{self.prefix}{p}\n" for p in paths).encode()
        try:
            out = run_git(self.repo, "cat-file", "--batch", stdin=stdin)
        except (OSError, subprocess.TimeoutExpired) as e:
            raise BadInput(f"--commit {self.commit[:12]}: git could not read it ({e})") from e
        data, pos, found = out.stdout, 0, {}
        for p in paths:
            end = data.index(b"\n", pos)
            header = data[pos:end].split()
            pos = end + 1
            if len(header) == 3 and header[1] == b"blob":
                size = int(header[2])
                found[p] = data[pos : pos + size]
                pos += size + 1
            else:  # "<name> missing", or a tree / submodule at that path
                found[p] = None
                if len(header) == 3:
                    pos += int(header[2]) + 1
        return found


def functions_at(path: str, data: bytes) -> list[FunctionRow]:
    """The functions and methods of `data` as if it were `path` (extracted on the fly)."""
    spec = language_for(path)
    if spec is None:
        return []
    return [
        FunctionRow(f"{path}::{s.local}", s.name, s.start_line, s.end_line)
        for s in spec.extract(data).symbols
        if s.kind in CALLABLE_KINDS
    ]


def lines_in(data: bytes) -> int:
    return data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)


def checked_at(data: bytes | None, short: str, lines: list[int]) -> str:
    """Why the lines measured at the commit cannot be mapped ("" when they can)."""
    if data is None:
        return f"not a file at {short}, where the tests ran"
    if lines and max(lines) > lines_in(data):
        return f"line {max(lines)} measured, the file has {lines_in(data)} at {short}"
    return ""
