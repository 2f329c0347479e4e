"""The working tree as freshness sees it: HEAD, and which indexable files differ from it.

The *dirty set* is every indexable file whose content may differ from HEAD's
tree: what `git status` lists as modified, staged, deleted or untracked (ignored
files are not indexed, so they are not listed either). Outside git, and in a
repository with no commit, there is no HEAD to differ from, so every indexable
file is dirty. Each dirty path maps to an *entry*: the file's content hash (the
same xxh3 as `reading.content_hash`, computed by `reading.read_source`), its size
when it could not be hashed (too large, unreadable), or `-` when it is absent.
The *dirty digest* is xxh3 over the sorted (path, entry) pairs, so an equal HEAD
plus an equal dirty digest mean the indexed content is the content on disk.

Which files are indexable follows `discover.discover` exactly: the same
language, ignore and always-skipped rules, and the same symlink rules (a link
that leaves the repository is never read). The git commands run with
`--no-optional-locks` (`gitinfo`), so checking freshness never writes into `.git`.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
from collections.abc import Collection, Mapping
from pathlib import Path

import xxhash

from codeimpact.graph import layout
from codeimpact.indexer import pipe_codec, treesig
from codeimpact.indexer.config import IndexConfig
from codeimpact.indexer.discover import TrackedListing, discover
from codeimpact.indexer.fileset import ABSENT, config_rules, entry, hash_entry, indexable_name
from codeimpact.indexer.fork_guard import FORKED, fork_unsafe_reason, in_process
from codeimpact.indexer.gitinfo import (
    GIT_TIMEOUT,
    git_error,
    not_a_repository,
    run_in_work_tree,
    start_git,
    try_git,
)
from codeimpact.indexer.lifeline import die_with_parent
from codeimpact.indexer.reading import read_source
from codeimpact.native.record import Hashed


class Worktree(Hashed):
    """What `git status` says about the indexable files (or, outside git, all of them)."""

    in_git: bool
    head: str | None  # None outside git or before the first commit
    branch: str | None  # None when detached or outside git
    detached: bool
    dirty: dict[str, str]  # path -> entry
    __slots__ = ("in_git", "head", "branch", "detached", "dirty")

    def __init__(
        self,
        in_git: bool,
        head: str | None,
        branch: str | None,
        detached: bool,
        dirty: dict[str, str] | None = None,
    ) -> None:
        self.in_git = in_git
        self.head = head
        self.branch = branch
        self.detached = detached
        self.dirty = {} if dirty is None else dirty

    @property
    def dirty_digest(self) -> str:
        return dirty_digest(self.dirty)


class Drift(Hashed):
    """Indexable files whose content differs from what the index holds, by kind."""

    changed: list[str]
    added: list[str]
    deleted: list[str]
    __slots__ = ("changed", "added", "deleted")

    def __init__(
        self,
        changed: list[str] | None = None,
        added: list[str] | None = None,
        deleted: list[str] | None = None,
    ) -> None:
        self.changed = [] if changed is None else changed
        self.added = [] if added is None else added
        self.deleted = [] if deleted is None else deleted

    def __bool__(self) -> bool:
        return bool(self.changed or self.added or self.deleted)


def dirty_digest(dirty: Mapping[str, str]) -> str:
    h = xxhash.xxh3_64()
    for path in sorted(dirty):
        # NUL-delimited: no path or entry contains NUL, so pairs cannot run together
        h.update(path.encode("utf-8", "surrogateescape") + b"\0" + dirty[path].encode() + b"\0")
    return h.hexdigest()


# ------------------------------------------------------------------------- git
_git = try_git


def _git_prefix(repo: Path) -> str | None:
    """`repo` relative to its git top level ("" or "sub/dir/"), None outside git.

    GitError when git refuses the repository (dubious ownership, say)."""
    if (repo / ".git").exists():
        return ""  # the common case, without a subprocess (StatusProbe reports git's errors)
    out = run_in_work_tree(repo, "rev-parse", "--show-prefix", timeout=GIT_TIMEOUT)
    return None if out is None else out.stdout.decode("utf-8", "surrogateescape").strip()


_STATUS_ARGS = ("status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all",
                "--no-renames", "--ignore-submodules=all", "--", ".")  # fmt: skip
_TRACKED_ARGS = tuple("--untracked-files=no" if a.startswith("--untracked") else a
                      for a in _STATUS_ARGS)  # fmt: skip


# git matches every pathspec against every entry of its index: a status of the paths that
# can have changed is asked only up to this many of them
MAX_STATUS_PATHS = 256


def git_index_stamp(repo: Path) -> list[int] | None:
    """The stamp (size, mtime, ctime, inode) of git's index file when `repo` is the top of a
    work tree with a `.git` folder (else None). git replaces the file to change it, so an
    equal stamp is the same index."""
    try:
        st = os.stat(os.path.join(repo, ".git", "index"))
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]


class StatusRecord(Hashed):
    """What a run's `git status` saw, kept in the generation's tree signature for the next
    run: git's index file as status began, the HEAD it listed, and the paths whose status
    may not be clean (the recorded dirty set but the untracked files)."""

    index: list[int]
    head: str | None
    paths: list[str]
    scope: str  # "whole", or "paths": git was asked about the paths that could have changed
    __slots__ = ("index", "head", "paths", "scope")

    def __init__(self, index: list[int], head: str | None, paths: list[str], scope: str) -> None:
        self.index = index
        self.head = head
        self.paths = paths
        self.scope = scope

    def to_json(self) -> dict:
        return {"index": self.index, "head": self.head, "paths": self.paths, "scope": self.scope}

    @classmethod
    def from_json(cls, raw: object) -> StatusRecord | None:
        try:
            assert isinstance(raw, dict)
            index = [int(x) for x in raw["index"]]
            paths = [str(p) for p in raw["paths"]]
            head = raw["head"]
            return cls(index, None if head is None else str(head), paths, str(raw["scope"]))
        except (AssertionError, KeyError, TypeError, ValueError):
            return None


class StatusProbe:
    """`git status` started now and read later: a build starts it once the files are read
    and reads it at the end, so the subprocess runs beside the build instead of after it.

    `untracked`: the untracked files discover's `git ls-files` listed before the files were
    read (repository-relative). git status then lists tracked files only (no walk of the
    tree for untracked ones: ~40 of its ~70 ms CPU on Django), and `scan` takes the
    untracked ones from that list: those indexed. An untracked file that appears later (while
    the run reads) is in neither, so the recorded dirty set lacks it, and a later check,
    which lists it, calls the index stale, as it is (the file is not indexed).

    `since` (what the live generation's status saw) and `changed` (the paths read with
    other content than it holds, or gone): when git's index file is the one `since` saw,
    git is asked only about `changed` and the paths `since` did not find clean. Every other
    tracked file has the content it had then, against the same index, so the same status
    (clean); HEAD is checked in the answer (moved: a whole status instead). A whole status
    compares the stat of every tracked file with git's index and hashes the files whose
    stat differs: with --no-optional-locks git never writes back what it found, so a tree
    whose stats all changed (copied, hard-linked, touched) cost the kernel's every analyze
    4-10 s of git hashing 1.2 GB."""

    def __init__(self, repo: Path, untracked: set[str] | None = None,
                 since: StatusRecord | None = None, changed: Collection[str] = ()):  # fmt: skip
        self.untracked = untracked
        self.repo = repo
        # taken before git starts: the index the answer describes is this one or a later one
        self.index_stamp = git_index_stamp(repo)
        self.scope = "whole"
        self._head: str | None = None
        self._args = _STATUS_ARGS if untracked is None else _TRACKED_ARGS
        ask = set()
        if since is not None and untracked is not None and self.index_stamp is not None:
            if since.index == self.index_stamp:
                ask = {*since.paths, *changed}
        if 0 < len(ask) <= MAX_STATUS_PATHS:
            self.scope, self._head = "paths", since.head
            self._args = ("--literal-pathspecs", *_TRACKED_ARGS[:-1], *sorted(ask))
        self._start()

    def _start(self) -> None:
        try:
            self._proc = start_git(self.repo, *self._args)
        except OSError:
            self._proc = None

    def result(self) -> tuple[str | None, str | None, bool, list[str]] | None:
        """What `_status_entries` says (None outside git or when git could not run);
        GitError when git refused the repository."""
        proc, self._proc = self._proc, None
        if proc is None:
            return None
        try:
            stdout, stderr = proc.communicate(timeout=GIT_TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            return None
        if proc.returncode != 0:
            if not_a_repository(stderr):
                return None
            raise git_error(self._args, proc.returncode, stderr)
        out = _parse_status(stdout)
        if self.scope == "paths" and out[0] != self._head:  # HEAD moved: ask about all
            self.scope, self._args = "whole", _TRACKED_ARGS
            self._start()
            return self.result()
        return out

    def close(self) -> None:
        """Stop git if the result will not be read (the build failed)."""
        if self._proc is not None:
            self._proc.kill()
            self._proc.communicate()
            self._proc = None


def _status_entries(repo: Path) -> tuple[str | None, str | None, bool, list[str]] | None:
    """(head, branch, detached, paths relative to the top level) from one `git status`."""
    return StatusProbe(repo).result()


def _parse_status(stdout: bytes) -> tuple[str | None, str | None, bool, list[str]]:
    head: str | None = None
    branch: str | None = None
    detached = False
    paths: list[str] = []
    tokens = stdout.decode("utf-8", "surrogateescape").split("\0")
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        i += 1
        if not tok:
            continue
        kind = tok[0]
        if kind == "#":
            parts = tok.split(" ", 2)
            if len(parts) == 3 and parts[1] == "branch.oid" and parts[2] != "(initial)":
                head = parts[2]
            elif len(parts) == 3 and parts[1] == "branch.head":
                detached = parts[2] == "(detached)"
                branch = None if detached else parts[2]
        elif kind == "1":
            paths.append(tok.split(" ", 8)[8])
        elif kind == "2":  # a rename despite --no-renames: both ends are dirty
            paths.append(tok.split(" ", 9)[9])
            if i < len(tokens):
                paths.append(tokens[i])
                i += 1
        elif kind == "u":
            paths.append(tok.split(" ", 10)[10])
        elif kind == "?":
            paths.append(tok[2:])
    return head, branch, detached, paths


def is_shallow(repo: Path) -> bool | None:
    out = _git(repo, "rev-parse", "--is-shallow-repository")
    return None if out is None else out.stdout.strip() == b"true"


def commit_distance(repo: Path, indexed: str, head: str) -> tuple[int, int] | None:
    """(behind, ahead): commits in HEAD not in `indexed`, and the reverse.

    None when either commit is unknown here (a shallow clone cut it off, or the
    history was rewritten and collected).
    """
    if indexed == head:
        return 0, 0
    out = _git(repo, "rev-list", "--left-right", "--count", f"{indexed}...{head}", "--")
    if out is None:
        return None
    try:
        ahead, behind = (int(x) for x in out.stdout.split())
    except ValueError:
        return None
    return behind, ahead


# ----------------------------------------------------------------- the file set
def current_files(repo: Path, config: IndexConfig) -> dict[str, str]:
    """Every file `discover` would index now, path -> entry."""
    root = str(repo)
    out = {}
    for sf in discover(repo, config):
        rr = read_source(root, sf.path, config.max_file_size)
        out[sf.path] = entry(rr.content_hash, rr.size)
    return out


def scan(repo: Path, config: IndexConfig, known: Mapping[str, str] | None = None,
         probe: StatusProbe | None = None) -> Worktree:  # fmt: skip
    """The working tree now. With `known` (path -> entry of what was just indexed), a
    dirty path takes its entry from there (`-` if it was not indexed) instead of being
    re-read, so the digest describes the indexed content even if a file changed since.
    `probe` is a `git status` of `repo` started earlier, to use instead of running one.
    """
    repo = repo.resolve()
    prefix = _git_prefix(repo)
    if probe is None:
        status = _status_entries(repo) if prefix is not None else None
    elif prefix is None:
        probe.close()
        status = None
    else:
        status = probe.result()
    if status is None:
        files = dict(known) if known is not None else current_files(repo, config)
        return Worktree(False, None, None, False, files)
    head, branch, detached, paths = status
    root = str(repo)
    rules = config_rules(config)
    dirty: dict[str, str] = {}
    for top_rel in paths:
        if not top_rel.startswith(prefix):
            continue
        rel = top_rel[len(prefix) :]
        if not rel or rel.endswith("/") or not indexable_name(rel, config, rules):
            continue
        if known is not None:
            dirty[rel] = known.get(rel, ABSENT)
        else:
            dirty[rel] = hash_entry(root, rel, config)
    if probe is not None and probe.untracked is not None and known is not None:
        # untracked when discover listed them; only those read count: one gone before the
        # read was not indexed and, if still gone, is untracked nowhere now either
        for rel in probe.untracked:
            if rel in known and rel not in dirty and indexable_name(rel, config, rules):
                dirty[rel] = known[rel]
    return Worktree(True, head, branch, detached, dirty)


def index_fields(
    repo: Path,
    config: IndexConfig,
    indexed: Mapping[str, tuple[str, int]],
    settled: Mapping[str, tuple[int, int]] | None = None,
    probe: StatusProbe | None = None,
    *,
    scanned_at_ns: int | None = None,
    last: treesig.TreeSignature | None | bool = True,
    listed: dict | None = None,
    tracked: TrackedListing | None = None,
) -> dict:
    """The Meta fields an analyze records; `indexed` is path -> (content hash, size).

    Run it after the files were read. Besides what `git status` lists, the
    recorded dirty set holds every file whose content on disk no longer matches
    what was read (it changed while the analyze ran), so a file edited and then
    reverted during the run cannot make a stale index look fresh. Outside git the
    dirty set is every file, which the File table already holds: only its digest
    is stored. Must run on every write of the index, or the stored set goes stale.

    `settled` (path -> size and mtime in ns) names files whose stamp was already old
    when they were read: one that still has that stamp was not written since, and is
    not read again. `probe`: a `git status` started after the files were read.
    `scanned_at_ns` (when discover began) adds the tree's stat signature (`treesig`),
    which lets the freshness check decide without git or reading a file; `last`: the live
    generation's signature when the caller loaded it (True: load it here), and the
    signature keeps what `probe` saw (`StatusRecord`); `listed`: the folders discover's
    walk saw (outside git), which the signature takes instead of listing them again;
    `tracked`: in git, what discover's listing said is tracked (the signature's digest of it).
    """
    known = {p: entry(h, s) for p, (h, s) in indexed.items()}
    wt = scan(repo, config, known, probe)
    dirty = dict(wt.dirty)
    stats = None
    if wt.in_git:
        root = str(repo.resolve())
        settled = settled or {}
        # one stat of every file after the read, for this check and the tree signature's
        # stamps (each was a pass of its own: ~13 ms of CPU on Django's 2,900 files)
        stats = treesig.stat_files(root, known)
        for path, was in known.items():
            if path in dirty:
                continue
            stamp = settled.get(path)
            st = stats[path][1]
            if stamp is not None and st is not None and (st.st_size, st.st_mtime_ns) == stamp:
                continue
            if hash_entry(root, path, config) != was:
                dirty[path] = was
    signature = text = None
    if scanned_at_ns is not None:
        idx = layout.index_dir(repo.resolve())
        if last is True:
            last = treesig.load_last(idx)
        signature = treesig.take(repo, config, known, settled or {}, scanned_at_ns, wt.in_git,
                                 last or None, stats, listed, tracked)  # fmt: skip
        if signature is not None:
            if wt.in_git and probe is not None and probe.index_stamp is not None:
                untracked = probe.untracked or set()
                listed = sorted(p for p in dirty if p not in untracked)
                signature.status = StatusRecord(probe.index_stamp, wt.head, listed,
                                                probe.scope).to_json()  # fmt: skip
            text = signature.to_text()
    return {
        "dirty_digest": dirty_digest(dirty),
        "dirty": dirty if wt.in_git else None,
        # the HEAD the dirty set was taken against: the set means nothing for another
        "worktree": {
            "git": wt.in_git,
            "head": wt.head,
            "branch": wt.branch,
            "detached": wt.detached,
        },
        "tree_signature": text,
    }


# ------------------------------------------------------------------------ drift
def drift_between(indexed: Mapping[str, str], current: Mapping[str, str]) -> Drift:
    """Drift between two file sets, path -> entry (a missing path or `-`: absent)."""
    was = {p: e for p, e in indexed.items() if e != ABSENT}
    now = {p: e for p, e in current.items() if e != ABSENT}
    changed = sorted(p for p in was.keys() & now.keys() if was[p] != now[p])
    added = sorted(now.keys() - was.keys())
    deleted = sorted(was.keys() - now.keys())
    return Drift(changed, added, deleted)


# ------------------------------------------------------------------ early fields
class EarlyFields:
    """`index_fields` computed by a child forked as an incremental run begins (the files are
    read), handed back when the run writes: git status, the stat pass and the tree
    signature (~0.1 s of CPU on a Django edit) run on the other core while the run
    resolves, instead of in its write phase.

    The fields mean what they meant when computed at the write: git status and the stat
    pass still run after the read, in that order, and what changes after them is seen by
    the next check as before (a tracked change: git lists it; a file reverted to HEAD after
    status listed it: recorded dirty, seen clean, so stale). Where a fork is unsafe the
    fields are computed by `result`, in this process, as before."""

    def __init__(self, compute):
        self._compute = compute
        self._pid = 0
        self._fd = -1
        unsafe = fork_unsafe_reason()
        # which path ran, for the run's report: "forked", or "in this process: why"
        self.path = in_process(unsafe) if unsafe else FORKED
        if unsafe:
            return
        read_end, write_end = os.pipe()
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:  # the child: never returns
            code = 0
            try:
                os.close(read_end)
                die_with_parent(parent)
                signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
                try:
                    answer = ("ok", compute())
                except BaseException as e:  # the parent computes them itself then
                    answer = ("error", f"{type(e).__name__}: {e}")
                data = pipe_codec.dumps(answer)
                view = memoryview(len(data).to_bytes(8, "little") + data)
                while view:
                    view = view[os.write(write_end, view) :]
            except BaseException:
                code = 1
            finally:
                os._exit(code)
        os.close(write_end)
        self._pid, self._fd = pid, read_end

    def ready(self) -> bool:
        """Whether `result` would not wait for the child: its answer began to come (or it
        ended), or there is no child (`result` computes the fields here)."""
        if self._fd < 0:
            return True
        return bool(select.select([self._fd], [], [], 0)[0])

    def result(self) -> dict:
        """The fields (computed here when the child gave none: it failed or was not forked)."""
        message = b""
        if self._fd >= 0:
            # length-prefixed: a process forked later holds a copy of the pipe's write end
            with os.fdopen(self._fd, "rb", closefd=True) as fh:
                head = fh.read(8)
                if len(head) == 8:
                    size = int.from_bytes(head, "little")
                    message = fh.read(size)
                    if len(message) != size:
                        message = b""
            self._fd = -1
            self._reap()
        if message:
            answer = pipe_codec.loads(message)
            if answer[0] == "ok":
                return answer[1]
        return self._compute()

    def close(self) -> None:
        """Stop the child if the fields will not be read (a full build instead, a failure)."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        if self._pid:
            with contextlib.suppress(OSError):
                os.kill(self._pid, signal.SIGKILL)
            self._reap()

    def _reap(self) -> None:
        if self._pid:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self._pid, 0)
            self._pid = 0
