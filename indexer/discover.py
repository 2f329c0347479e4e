"""Which files of a repository are indexed.

In a git work tree: tracked files plus untracked files that are not ignored
(`git ls-files --cached --others --exclude-standard`). Elsewhere: a walk that
honours `.gitignore` files. Either way, nothing outside the repository is read:
symlinks that leave it are skipped, and symlinked folders are not followed.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path

from codeimpact.indexer.config import IndexConfig
from codeimpact.indexer.gitinfo import checked, not_a_repository, run_git, run_git_meanwhile
from codeimpact.indexer.lang import DECLARED, language_name_for
from codeimpact.native.record import Compared, Hashed

# Files handed to `discover`'s `found` at a time once that many were (each call hands them
# on to the extraction workers: indexer/workers.py Extraction.add)
FOUND_BATCH = 64

ALWAYS_SKIPPED = (
    ".git",
    ".codeimpact",
    ".hg",
    ".svn",
    "__pycache__",
    "node_modules",
    ".venv",
    ".tox",
)


class SourceFile(Hashed):
    path: str  # posix, relative to the repository root
    language: str
    size: int
    # the stat discover took (of the link's target for a link); -1: none, the scan stats it
    mtime_ns: int
    __slots__ = ("path", "language", "size", "mtime_ns")

    def __init__(self, path: str, language: str, size: int, mtime_ns: int = -1) -> None:
        self.path = path
        self.language = language
        self.size = size
        self.mtime_ns = mtime_ns


class Untracked(Compared):
    """The untracked files (not ignored) that git listed with the tracked ones, relative to
    the repository; None when git did not list the files (outside git, or git failed).
    `tracked`: what the same listing says git tracks (`TrackedListing`)."""

    paths: set[str] | None
    tracked: TrackedListing | None
    __slots__ = ("paths", "tracked")

    def __init__(self, paths: set[str] | None = None,
                 tracked: TrackedListing | None = None) -> None:  # fmt: skip
        self.paths = paths
        self.tracked = tracked


class TrackedListing(Compared):
    """What git's listing said is tracked, as a tree signature's digest of it needs it: every
    indexable name it listed (`indexable`, discover's name rules) less the untracked ones;
    and git's index file (`<repo>/.git/index`) as it was before git listed them: its stat
    and its last bytes (`index_tail`, the checksum git ends it with, of all it holds). A
    signature taken later that finds the same index file (the same stat: git writes a new
    file, another inode, for every change; and the same checksum: the same content) records
    the digest of these paths instead of asking git again (treesig)."""

    index: str
    index_stat: os.stat_result
    index_tail: bytes
    indexable: list[str]
    untracked: set[str]
    __slots__ = ("index", "index_stat", "index_tail", "indexable", "untracked")

    def __init__(self, index: str, index_stat: os.stat_result, index_tail: bytes,
                 indexable: list[str], untracked: set[str]) -> None:  # fmt: skip
        self.index = index
        self.index_stat = index_stat
        self.index_tail = index_tail
        self.indexable = indexable
        self.untracked = untracked

    def tracked(self) -> list[str]:
        """The indexable paths git tracks, as `git ls-files` lists them (but once each)."""
        return [p for p in self.indexable if p not in self.untracked]


INDEX_TAIL = 32  # bytes: the checksum that ends git's index file (SHA-1: 20, SHA-256: 32)


def index_state(path: str) -> tuple[os.stat_result, bytes] | None:
    """The stat and last INDEX_TAIL bytes of git's index file (None: unreadable)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        return st, os.pread(fd, INDEX_TAIL, max(0, st.st_size - INDEX_TAIL))
    except OSError:
        return None
    finally:
        os.close(fd)


def _git_files(repo: Path, untracked: Untracked | None = None,
               meanwhile: Callable[[], object] | None = None) -> list[str] | None:  # fmt: skip
    # -t tags each path (`?` untracked): the run's `git status` then needs no untracked
    # walk of its own (worktree.StatusProbe), the costlier half of it (~40 of ~70 ms, Django)
    args = ("ls-files", "-z", "-t", "--cached", "--others", "--exclude-standard")
    index = os.path.join(repo, ".git", "index")  # (a work tree's own .git folder only)
    before = index_state(index)
    try:
        if meanwhile is None:
            out = run_git(repo, *args, timeout=120)
        else:
            out = run_git_meanwhile(repo, args, meanwhile, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return None
    # outside a work tree: the folder is walked (git's other refusals are the user's to see,
    # as gitinfo.run_in_work_tree says); no `rev-parse --show-toplevel` first to tell
    if out.returncode != 0 and not_a_repository(out.stderr):
        return None
    checked(args, out)
    names: set[str] = set()
    others: set[str] = set()
    for tok in out.stdout.decode("utf-8", "surrogateescape").split("\0"):
        if len(tok) > 2:  # "T path": a tag, a space, the path
            names.add(tok[2:])
            if tok[0] == "?":
                others.add(tok[2:])
    if untracked is not None:
        untracked.paths = others
        if before is not None:  # (its indexable names: discover's, below)
            untracked.tracked = TrackedListing(index, *before, [], others)
    return sorted(names)


def glob_pattern(glob: str) -> str:
    """Regex text of a path glob: `*`/`?` within a segment, `**` across segments, `[a-z]`."""
    out = []
    i = 0
    while i < len(glob):
        c = glob[i]
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if glob.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = glob.find("]", i + 1)
            if j < 0:
                out.append(re.escape(c))
            else:
                body = glob[i + 1 : j].replace("\\", "\\\\")
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append(f"[{body}]")
                i = j
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


class IgnoreRules:
    """A small gitignore matcher: globs, `!` negation, trailing `/`, leading `/` anchors."""

    def __init__(self):
        self.rules: list[tuple[str, re.Pattern, bool, bool]] = []  # (base, regex, negate, dir_only)

    def add(self, base: str, lines: list[str]) -> None:
        for raw in lines:
            line = raw.rstrip("\n").rstrip()
            if not line or line.startswith("#"):
                continue
            negate = line.startswith("!")
            if negate:
                line = line[1:]
            dir_only = line.endswith("/")
            line = line.strip("/") if dir_only else line
            anchored = "/" in line.lstrip("/") or raw.startswith("/")
            line = line.lstrip("/")
            pattern = glob_pattern(line) + "(?:/.*)?"
            regex = re.compile(pattern if anchored else r"(?:.*/)?" + pattern)
            self.rules.append((base, regex, negate, dir_only))

    def ignored(self, rel: str, is_dir: bool) -> bool:
        result = False
        for base, regex, negate, dir_only in self.rules:
            if dir_only and not is_dir:
                continue
            if base:
                if not rel.startswith(base + "/"):
                    continue
                sub = rel[len(base) + 1 :]
            else:
                sub = rel
            if regex.fullmatch(sub):
                result = not negate
        return result


# folder (repository-relative, "" for the root) -> its stat, taken before its entries were
# listed, and those entries: what the walk saw, for the tree signature (indexer/treesig.py)
Listed = dict[str, tuple[os.stat_result, list[os.DirEntry]]]


def _walk_files(repo: Path, extra: tuple[str, ...], listed: Listed | None = None,
                each: Callable[[list[str], list[os.DirEntry]], None] | None = None,
                ) -> list[str]:  # fmt: skip
    """The files under `repo` that its `.gitignore` files and `extra` do not ignore; with
    `listed`, each folder walked is recorded there; `each(names, entries)` hears each
    folder's (and their entries) as it is listed.

    A scandir walk: each folder's entries tell folders from files and links (no stat of
    each folder, as os.walk's link test makes) and whether it holds a `.gitignore`, and a
    path is its parent's plus its name (os.path.relpath per folder, ~2 us x 3,247 on
    Django). Symbolic links to folders are neither followed nor listed, as os.walk does
    without followlinks."""
    rules = IgnoreRules()
    rules.add("", list(extra))
    out: list[str] = []
    pending = [("", str(repo))]
    while pending:
        rel_dir, full_dir = pending.pop()
        try:
            st = os.stat(full_dir) if listed is not None else None
            with os.scandir(full_dir) as it:
                entries = list(it)
        except OSError:
            continue  # unreadable, or gone since its parent was listed (os.walk skips it)
        if st is not None:
            listed[rel_dir] = (st, entries)
        prefix = f"{rel_dir}/" if rel_dir else ""
        start = len(out)
        for e in entries:
            # a .gitignore that is a file (or a link to one): read before its folder's names
            if e.name == ".gitignore" and _is_file(e):
                try:
                    with open(e.path, encoding="utf-8", errors="replace") as fh:
                        rules.add(rel_dir, fh.readlines())
                except OSError:
                    pass
                break
        ruled = bool(rules.rules)  # (none: nothing is ignored, no file asked; a tree's usual)
        files: list[os.DirEntry] = []
        for e in entries:
            name = e.name
            try:
                is_dir = e.is_dir()  # follows a link, as os.walk's listing does
            except OSError:
                is_dir = False
            if is_dir:
                if e.is_symlink() or name in ALWAYS_SKIPPED:
                    continue
                rel = prefix + name
                if not ruled or not rules.ignored(rel, True):
                    pending.append((rel, e.path))
            elif not ruled or not rules.ignored(prefix + name, False):
                out.append(prefix + name)
                files.append(e)
        if each is not None and files:
            each(out[start:], files)
    return sorted(out)


def _is_file(entry: os.DirEntry) -> bool:
    try:
        return entry.is_file()
    except OSError:
        return False


def discover(
    repo: Path,
    config: IndexConfig,
    configs_out: dict[str, str] | None = None,
    untracked: Untracked | None = None,
    listed: Listed | None = None,
    meanwhile: Callable[[], Mapping[str, os.stat_result] | None] | None = None,
    found: Callable[[list[SourceFile]], None] | None = None,
) -> list[SourceFile]:
    """The files to index, sorted by path, with their language and size.

    With `configs_out`, also collects the text of the project files that the
    enabled languages' resolvers read (LanguageSpec.config_files: tsconfig.json, go.mod, ...).
    With `untracked`, also says which of the files git listed are untracked. With `listed`,
    outside git, also what the walk saw of each folder (`Listed`). `meanwhile` is called
    while git lists the files (not when git cannot be run: nothing waits then); what it
    returns is the `os.lstat` of files by path, taken then, which the listing uses.
    `found(files)` hears the files as they are listed, in batches (outside git: while the
    walk goes on, so a new index's extraction starts before it ends), every file once.
    """
    wanted = {
        name
        for spec in DECLARED.values()
        if config.languages is None or spec.name in config.languages
        for name in spec.config_files
    }
    repo = repo.resolve()
    pre: dict[str, os.stat_result] = {}
    root = str(repo)
    files: list[SourceFile] = []
    langs = config.languages
    # (every indexable name git listed, there or not: what `git ls-files` counts; set once
    # git listed them)
    indexable: list[str] = []

    def take(names: list[str]) -> None:
        for rel in names:
            # the extension first: most of a tree's files (docs, data) end here, unsplit
            language = language_name_for(rel, langs)
            if language is None:
                if configs_out is not None and rel.rpartition("/")[2] in wanted:
                    if not any(p in ALWAYS_SKIPPED for p in rel.split("/")[:-1]):
                        _read_config(root, rel, configs_out, config.max_file_size)
                continue
            if any(p in ALWAYS_SKIPPED for p in rel.split("/")[:-1]):
                continue
            indexable.append(rel)
            try:
                st = pre.get(rel) or os.lstat(os.path.join(root, rel))
            except OSError:
                continue  # deleted in the work tree but still in git's index
            # the lstat answers: no second and third call per file
            if stat.S_ISREG(st.st_mode):
                files.append(SourceFile(rel, language, st.st_size, st.st_mtime_ns))
            elif stat.S_ISLNK(st.st_mode):
                linked(rel, language)

    def linked(rel: str, language: str) -> None:
        st = _link_target(root, rel)
        if st is not None:
            files.append(SourceFile(rel, language, st.st_size, st.st_mtime_ns))

    def take_walked(names: list[str], entries: list[os.DirEntry]) -> None:
        # `take` of the walk's names: their folders are none it skips (it enters none), and
        # each file's lstat is its entry's (no path joined per file, ~1/4 of take's work)
        for rel, e in zip(names, entries):
            language = language_name_for(e.name, langs)
            if language is None:
                if configs_out is not None and e.name in wanted:
                    _read_config(root, rel, configs_out, config.max_file_size)
                continue
            try:
                st = e.stat(follow_symlinks=False)
            except OSError:
                continue  # gone since the walk listed it
            if stat.S_ISREG(st.st_mode):
                files.append(SourceFile(rel, language, st.st_size, st.st_mtime_ns))
            elif stat.S_ISLNK(st.st_mode):
                linked(rel, language)

    told = 0  # the files `found` heard of

    def tell(least: int) -> None:
        nonlocal told
        if found is not None and len(files) - told >= least:
            found(files[told:])
            told = len(files)

    def each(names: list[str], entries: list[os.DirEntry]) -> None:
        take_walked(names, entries)
        # each folder's files at once until FOUND_BATCH are told (the extraction's workers
        # start with the first few), then batches
        tell(FOUND_BATCH if told >= FOUND_BATCH else 1)

    names = _git_files(repo, untracked, meanwhile and (lambda: pre.update(meanwhile() or ())))
    if names is None:
        # each folder's files taken as the walk lists them, then sorted by path (the order
        # of the walk's sorted names)
        _walk_files(repo, config.ignore, listed, each)
        tell(1)
        files.sort(key=_path_of)
    else:
        listing = untracked.tracked if untracked is not None else None
        if listing is not None:
            indexable = listing.indexable
        if config.ignore:
            rules = IgnoreRules()
            rules.add("", list(config.ignore))
            names = [n for n in names if not rules.ignored(n, False)]
        take(names)
        tell(1)
    return files


def _link_target(root: str, rel: str) -> os.stat_result | None:
    """The stat of the file the link `rel` names, or None: not a file, or outside `root`."""
    real = os.path.realpath(os.path.join(root, rel))
    if not (real == root or real.startswith(root + os.sep)) or not os.path.isfile(real):
        return None
    try:
        return os.stat(real)
    except OSError:
        return None


def _path_of(sf: SourceFile) -> str:
    return sf.path


def _read_config(root: str, rel: str, out: dict[str, str], max_size: int) -> None:
    full = os.path.join(root, rel)
    real = os.path.realpath(full)
    if not (real.startswith(root + os.sep) and os.path.isfile(real)):
        return
    try:
        if os.path.getsize(real) <= max_size:
            with open(real, encoding="utf-8", errors="replace") as fh:
                out[rel] = fh.read()
    except OSError:
        pass
