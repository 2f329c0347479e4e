"""The gate: cheap, deterministic pre-checks before a task does expensive work.

Checks run in a fixed order and each says what it found; the gate passes when
every check that was asked for passes. A named file is checked only as far as it
is safe: a path that leaves the repository (by `..`, an absolute path elsewhere,
or a symlink pointing out) fails `files_in_repo` and is never read or stat'ed
further.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from codeimpact.graph.errors import BadInput, CodeImpactError
from codeimpact.indexer.discover import glob_pattern
from codeimpact.query import gitdiff
from codeimpact.query.freshness import Freshness, freshness

CHECKS = (
    "index_fresh",
    "worktree_clean",
    "files_in_repo",
    "files_allowed",
    "files_exist",
    "files_indexed",
)
NAMES_IN_DETAIL = 5
NOT_CHECKED = "freshness not checked (pass --require-fresh)"


@dataclass
class GateCheck:
    name: str
    passed: bool
    detail: str

    def to_dict(self) -> dict:
        return {"name": self.name, "pass": self.passed, "detail": self.detail}


@dataclass
class GateResult:
    passed: bool
    reason: str | None  # the first failing check, "name: detail"; None on a pass
    checks: list[GateCheck] = field(default_factory=list)
    freshness: Freshness = field(default_factory=lambda: Freshness(None, [NOT_CHECKED]))

    def to_dict(self) -> dict:
        return {
            "schema": "codeimpact.gate/1",
            "pass": self.passed,
            "reason": self.reason,
            "checks": [c.to_dict() for c in self.checks],
            "freshness": {
                "fresh": self.freshness.fresh,
                "reasons": self.freshness.reasons,
                "method": self.freshness.method,
            },
        }


# ----------------------------------------------------------------------------- paths


def repo_relative(repo: Path, raw: str) -> str:
    """`raw` (relative to the repository root, or absolute) as a posix path inside `repo`.

    BadInput when it is empty or leaves the repository, lexically (`..`, an absolute
    path elsewhere) or through a symlink.
    """
    if not raw or "\0" in raw:
        raise BadInput(f"not a path: {raw!r}")
    root = os.path.realpath(repo)
    lexical = os.path.normpath(raw if os.path.isabs(raw) else os.path.join(root, raw))
    if os.path.isabs(raw) and not _within(lexical, root):
        # An absolute path may name the repository through a symlinked parent.
        lexical = os.path.normpath(
            os.path.join(os.path.realpath(os.path.dirname(raw)), os.path.basename(raw))
        )
    if lexical == root or not _within(lexical, root):
        raise BadInput(f"{raw} is outside the repository")
    if not _within(os.path.realpath(lexical), root):
        raise BadInput(f"{raw} resolves (through a symlink) to outside the repository")
    return os.path.relpath(lexical, root).replace(os.sep, "/")


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def glob_regex(pattern: str) -> re.Pattern:
    """A repository-relative glob: `*` and `?` within one path segment, `**` across
    segments, `[abc]` classes; a pattern naming a folder (or ending in `/`) covers
    everything below it.
    """
    pat = pattern.strip()
    if pat.startswith("./"):
        pat = pat[2:]
    body = glob_pattern(pat.lstrip("/")).rstrip("/")
    return re.compile(body + "(?:/.*)?" if body else ".*")


def allowed_by(path: str, globs: list[str]) -> bool:
    return any(glob_regex(g).fullmatch(path) for g in globs)


def _names(paths: list[str]) -> str:
    shown = ", ".join(paths[:NAMES_IN_DETAIL])
    more = len(paths) - NAMES_IN_DETAIL
    return shown + (f" (+{more} more)" if more > 0 else "")


# ----------------------------------------------------------------------------- checks


def check_fresh(index) -> tuple[GateCheck, Freshness]:
    try:
        state = freshness(index)
    except CodeImpactError as e:
        why = str(e).splitlines()[0] if str(e) else "unreadable"
        return GateCheck("index_fresh", False, why), Freshness(None, [why])
    if state.fresh:
        return GateCheck("index_fresh", True, "the index describes the working tree"), state
    why = "; ".join(state.reasons) or "freshness could not be checked"
    return GateCheck("index_fresh", False, why), state


def check_clean(repo: Path) -> GateCheck:
    if not gitdiff.is_work_tree(repo):
        return GateCheck("worktree_clean", False, "not a git repository: cleanliness unknown")
    dirty = sorted({p for _, p in gitdiff.porcelain_status(repo)})
    if not dirty:
        return GateCheck("worktree_clean", True, "no changed or untracked files")
    return GateCheck("worktree_clean", False, f"{len(dirty)} changed or untracked: {_names(dirty)}")


def _indexed_paths(index, paths: list[str]) -> dict[str, str]:
    res = index.query(
        "MATCH (f:File) WHERE f.path IN $paths RETURN f.path, f.status", {"paths": paths}
    )
    return {r[0]: r[1] for r in res.rows}


def gate(
    repo: str | os.PathLike,
    *,
    require_fresh: bool = False,
    require_clean: bool = False,
    allow: list[str] | tuple[str, ...] = (),
    files: list[str] | tuple[str, ...] = (),
    index=None,
) -> GateResult:
    """Run the checks asked for. `index` is an open Index, or None to open one when needed
    (an index that cannot be opened fails the checks that need it, it does not raise).
    """
    root = Path(repo)
    if not root.is_dir():
        raise BadInput(f"not a directory: {root}")
    root = root.resolve()
    checks: list[GateCheck] = []
    state = Freshness(None, [NOT_CHECKED])
    opened = None
    index_error = ""

    def get_index():
        nonlocal index, opened, index_error
        if index is None and not index_error:
            from codeimpact.query.index import Index

            try:
                index = opened = Index.open(root)
            except CodeImpactError as e:
                index_error = str(e).splitlines()[0] if str(e) else type(e).__name__
        return index

    try:
        if require_fresh:
            ix = get_index()
            if ix is None:
                checks.append(GateCheck("index_fresh", False, index_error))
                state = Freshness(None, [index_error])
            else:
                check, state = check_fresh(ix)
                checks.append(check)
        if require_clean:
            checks.append(check_clean(root))
        if files or allow:
            checks += _file_checks(root, list(files), list(allow), get_index, lambda: index_error)
    finally:
        if opened is not None:
            opened.close()
    failed = next((c for c in checks if not c.passed), None)
    reason = f"{failed.name}: {failed.detail}" if failed else None
    return GateResult(failed is None, reason, checks, state)


def _file_checks(root: Path, files: list[str], allow: list[str], get_index, index_error):
    """files_in_repo, files_allowed, files_exist, files_indexed. A path outside the
    repository is never looked at, so every later check fails for it as "not checked"."""
    checks: list[GateCheck] = []
    inside: list[str] = []
    outside: list[str] = []  # as named
    reasons: list[str] = []
    for raw in files:
        try:
            inside.append(repo_relative(root, raw))
        except BadInput as e:
            outside.append(raw)
            reasons.append(str(e))
    unchecked = [f"not checked (outside the repository): {_names(outside)}"] if outside else []

    def verdict(name: str, problems: list[str], ok: str) -> GateCheck:
        problems = problems + unchecked
        return GateCheck(name, not problems, "; ".join(problems) if problems else ok)

    if files:
        checks.append(
            GateCheck("files_in_repo", False, "; ".join(reasons))
            if reasons
            else GateCheck("files_in_repo", True, f"{len(inside)} file(s) inside the repository")
        )
    if allow:
        globs = " ".join(allow)
        refused = [p for p in inside if not allowed_by(p, allow)]
        problems = [f"outside {globs}: {_names(refused)}"] if refused else []
        ok = f"{len(inside)} file(s) within {globs}" if files else "no files named"
        checks.append(verdict("files_allowed", problems, ok))
    if not files:
        return checks
    missing = [p for p in inside if not os.path.isfile(root / p)]
    problems = [f"missing: {_names(missing)}"] if missing else []
    checks.append(verdict("files_exist", problems, f"{len(inside)} file(s) exist"))
    ix = get_index()
    if ix is None:
        checks.append(GateCheck("files_indexed", False, index_error()))
        return checks
    status = _indexed_paths(ix, inside) if inside else {}
    absent = [p for p in inside if p not in status]
    skipped = [f"{p} ({status[p]})" for p in inside if str(status.get(p, "")).startswith("skipped")]
    problems = ([f"not indexed: {_names(absent)}"] if absent else []) + (
        [f"indexed but skipped: {_names(skipped)}"] if skipped else []
    )
    checks.append(verdict("files_indexed", problems, f"{len(inside)} file(s) indexed"))
    return checks
