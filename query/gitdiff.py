"""Running git and reading its diffs: the file-level facts detect-changes maps to symbols.

One `git diff --raw -p -z -U0 --find-renames` run gives, per changed file, its
status, blob ids and modes (the NUL-separated raw part, exact for any path) and
its zero-context hunks (the patch part). Patch sections are matched to raw
entries by path, never by position, since git prints no section for some
entries (unmerged paths). Untracked files are listed separately, and files that
were moved without `git mv` (a deletion plus an untracked file with similar
content) are paired as renames here, as git itself would pair them once added.

Nothing here writes to the repository: blobs are read with `git cat-file`,
working-tree files only inside the repository.
"""

from __future__ import annotations

import difflib
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from codeimpact.graph.errors import BadInput, GitError
from codeimpact.indexer.gitinfo import NOT_A_REPOSITORY, git_error, run_git

# the parsing of git's output is diff_parse's; its names are still reachable from here
from codeimpact.query.diff_parse import FileDiff, is_binary, line_hunks, parse_diff, parse_raw
from codeimpact.query.diff_parse import Hunk as Hunk

SCOPES = ("unstaged", "staged", "all", "compare")
GIT_TIMEOUT = 120

# Pairing a deletion with an untracked file as a rename: git's default threshold,
# and a cap on the pairs compared so a huge unstaged move cannot stall a query.
RENAME_SIMILARITY = 0.5
MAX_RENAME_PAIRS = 400
MAX_PAIRED_SIZE = 1024 * 1024


@dataclass
class Diff:
    scope: str
    base: str | None  # the REF the user named (compare / review)
    old_commit: str | None  # the commit on the old side (None: git's index, or no commits)
    new_commit: str | None  # the commit on the new side (None: index or working tree)
    head: str | None
    files: list[FileDiff]
    notes: list[str] = field(default_factory=list)


# ----------------------------------------------------------------------------- running git


def git(repo: Path, *args: str, stdin: bytes | None = None, ok: tuple[int, ...] = (0,)) -> bytes:
    """git's stdout; BadInput with git's first error line when it fails."""
    try:
        out = run_git(repo, "-c", "core.quotepath=false", *args, stdin=stdin, timeout=GIT_TIMEOUT)
    except FileNotFoundError as e:
        raise BadInput("git is not installed (or not on PATH)") from e
    except subprocess.TimeoutExpired as e:
        raise BadInput(f"git {args[0]} took longer than {GIT_TIMEOUT} s") from e
    if out.returncode not in ok:
        raise git_error(args, out.returncode, out.stderr)
    return out.stdout


def is_work_tree(repo: Path) -> bool:
    """Whether `repo` is inside a git work tree; GitError when git refuses it (dubious
    ownership, a damaged repository): that is not the same as "not a repository"."""
    try:
        return git(repo, "rev-parse", "--is-inside-work-tree").strip() == b"true"
    except GitError as e:
        if NOT_A_REPOSITORY in str(e):
            return False
        raise
    except BadInput:  # git is not installed, or timed out
        return False


def require_work_tree(repo: Path) -> None:
    if not is_work_tree(repo):
        raise BadInput(f"not a git repository: {repo}")


def head_commit(repo: Path) -> str | None:
    """HEAD's commit id; None in a repository with no commits."""
    out = git(repo, "rev-parse", "--verify", "-q", "HEAD^{commit}", ok=(0, 1))
    return out.decode().strip() or None


def resolve_commit(repo: Path, ref: str) -> str:
    """The commit `ref` names; BadInput when it names none."""
    if not ref or ref.startswith("-"):
        raise BadInput(f"not a git revision: {ref!r}")
    out = git(
        repo, "rev-parse", "--verify", "-q", "--end-of-options", f"{ref}^{{commit}}", ok=(0, 1)
    )
    sha = out.decode().strip()
    if not sha:
        raise BadInput(f"--base {ref!r} does not name a commit in {repo}")
    return sha


