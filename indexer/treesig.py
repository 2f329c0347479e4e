"""The working tree's stat signature: deciding freshness without running git or reading files.

`take` runs at the end of an analyze, after the files were read, and records what the
tree looked like *as the index describes it*:
- every indexed file's stamp (size, mtime, ctime, inode), when the stamp was already
  older than the racy window when the build read it, so the content read is the
  content that stamp stands for; a file touched within the window (or since) keeps
  its indexed content entry instead, to be compared by content;
- every folder a file could be added to (all but the always-skipped ones and the ones
  git or the `.gitignore` rules ignore), with its mtime and a digest of the names in
  it that matter (subfolders, indexable files, `.gitignore`): a file added or removed
  changes its folder's mtime. A folder whose listing disagrees with the index (a file
  added while the build ran, an indexable file git ignores) is never trusted;
- in git, `HEAD`, the branch's ref (loose or packed), git's index file (what is
  tracked), `info/exclude` and every `.gitignore` that decides what is indexed; outside
  git, that no `.git` has appeared in the tree or above it.

`treecheck.TreeCheck.unchanged()` stats all of that again (about 6,000 stats on Django, no file
read, no subprocess): True means the tree, HEAD and the indexable set are exactly as
signed, so nothing drifted since indexing. False means only "cannot tell": the caller
runs the thorough check. As in git's racy-git rule, a stamp is trusted only when it
is older than the racy window (a write in the same clock tick as an earlier one would
not change it): entries that are not are compared by content, and, once verified and
old enough, remembered by this `TreeCheck` so the next call only stats them.

Not seen: the user-wide excludes file (core.excludesFile) and edits that keep a
file's size, mtime, ctime and inode (none that POSIX tools make).
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import time
from collections.abc import Iterable, Mapping
from pathlib import Path

import xxhash

from codeimpact.graph.errors import CodeImpactError
from codeimpact.graph.layout import read_current
from codeimpact.graph.meta_files import meta_from_files
from codeimpact.indexer.config import IndexConfig
from codeimpact.indexer.discover import (
    ALWAYS_SKIPPED,
    IgnoreRules,
    Listed,
    TrackedListing,
    index_state,
)
from codeimpact.indexer.fileset import config_rules, indexable_name
from codeimpact.indexer.gitinfo import try_git
from codeimpact.indexer.lang import EXTENSIONS, language_name_for
from codeimpact.native.record import Compared, Hashed

SIGNATURE_VERSION = 1
RACY_NS = 2_000_000_000  # as indexer.scanning's: generous for coarse (FAT, NFS) timestamps
MAX_ENTRIES = 400_000  # beyond this a stat pass is no longer cheap: record nothing
GITIGNORE = ".gitignore"
NOT_TRUSTED = -1  # a folder mtime that never matches: check its listing

Stamp = tuple[int, int, int, int]  # size, mtime_ns, ctime_ns, inode


def stamp_of(st: os.stat_result) -> Stamp:
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def is_settled(st: os.stat_result, before_ns: int) -> bool:
    """Not written (nor its inode changed) within the racy window before `before_ns`."""
    return max(st.st_mtime_ns, st.st_ctime_ns) < before_ns - RACY_NS


def raw_entry(full: str) -> str | None:
    """The content entry of a file that is not indexed (a .gitignore, git's HEAD)."""
    try:
        with open(full, "rb") as fh:
            return "raw:" + xxhash.xxh3_64_hexdigest(fh.read())
    except OSError:
        return None


class TreeSignature(Compared):
    taken_at_ns: int
    git: bool
    commit: str | None  # HEAD when taken (None outside git or before the first commit)
    branch: str | None  # None when detached or outside git
    stamps: dict[str, Stamp]  # trusted stamps
    contents: dict[str, str]  # path -> content entry
    absent: list[str]  # paths that must not exist
    links: list[str]  # indexed files that are symbolic links
    # git's index file (what is tracked): its stamp, and a digest of the indexable paths
    # it tracks, which decides when the stamp changed (`git add`, a refresh by `git status`)
    git_index: str | None
    git_index_stamp: Stamp | None  # None: racy when taken, compare the paths
    tracked: str | None
    # what `tracked` was taken under (tracked_key: the rules that decide what is indexable),
    # so the next signature may reuse it while git's index file is the same one
    tracked_key: str | None
    dirs: dict[str, tuple[int, int, str | None]]
    # ^ folder -> (mtime_ns, inode, digest of its names; None: never trusted)
    # Paths are relative to the repository, or absolute for git's files outside it.
    # what the run's `git status` saw (worktree.StatusRecord.to_json), for the next run's
    # status of the paths that can have changed since (None: run a whole one)
    status: dict | None
    __slots__ = (
        "taken_at_ns",
        "git",
        "commit",
        "branch",
        "stamps",
        "contents",
        "absent",
        "links",
        "git_index",
        "git_index_stamp",
        "tracked",
        "tracked_key",
        "dirs",
        "status",
    )

    def __init__(
        self,
        taken_at_ns: int,
        git: bool,
        commit: str | None,
        branch: str | None,
        stamps: dict[str, Stamp] | None = None,
        contents: dict[str, str] | None = None,
        absent: list[str] | None = None,
        links: list[str] | None = None,
        git_index: str | None = None,
        git_index_stamp: Stamp | None = None,
        tracked: str | None = None,
        tracked_key: str | None = None,
        dirs: dict[str, tuple[int, int, str | None]] | None = None,
        status: dict | None = None,
    ) -> None:
        self.taken_at_ns = taken_at_ns
        self.git = git
        self.commit = commit
        self.branch = branch
        self.stamps = {} if stamps is None else stamps
        self.contents = {} if contents is None else contents
        self.absent = [] if absent is None else absent
        self.links = [] if links is None else links
        self.git_index = git_index
        self.git_index_stamp = git_index_stamp
        self.tracked = tracked
        self.tracked_key = tracked_key
        self.dirs = {} if dirs is None else dirs
        self.status = status

    def to_text(self) -> str:
        return json.dumps(
            {
                "v": SIGNATURE_VERSION,
                "t": self.taken_at_ns,
                "git": self.git,
                "commit": self.commit,
                "branch": self.branch,
                "s": [[p, *s] for p, s in self.stamps.items()],
                "c": self.contents,
                "a": self.absent,
                "l": self.links,
                "gi": [self.git_index, self.git_index_stamp, self.tracked, self.tracked_key],
                "d": [[p, *d] for p, d in self.dirs.items()],
                **({"st": self.status} if self.status is not None else {}),
            },
            separators=(",", ":"),
        )

    @classmethod
    def from_text(cls, text: object) -> TreeSignature | None:
        """The signature, or None for anything this version did not write."""
        try:
            raw = json.loads(text) if isinstance(text, str) else None
            if not isinstance(raw, dict) or raw.get("v") != SIGNATURE_VERSION:
                return None
            gi = [*raw.get("gi", ()), None, None, None, None][:4]
            return cls(
                taken_at_ns=int(raw["t"]),
                git=bool(raw["git"]),
                commit=raw["commit"],
                branch=raw["branch"],
                stamps={p: (int(a), int(b), int(c), int(d)) for p, a, b, c, d in raw["s"]},
                contents={str(p): str(e) for p, e in raw["c"].items()},
                absent=[str(p) for p in raw["a"]],
                links=[str(p) for p in raw["l"]],
                dirs={p: (int(m), int(i), dg) for p, m, i, dg in raw["d"]},
                git_index=None if gi[0] is None else str(gi[0]),
                git_index_stamp=None if gi[1] is None else tuple(int(x) for x in gi[1]),
                tracked=None if gi[2] is None else str(gi[2]),
                tracked_key=None if gi[3] is None else str(gi[3]),
                status=raw["st"] if isinstance(raw.get("st"), dict) else None,
            )
        except (ValueError, TypeError, KeyError):
            return None


# --------------------------------------------------------------------------- git
def _git(repo: Path, *args: str) -> str | None:
    out = try_git(repo, *args)
    return out.stdout.decode("utf-8", "surrogateescape") if out is not None else None


class _GitDirs(Hashed):
    git_dir: str  # HEAD and index live here (per worktree)
    common_dir: str  # refs, packed-refs, info/exclude
    toplevel: str
    __slots__ = ("git_dir", "common_dir", "toplevel")

    def __init__(self, git_dir: str, common_dir: str, toplevel: str) -> None:
        self.git_dir = git_dir
        self.common_dir = common_dir
        self.toplevel = toplevel


def _git_dirs(repo: Path) -> _GitDirs | None:
    out = _git(
        repo,
        "rev-parse",
        "--path-format=absolute",
        "--git-dir",
        "--git-common-dir",
        "--show-toplevel",
    )
    lines = out.splitlines() if out else []
    return _GitDirs(*lines) if len(lines) == 3 else None


def _packed_ref(common_dir: str, ref: str) -> str | None:
    try:
        with open(os.path.join(common_dir, "packed-refs"), encoding="utf-8") as fh:
            for line in fh:
                sha, _, name = line.rstrip("\n").partition(" ")
                if name == ref:
                    return sha
    except OSError:
        pass
    return None


class _Recorder:
    """Adds paths to a signature: a trusted stamp when old enough, else the content."""

    def __init__(self, sig: TreeSignature, root: str, config: IndexConfig):
        self.sig = sig
        self.root = root
        self.config = config

    def add(self, path: str) -> bytes | None:
        """Record `path` (relative or absolute); its bytes when it is a file, None if absent."""
        full = os.path.join(self.root, path)
        try:
            st = os.stat(full)
            with open(full, "rb") as fh:
                data = fh.read()
        except FileNotFoundError:
            self.sig.absent.append(path)
            return None
        except OSError:
            self.sig.contents[path] = "unreadable"  # never equal to a real entry
            return None
        if is_settled(st, self.sig.taken_at_ns):
            self.sig.stamps[path] = stamp_of(st)
        else:
            self.sig.contents[path] = "raw:" + xxhash.xxh3_64_hexdigest(data)
        return data


def _record_git(rec: _Recorder, dirs: _GitDirs, repo: Path, previous: TreeSignature | None,
                listing: TrackedListing | None = None) -> None:  # fmt: skip
    sig = rec.sig
    head = rec.add(os.path.join(dirs.git_dir, "HEAD"))
    text = head.decode("utf-8", "replace").strip() if head is not None else ""
    if text.startswith("ref: "):
        ref = text[5:]
        sig.branch = ref[len("refs/heads/") :] if ref.startswith("refs/heads/") else ref
        loose = rec.add(os.path.join(dirs.common_dir, ref))
        if loose is not None:
            sig.commit = loose.decode("ascii", "replace").strip() or None
        else:
            rec.add(os.path.join(dirs.common_dir, "packed-refs"))
            sig.commit = _packed_ref(dirs.common_dir, ref)
    else:
        sig.commit = text or None
    _record_git_index(sig, os.path.join(dirs.git_dir, "index"), repo, rec.config, previous,
                      listing)  # fmt: skip
    rec.add(os.path.join(dirs.common_dir, "info", "exclude"))
    # .gitignore files above the repository, when it is a folder inside the work tree
    top = Path(dirs.toplevel)
    for folder in [repo, *repo.parents]:
        if folder == repo:
            continue
        rec.add(str(folder / GITIGNORE))
        if folder == top:
            break


def tracked_digest(repo: Path, config: IndexConfig) -> str | None:
    """A digest of the indexable paths git tracks under `repo` (None when git failed)."""
    out = _git(repo, "ls-files", "-z")
    if out is None:
        return None
    rules = config_rules(config)
    return names_digest([p for p in out.split("\0") if p and indexable_name(p, config, rules)])


def tracked_key(config: IndexConfig) -> str:
    """What decides which tracked paths count (`tracked_digest`): the config's ignore
    patterns and languages, and this version's extensions and always-skipped folders."""
    languages = sorted(config.languages) if config.languages is not None else None
    rules = [list(config.ignore), languages, sorted(EXTENSIONS), sorted(ALWAYS_SKIPPED)]
    return xxhash.xxh3_64_hexdigest(json.dumps(rules).encode())


def _record_git_index(sig: TreeSignature, path: str, repo: Path, config: IndexConfig,
                      previous: TreeSignature | None = None,
                      listing: TrackedListing | None = None) -> None:  # fmt: skip
    try:
        st = os.stat(path)
    except OSError:
        st = None  # no index file yet: the tracked set decides
    sig.git_index = path
    sig.git_index_stamp = stamp_of(st) if st and is_settled(st, sig.taken_at_ns) else None
    sig.tracked_key = tracked_key(config)
    if (
        previous is not None
        and sig.git_index_stamp is not None
        and (previous.git_index, previous.git_index_stamp) == (path, sig.git_index_stamp)
        and previous.tracked is not None
        and previous.tracked_key == sig.tracked_key
    ):
        # the same index file (git writes a new one, another inode, for every change), settled
        # both times: the same tracked set. Saves `git ls-files` and a pass over its ~7,000
        # paths (Django) on every edit
        sig.tracked = previous.tracked
        return
    if listing is not None and st is not None and _same_index(listing, path, st):
        # the index file the run's own listing read (discover's `git ls-files`, before the
        # files were read), unchanged since: the paths it tracked are the ones git lists now
        # (a `git ls-files` less per edit, ~25 ms of CPU on Django, whose index file the
        # user's own git commands often leave racy). Changed since: git is asked, as before
        sig.tracked = names_digest(listing.tracked())
        return
    sig.tracked = tracked_digest(repo, config)


def _same_index(listing: TrackedListing, path: str, st: os.stat_result) -> bool:
    """Whether git's index file at `path` (stat `st`) is the one `listing` was made from: the
    same file, stat and checksum (the stat alone could miss two writes in one clock tick
    that reuse the inode: racy, as `is_settled` says)."""
    if not (
        os.path.samestat(listing.index_stat, st) and stamp_of(listing.index_stat) == stamp_of(st)
    ):
        return False
    now = index_state(path)
    return now is not None and stamp_of(now[0]) == stamp_of(st) and now[1] == listing.index_tail


def _record_no_git(rec: _Recorder, repo: Path) -> None:
    for folder in (repo, *repo.parents):
        rec.sig.absent.append(str(folder / ".git"))


# -------------------------------------------------------------------------- walk
def names_digest(names: list[str]) -> str:
    h = xxhash.xxh3_64()
    for name in sorted(names):
        h.update(name.encode("utf-8", "surrogateescape") + b"\0")
    return h.hexdigest()


class _Listing(Compared):
    """One folder as the signature sees it."""

    files: list[str]  # indexable files (paths), ignored ones too in git (tracked ones count)
    subdirs: list[str]  # paths of the subfolders that are not always skipped
    gitignore: bool
    __slots__ = ("files", "subdirs", "gitignore")

    def __init__(self, files: list[str], subdirs: list[str], gitignore: bool) -> None:
        self.files = files
        self.subdirs = subdirs
        self.gitignore = gitignore


def list_folder(root: str, rel: str, config: IndexConfig, cfg_rules: IgnoreRules | None,
          git: bool, rules: IgnoreRules, load_own_ignore: bool = True,
          entries: list[os.DirEntry] | None = None) -> _Listing | None:  # fmt: skip
    """One folder's listing (of `entries` when given: its entries as listed already); with
    `load_own_ignore`, its `.gitignore` joins `rules` first."""
    if entries is None:
        try:
            with os.scandir(os.path.join(root, rel)) as it:
                entries = list(it)
        except OSError:
            return None
    out = _Listing([], [], False)
    prefix = f"{rel}/" if rel else ""
    langs = config.languages
    names: list[str] = []
    for e in entries:
        name = e.name
        try:
            is_dir = e.is_dir(follow_symlinks=False)
        except OSError:
            is_dir = False
        if is_dir:
            if name not in ALWAYS_SKIPPED:
                out.subdirs.append(prefix + name)
        elif name == GITIGNORE:
            out.gitignore = True
            if load_own_ignore:
                _load_ignore(root, rel, rules)
        else:
            names.append(name)
    for name in names:
        # the folder parts were checked on the way down: only the name decides here
        if language_name_for(name, langs) is None:
            continue
        child = prefix + name
        if cfg_rules is not None and cfg_rules.ignored(child, False):
            continue
        if git or not rules.ignored(child, False):
            # outside git, discover's walk skips ignored files; in git a tracked one counts
            out.files.append(child)
    return out


def folder_names(listing: _Listing, walked_subdirs: list[str]) -> list[str]:
    names = [p.rpartition("/")[2] for p in listing.files]
    names += [p.rpartition("/")[2] + "/" for p in walked_subdirs]
    if listing.gitignore:
        names.append(GITIGNORE)
    return names


def _load_ignore(root: str, rel: str, rules: IgnoreRules) -> None:
    try:
        with open(os.path.join(root, rel, GITIGNORE), encoding="utf-8", errors="replace") as fh:
            rules.add(rel, fh.readlines())
    except OSError:
        pass


def rules_down_to(root: str, rel: str) -> IgnoreRules:
    """The `.gitignore` rules that apply inside folder `rel` (its own and its parents')."""
    rules = IgnoreRules()
    parts = rel.split("/") if rel else []
    for k in range(len(parts) + 1):
        _load_ignore(root, "/".join(parts[:k]), rules)
    return rules


def _git_ignored(repo: Path, candidates: list[str]) -> set[str]:
    """The folders among `candidates` that git itself ignores (`git check-ignore`)."""
    if not candidates:
        return set()
    paths = b"".join(c.encode("utf-8", "surrogateescape") + b"/\0" for c in candidates)
    out = try_git(repo, "check-ignore", "-z", "--stdin", stdin=paths, ok_codes=(0, 1))
    if out is None:
        return set()
    listed = out.stdout.decode("utf-8", "surrogateescape").split("\0")
    return {p.rstrip("/") for p in listed if p}


def ignored_dirs(repo: Path, candidates: list[str], git: bool,
                  rules: IgnoreRules) -> set[str]:  # fmt: skip
    """The candidate folders that discover would not look into.

    Outside git that is exactly what the `.gitignore` rules say (discover's walk uses
    the same matcher); in git only what git confirms, so a matcher slip cannot hide a
    folder whose files git would index.
    """
    maybe = [c for c in candidates if rules.ignored(c, True)]
    return _git_ignored(repo, maybe) if git else set(maybe)


class _Folder(Compared):
    mtime: int
    ino: int
    subdirs: list[str]  # the subfolders walked
    gitignore: bool
    listing: _Listing | None  # None: the previous signature's entry still holds
    digest: str | None  # that entry's digest
    __slots__ = ("mtime", "ino", "subdirs", "gitignore", "listing", "digest")

    def __init__(
        self,
        mtime: int,
        ino: int,
        subdirs: list[str],
        gitignore: bool,
        listing: _Listing | None,
        digest: str | None = None,
    ) -> None:
        self.mtime = mtime
        self.ino = ino
        self.subdirs = subdirs
        self.gitignore = gitignore
        self.listing = listing
        self.digest = digest


class _Restart(Exception):
    """A `.gitignore` appeared or went: what the previous walk pruned may differ."""


def _previous_usable(previous: TreeSignature | None, root: str) -> TreeSignature | None:
    """The previous signature, if its folders' listings can stand for themselves: the same
    ignore files with the same stamps (they decide which folders are walked)."""
    if previous is None:
        return None
    for path, stamp in previous.stamps.items():
        if _is_ignore_file(path):
            try:
                if stamp_of(os.stat(os.path.join(root, path))) != stamp:
                    return None
            except OSError:
                return None
    for path, _entry in previous.contents.items():
        if _is_ignore_file(path):
            return None  # racy then: not worth comparing
    for path in previous.absent:
        if _is_ignore_file(path) and os.path.lexists(os.path.join(root, path)):
            return None
    return previous


def _is_ignore_file(path: str) -> bool:
    return path.rpartition("/")[2] == GITIGNORE or path.endswith("/info/exclude")


def _walk(repo: Path, config: IndexConfig, git: bool, previous: TreeSignature | None = None,
          listed: Listed | None = None) -> dict[str, _Folder] | None:  # fmt: skip
    """folder -> what the signature records, for every folder discover looks into.

    A folder whose mtime and inode are those a usable `previous` signature trusted has the
    same listing as then: its entry and its subfolders are taken from there, not listed.
    Outside git, a folder in `listed` (discover's walk: its stat taken before its entries
    were listed, as here) is taken from there, not listed again: the signature then says
    what the tree held when discover listed the files the index holds, and a change since
    has moved the folder's mtime off the recorded one.
    """
    listed = None if git else listed
    try:
        return _walk_once(repo, config, git, _previous_usable(previous, str(repo)), listed)
    except _Restart:
        return _walk_once(repo, config, git, None, listed)


def _walk_once(repo: Path, config: IndexConfig, git: bool, previous: TreeSignature | None,
               listed: Listed | None = None) -> dict[str, _Folder] | None:  # fmt: skip
    root = str(repo)
    cfg_rules = config_rules(config)
    rules = IgnoreRules()
    rules.add("", list(config.ignore))
    children: dict[str, list[str]] = {}
    had_ignore: set[str] = set()
    if previous is not None:
        for rel in previous.dirs:
            if rel:
                children.setdefault(rel.rpartition("/")[0], []).append(rel)
        for path in (*previous.stamps, *previous.contents):
            if path.rpartition("/")[2] == GITIGNORE and not os.path.isabs(path):
                had_ignore.add(path.rpartition("/")[0])
    out: dict[str, _Folder] = {}
    pending = [""]
    while pending:
        level: list[tuple[str, _Folder]] = []
        for rel in pending:
            seen = listed.get(rel) if listed else None
            try:
                st = seen[0] if seen is not None else os.stat(os.path.join(root, rel))
            except OSError:
                return None
            old = previous.dirs.get(rel) if previous is not None else None
            if (
                old is not None
                and old[0] != NOT_TRUSTED
                and old[2] is not None
                and (st.st_mtime_ns, st.st_ino) == (old[0], old[1])
            ):
                if rel in had_ignore:
                    _load_ignore(root, rel, rules)
                kids = children.get(rel, [])
                level.append((rel, _Folder(old[0], old[1], kids, rel in had_ignore, None, old[2])))
                continue
            listing = list_folder(root, rel, config, cfg_rules, git, rules,
                                  entries=None if seen is None else seen[1])  # fmt: skip
            if listing is None:
                return None
            if previous is not None and listing.gitignore != (rel in had_ignore):
                raise _Restart
            level.append((rel, _Folder(st.st_mtime_ns, st.st_ino, [], listing.gitignore, listing)))
        if len(out) + len(level) > MAX_ENTRIES:
            return None
        candidates = [sub for _, f in level if f.listing for sub in f.listing.subdirs]
        ignored = ignored_dirs(repo, candidates, git, rules)
        pending = []
        for rel, folder in level:
            if folder.listing is not None:
                folder.subdirs = [sub for sub in folder.listing.subdirs if sub not in ignored]
            out[rel] = folder
            pending += folder.subdirs
    return out


FileStat = tuple[bool, "os.stat_result | None"]  # a symbolic link?, the stat of its target


def stat_files(root: str, paths: Iterable[str]) -> dict[str, FileStat]:
    """path -> (a symbolic link?, the stat of the file it names; None if it is gone)."""
    out: dict[str, FileStat] = {}
    lstat, join = os.lstat, os.path.join
    for path in paths:
        full = join(root, path)
        try:
            st = lstat(full)
            if stat.S_ISLNK(st.st_mode):
                try:
                    out[path] = (True, os.stat(full))
                except OSError:
                    out[path] = (True, None)
                continue
        except OSError:
            out[path] = (False, None)
            continue
        out[path] = (False, st)
    return out


def take(repo: Path, config: IndexConfig, indexed: Mapping[str, str],
         settled: Mapping[str, tuple[int, int]], scanned_at_ns: int, in_git: bool,
         previous: TreeSignature | None = None,
         stats: Mapping[str, FileStat] | None = None,
         listed: Listed | None = None,
         listing: TrackedListing | None = None) -> TreeSignature | None:  # fmt: skip
    """The signature of the tree as the index describes it (None: no cheap check here).

    `indexed`: path -> content entry of every indexed file, as the build read it;
    `settled`: path -> (size, mtime) of those whose stamp was older than the racy
    window before `scanned_at_ns` (taken before discover listed the files) when read.
    `previous`: the last signature taken here, whose folders unchanged since are not
    listed again (a one-file edit of Django lists a few folders instead of 3,247).
    `stats`: `stat_files` of the indexed files, taken after they were read (else taken here).
    `listed`: outside git, the folders discover's walk listed (`_walk`); `listing`: in git,
    what discover's `git ls-files` said is tracked (`_record_git_index`).
    """
    repo = repo.resolve()
    root = str(repo)
    sig = TreeSignature(time.time_ns(), in_git, None, None)
    rec = _Recorder(sig, root, config)
    if in_git:
        dirs = _git_dirs(repo)
        if dirs is None:
            return None
        _record_git(rec, dirs, repo, previous, listing)
        if sig.tracked is None:
            return None
    else:
        _record_no_git(rec, repo)
    walked = _walk(repo, config, in_git, previous, listed)
    if walked is None or len(indexed) + len(walked) > MAX_ENTRIES:
        return None
    in_folder: dict[str, set[str]] = {}
    for path in indexed:
        in_folder.setdefault(path.rpartition("/")[0], set()).add(path)
    for rel, folder in walked.items():
        if folder.gitignore:
            rec.add(_join(rel, GITIGNORE))
        if folder.listing is None:  # as the previous signature recorded it
            sig.dirs[rel] = (folder.mtime, folder.ino, folder.digest)
            continue
        digest = names_digest(folder_names(folder.listing, folder.subdirs))
        if folder.mtime < scanned_at_ns - RACY_NS:
            # unchanged since before discover listed the files: its listing then was this one
            sig.dirs[rel] = (folder.mtime, folder.ino, digest)
        else:
            # changed since: trusted only by a listing that is the index's own
            agrees = set(folder.listing.files) == in_folder.get(rel, set())
            sig.dirs[rel] = (NOT_TRUSTED, folder.ino, digest if agrees else None)
    if stats is None:
        stats = stat_files(root, indexed)
    for path, entry in indexed.items():
        is_link, st = stats[path]
        if is_link:
            sig.links.append(path)  # its target may change where no folder watch sees it
        if st is None:
            sig.contents[path] = entry  # gone since it was read: the check will say so
            continue
        was = settled.get(path)
        if was == (st.st_size, st.st_mtime_ns) and is_settled(st, scanned_at_ns):
            sig.stamps[path] = stamp_of(st)
        else:
            sig.contents[path] = entry
    return sig


# ------------------------------------------------------------------------- the last one
_OLD_LAST_NAME = "treesig-last.json"  # a copy this version no longer keeps


def load_last(index_dir: Path) -> TreeSignature | None:
    """The signature of the live generation, the last one published here (a cache: only its
    folders whose mtime and inode still match are used; None when unreadable). Read from
    the generation's own file: the copy kept beside it doubled 570 KB on Django."""
    with contextlib.suppress(OSError):
        (index_dir / _OLD_LAST_NAME).unlink()
    try:
        gen = read_current(index_dir)
    except (CodeImpactError, OSError):  # no index yet, or a damaged one: list every folder
        return None
    return TreeSignature.from_text(meta_from_files(gen.path).get("tree_signature"))


def _join(rel: str, name: str) -> str:
    return f"{rel}/{name}" if rel else name
