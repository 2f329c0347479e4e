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
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from codeimpact.graph.errors import BadInput, GitError
from codeimpact.indexer.gitinfo import NOT_A_REPOSITORY, git_error, run_git

SCOPES = ("unstaged", "staged", "all", "compare")
ZERO_SHA = re.compile(rb"^0+$")
GIT_TIMEOUT = 120

# Pairing a deletion with an untracked file as a rename: git's default threshold,
# and a cap on the pairs compared so a huge unstaged move cannot stall a query.
RENAME_SIMILARITY = 0.5
MAX_RENAME_PAIRS = 400
MAX_PAIRED_SIZE = 1024 * 1024

_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "a": "\a", "b": "\b", "f": "\f"}
_ESCAPES.update({"r": "\r", "v": "\v"})


@dataclass(frozen=True)
class Hunk:
    """One zero-context hunk: lines old_start.. (old_count of them) became new_start.. .

    With count 0 the start is the line *after which* the other side's lines go
    (git's convention). `removed` / `added` are the lines' text, in order.
    """

    old_start: int
    old_count: int
    new_start: int
    new_count: int
    removed: tuple[str, ...] = ()
    added: tuple[str, ...] = ()

    def old_lines(self) -> range:
        return range(self.old_start, self.old_start + self.old_count)

    def new_lines(self) -> range:
        return range(self.new_start, self.new_start + self.new_count)


@dataclass
class FileDiff:
    """One changed path. A blob id of None means: read that side from the working tree."""

    status: str  # added | modified | deleted | renamed | copied | typechange | unmerged
    old_path: str | None
    new_path: str | None
    old_blob: str | None = None
    new_blob: str | None = None
    old_mode: str = ""
    new_mode: str = ""
    similarity: int | None = None  # percent, for renames and copies
    binary: bool = False
    untracked: bool = False
    hunks: list[Hunk] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # unstaged scope: the path the old side had at HEAD when git's index holds it renamed
    # (`git mv` staged, then edited): its symbols' indexed uids are under that path
    origin_path: str | None = None

    @property
    def path(self) -> str:
        return self.new_path or self.old_path or ""


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


# ----------------------------------------------------------------------------- parsing


def unquote(raw: bytes) -> str:
    """A path as git prints it in patch headers (C-quoted when it holds special bytes)."""
    text = raw.decode("utf-8", "surrogateescape")
    if not (len(text) >= 2 and text[0] == '"' and text[-1] == '"'):
        return text
    body, out, i = text[1:-1], bytearray(), 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt in "01234567" and i + 3 < len(body) + 1:
                out.append(int(body[i + 1 : i + 4], 8))
                i += 4
                continue
            out += _ESCAPES.get(nxt, nxt).encode()
            i += 2
            continue
        out += c.encode("utf-8", "surrogateescape")
        i += 1
    return out.decode("utf-8", "surrogateescape")


_RAW_STATUS = {
    "A": "added",
    "M": "modified",
    "D": "deleted",
    "R": "renamed",
    "C": "copied",
    "T": "typechange",
    "U": "unmerged",
}


def parse_raw(data: bytes) -> tuple[list[FileDiff], bytes]:
    """The raw part of `--raw -z` output -> entries, and the rest (the patch part)."""
    entries: list[FileDiff] = []
    pos = 0
    while pos < len(data) and data[pos : pos + 1] == b":":
        end = data.index(b"\0", pos)
        meta = data[pos:end].decode()
        pos = end + 1
        colons = len(meta) - len(meta.lstrip(":"))
        fields = meta.lstrip(":").split()
        letter = fields[-1][0]
        npaths = 2 if letter in "RC" else 1
        paths = []
        for _ in range(npaths):
            end = data.index(b"\0", pos)
            paths.append(data[pos:end].decode("utf-8", "surrogateescape"))
            pos = end + 1
        if colons > 1:
            continue  # a combined (merge) entry; the plain `U` entry for the path follows
        old_mode, new_mode, old_blob, new_blob = fields[0], fields[1], fields[2], fields[3]
        status = _RAW_STATUS.get(letter, "modified")
        old_path = paths[0] if status != "added" else None
        new_path = paths[-1] if status != "deleted" else None
        entries.append(
            FileDiff(
                status=status,
                old_path=old_path,
                new_path=new_path,
                old_blob=None if ZERO_SHA.match(old_blob.encode()) else old_blob,
                new_blob=None if ZERO_SHA.match(new_blob.encode()) else new_blob,
                old_mode=old_mode,
                new_mode=new_mode,
                similarity=int(fields[-1][1:]) if letter in "RC" and fields[-1][1:] else None,
            )
        )
    if data[pos : pos + 1] == b"\0":
        pos += 1
    return entries, data[pos:]