def merge_base(repo: Path, a: str, b: str) -> str:
    out = git(repo, "merge-base", a, b, ok=(0, 1)).decode().strip()
    if not out:
        raise BadInput(f"{a[:12]} and {b[:12]} have no common ancestor")
    return out


def default_base(repo: Path) -> str:
    """The default branch a review compares against: origin's HEAD, else main, else master."""
    out = git(repo, "symbolic-ref", "-q", "refs/remotes/origin/HEAD", ok=(0, 1, 128))
    candidates = [out.decode().strip()] if out.strip() else []
    candidates += ["main", "master", "origin/main", "origin/master"]
    for ref in candidates:
        if git(repo, "rev-parse", "--verify", "-q", f"{ref}^{{commit}}", ok=(0, 1)).strip():
            return ref.removeprefix("refs/remotes/")
    raise BadInput("no default branch (main or master) to review against: pass --base REF")


def empty_tree(repo: Path) -> str:
    # Computed, not hard-coded: the id differs between SHA-1 and SHA-256 repositories.
    return git(repo, "hash-object", "-t", "tree", "--stdin", stdin=b"").decode().strip()


def untracked_files(repo: Path) -> list[str]:
    out = git(repo, "ls-files", "-z", "--others", "--exclude-standard")
    # A nested repository shows as "dir/": not a file of ours.
    names = out.decode("utf-8", "surrogateescape").split("\0")
    return sorted(p for p in names if p and not p.endswith("/"))


def porcelain_status(repo: Path) -> list[tuple[str, str]]:
    """(two-letter status, path) of every changed or untracked path below `repo`.

    Paths are relative to `repo`; a rename gives its new path and, as `D `, its old one.
    """
    prefix = git(repo, "rev-parse", "--show-prefix").decode("utf-8", "surrogateescape").strip()
    out = git(repo, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--", ".")
    items = out.decode("utf-8", "surrogateescape").split("\0")
    found: list[tuple[str, str]] = []
    i = 0
    while i < len(items):
        item = items[i]
        i += 1
        if len(item) < 4:
            continue
        code, path = item[:2], item[3:]
        found.append((code, path))
        if code[0] in "RC" and i < len(items):
            found.append(("D " if code[0] == "R" else "  ", items[i]))  # the original path
            i += 1
    # porcelain paths are relative to the top level, always
    return [(c, p[len(prefix) :]) for c, p in found if p.startswith(prefix) and c.strip()]


def read_blobs(repo: Path, ids: list[str]) -> dict[str, bytes]:
    """Blob contents by id, in one `git cat-file --batch` run."""
    wanted = sorted(set(ids))
    if not wanted:
        return {}
    out = git(repo, "cat-file", "--batch", stdin="".join(f"{i}\n" for i in wanted).encode())
    blobs: dict[str, bytes] = {}
    pos = 0
    for ident in wanted:
        eol = out.index(b"\n", pos)
        header = out[pos:eol].split()
        pos = eol + 1
        if len(header) < 3 or header[1] == b"missing":
            continue
        size = int(header[2])
        blobs[ident] = out[pos : pos + size]
        pos += size + 1
    return blobs


def read_new_side(repo: Path, d: Diff, paths: list[str]) -> dict[str, bytes | None]:
    """The files `paths` as the new side of `d` has them (its commit, git's index for
    `staged`, else the working tree); None where that side has no such file."""
    if d.new_commit or d.scope == "staged":
        rev = d.new_commit or ""  # `:path` is git's index
        ids = {p: f"{rev}:{p}" for p in paths if "\n" not in p}
        blobs = read_blobs(repo, list(ids.values()))
        return {p: blobs.get(ids.get(p, "")) for p in paths}
    return {p: read_worktree(repo, p) for p in paths}


def _inside(repo: Path, path: str) -> str | None:
    real = os.path.realpath(os.path.join(repo, path))
    root = os.path.realpath(repo)
    return real if real.startswith(root + os.sep) and os.path.isfile(real) else None


def worktree_size(repo: Path, path: str) -> int | None:
    """A working-tree file's size; None when missing, not a regular file, or outside the repo."""
    real = _inside(repo, path)
    try:
        return None if real is None else os.path.getsize(real)
    except OSError:
        return None


def read_worktree(repo: Path, path: str) -> bytes | None:
    """A working-tree file's bytes; None when missing, not a regular file, or outside the repo."""
    real = _inside(repo, path)
    if real is None:
        return None
    try:
        with open(real, "rb") as fh:
            return fh.read()
    except OSError:
        return None


# ----------------------------------------------------------------------------- scopes


DIFF_FLAGS = ("--raw", "-p", "-z", "-U0", "--no-abbrev", "--find-renames", "--no-color")
# --relative: paths relative to the indexed folder, should it be below the repository's top.
DIFF_FLAGS += ("--no-ext-diff", "--no-textconv", "--ignore-submodules=all", "--relative")


def diff(repo: Path, scope: str, base: str | None = None) -> Diff:
    """The changes of one scope, with untracked files where the scope counts them.

    unstaged: git's index -> working tree (+ untracked); staged: HEAD -> git's index;
    all: HEAD -> working tree (+ untracked); compare: merge-base(BASE, HEAD) -> working tree.
    In a repository with no commits, HEAD is the empty tree.
    """
    if scope not in SCOPES:
        raise BadInput(f"unknown scope {scope!r}: one of {', '.join(SCOPES)}")
    require_work_tree(repo)
    head = head_commit(repo)
    old_commit: str | None = None
    notes: list[str] = []
    if base is not None and scope != "compare":
        raise BadInput("--base is only used with --scope compare")
    if scope == "unstaged":
        args: tuple[str, ...] = ()
    elif scope == "staged":
        args = ("--cached", head or empty_tree(repo))
        old_commit = head
    elif scope == "all":
        args = (head or empty_tree(repo),)
        old_commit = head
    else:
        if not base:
            raise BadInput("--scope compare needs --base REF")
        if head is None:
            raise BadInput("the repository has no commits to compare with --base")
        base_commit = resolve_commit(repo, base)
        old_commit = merge_base(repo, base_commit, head)
        args = (old_commit,)
    if head is None and scope in ("staged", "all"):
        notes.append("the repository has no commits: HEAD is compared as an empty tree")
    files = parse_diff(git(repo, "diff", *DIFF_FLAGS, *args, "--"))
    if scope != "staged":
        # The working tree is the new side. git names it by a blob id only when it hashed
        # the file (a rename check): an object it never stored, so it is read from the tree.
        for f in files:
            f.new_blob = None
    if scope == "unstaged" and head is not None:
        origins = staged_renames(repo, head)
        for f in files:
            f.origin_path = origins.get(f.old_path or "")
    if scope in ("unstaged", "all"):
        tracked = {f.path for f in files}
        files += [
            FileDiff("added", None, p, untracked=True)
            for p in untracked_files(repo)
            if p not in tracked
        ]
    if scope in ("unstaged", "staged"):
        files = fill_unmerged(repo, files, worktree_side=scope == "unstaged")
    files = pair_moves(repo, files)
    return Diff(scope, base, old_commit, None, head, files, notes)


def staged_renames(repo: Path, head: str) -> dict[str, str]:
    """Renames git's index holds against HEAD: new path -> the path at HEAD."""
    raw_only = tuple(flag for flag in DIFF_FLAGS if flag not in ("-p", "-U0"))
    entries, _ = parse_raw(git(repo, "diff", "--cached", *raw_only, head, "--"))
    return {
        f.new_path: f.old_path
        for f in entries
        if f.status == "renamed" and f.new_path and f.old_path
    }


def unmerged_paths(repo: Path) -> dict[str, dict[int, str]]:
    """Paths with a merge conflict in git's index: path -> {stage: blob id}."""
    out = git(repo, "ls-files", "-u", "-z").decode("utf-8", "surrogateescape")
    stages: dict[str, dict[int, str]] = {}
    for item in out.split("\0"):
        if "\t" not in item:
            continue
        meta, path = item.split("\t", 1)
        _mode, blob, stage = meta.split()
        stages.setdefault(path, {})[int(stage)] = blob
    return stages


def fill_unmerged(repo: Path, files: list[FileDiff], worktree_side: bool) -> list[FileDiff]:
    """Conflicted paths, which git diffs inconsistently: ours (stage 2) vs the working tree."""
    conflicts = unmerged_paths(repo)
    if not conflicts:
        return files
    kept = [f for f in files if f.path not in conflicts]
    for path, stages in sorted(conflicts.items()):
        ours = stages.get(2)
        entry = FileDiff("unmerged", path if ours else None, path, old_blob=ours)
        entry.notes.append("unmerged (a merge conflict in progress)")
        if not worktree_side:
            entry.notes.append("git's index holds no resolved version of this file")
        else:
            old = read_blobs(repo, [ours]).get(ours, b"") if ours else b""
            new = read_worktree(repo, path)
            if new is None:
                entry.status, entry.new_path = "deleted", None
                new = b""
            if is_binary(old) or is_binary(new):
                entry.binary = True
            else:
                entry.hunks = line_hunks(old, new)
        kept.append(entry)
    return kept


def commit_diff(repo: Path, old: str, new: str) -> list[FileDiff]:
    """The changes between two commits (a review: merge base -> HEAD)."""
    return parse_diff(git(repo, "diff", *DIFF_FLAGS, old, new, "--"))


def pair_moves(repo: Path, files: list[FileDiff]) -> list[FileDiff]:
    """Pair deletions with untracked files of similar content, as git pairs renames."""
    deleted = [f for f in files if f.status == "deleted" and f.old_blob]
    fresh = [f for f in files if f.untracked]
    if not deleted or not fresh or len(deleted) * len(fresh) > MAX_RENAME_PAIRS:
        return files
    # Only files that could pair are read: same extension as a deletion, not oversized.
    extensions = {os.path.splitext(d.path)[1] for d in deleted}
    fresh = [
        u
        for u in fresh
        if os.path.splitext(u.path)[1] in extensions
        and (worktree_size(repo, u.path) or 0) <= MAX_PAIRED_SIZE
    ]
    old_bytes = read_blobs(repo, [f.old_blob for f in deleted if f.old_blob])
    new_bytes = {f.path: read_worktree(repo, f.path) for f in fresh}
    scored = []
    for d in deleted:
        a = old_bytes.get(d.old_blob or "")
        if a is None or is_binary(a):
            continue
        a_lines = a.splitlines()
        for u in fresh:
            b = new_bytes.get(u.path)
            if (
                b is None
                or is_binary(b)
                or os.path.splitext(u.path)[1] != os.path.splitext(d.path)[1]
            ):
                continue
            ratio = difflib.SequenceMatcher(None, a_lines, b.splitlines(), autojunk=False).ratio()
            if ratio >= RENAME_SIMILARITY:
                scored.append((-ratio, d.path, u.path, d, u, a, b))
    used: set[int] = set()
    pairs: list[FileDiff] = []
    for neg, _, _, d, u, a, b in sorted(scored, key=lambda s: s[:3]):
        if id(d) in used or id(u) in used:
            continue
        used.update((id(d), id(u)))
        pairs.append(
            FileDiff(
                "renamed",
                d.old_path,
                u.new_path,
                old_blob=d.old_blob,
                old_mode=d.old_mode,
                similarity=round(-neg * 100),
                untracked=True,
                hunks=line_hunks(a, b),
                notes=["moved without git mv (paired by content similarity)"],
            )
        )
    return [f for f in files if id(f) not in used] + pairs