@dataclass
class _Section:
    old_path: str | None = None
    new_path: str | None = None
    header_path: str | None = None
    binary: bool = False
    hunks: list[Hunk] = field(default_factory=list)


def _header_path(line: bytes) -> str | None:
    """The path of `diff --git a/P b/P` when both halves agree (always so unless renamed)."""
    rest = line[len(b"diff --git ") :]
    if rest.startswith(b'"'):
        return None
    n = (len(rest) - 1) // 2
    a, b = rest[:n], rest[n + 1 :]
    if a.startswith(b"a/") and b.startswith(b"b/") and a[2:] == b[2:]:
        return a[2:].decode("utf-8", "surrogateescape")
    return None


def _side_path(raw: bytes, prefix: bytes) -> str | None:
    raw = raw.rstrip(b"\t")  # git appends a tab to names holding spaces
    if raw == b"/dev/null":
        return None
    name = unquote(raw)
    return name[len(prefix) :] if name.startswith(prefix.decode()) else name


def parse_patch(data: bytes) -> list[_Section]:
    sections: list[_Section] = []
    cur: _Section | None = None
    hunk: list | None = None  # [old_start, old_count, new_start, new_count, removed, added]

    def close_hunk():
        nonlocal hunk
        if cur is not None and hunk is not None:
            o, oc, n, nc, rem, add = hunk
            cur.hunks.append(Hunk(o, oc, n, nc, tuple(rem), tuple(add)))
        hunk = None

    for line in data.split(b"\n"):
        if line.startswith(b"diff --git ") or line.startswith(b"diff --cc "):
            close_hunk()
            cur = _Section(header_path=_header_path(line))
            sections.append(cur)
            continue
        if cur is None:
            continue
        if hunk is not None:
            if line.startswith(b"-"):
                hunk[4].append(line[1:].decode("utf-8", "replace"))
                continue
            if line.startswith(b"+"):
                hunk[5].append(line[1:].decode("utf-8", "replace"))
                continue
            if line.startswith(b"\\"):
                continue  # "\ No newline at end of file"
            close_hunk()
        m = _HUNK.match(line)
        if m:
            oc = 1 if m.group(2) is None else int(m.group(2))
            nc = 1 if m.group(4) is None else int(m.group(4))
            hunk = [int(m.group(1)), oc, int(m.group(3)), nc, [], []]
        elif line.startswith(b"--- "):
            cur.old_path = _side_path(line[4:], b"a/")
        elif line.startswith(b"+++ "):
            cur.new_path = _side_path(line[4:], b"b/")
        elif line.startswith(b"rename from ") or line.startswith(b"copy from "):
            cur.old_path = unquote(line.split(b" from ", 1)[1])
        elif line.startswith(b"rename to ") or line.startswith(b"copy to "):
            cur.new_path = unquote(line.split(b" to ", 1)[1])
        elif line.startswith(b"Binary files ") or line.startswith(b"GIT binary patch"):
            cur.binary = True
    close_hunk()
    return sections


def parse_diff(data: bytes) -> list[FileDiff]:
    """`git diff --raw -p -z -U0 --no-abbrev` output -> one FileDiff per path, with hunks."""
    entries, patch = parse_raw(data)
    by_path: dict[str, FileDiff] = {}
    for e in entries:
        by_path.setdefault(e.path, e)
    for sec in parse_patch(patch):
        key = sec.new_path or sec.old_path or sec.header_path
        entry = by_path.get(key or "")
        if entry is None and sec.old_path:
            entry = by_path.get(sec.old_path)
        if entry is None:
            continue
        entry.binary = entry.binary or sec.binary
        entry.hunks.extend(sec.hunks)
    return entries


def line_hunks(old: bytes, new: bytes) -> list[Hunk]:
    """Zero-context hunks between two contents, for pairs git did not diff for us."""
    a = old.decode("utf-8", "replace").splitlines()
    b = new.decode("utf-8", "replace").splitlines()
    hunks: list[Hunk] = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        # git's convention: an empty side starts at the line before the change.
        old_start = i1 + 1 if i2 > i1 else i1
        new_start = j1 + 1 if j2 > j1 else j1
        hunks.append(Hunk(old_start, i2 - i1, new_start, j2 - j1, tuple(a[i1:i2]), tuple(b[j1:j2])))
    return hunks


def is_binary(data: bytes | None) -> bool:
    return data is not None and b"\0" in data[:8192]


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
