"""Whether an open index still describes the repository: the block every query's JSON carries.

This is `graph status` without the costly parts. It first re-stats the tree's
signature recorded at indexing (`indexer.treesig`: no git, no file read; about
6,000 stats on Django), or, in an index open for several queries, reads the file
events of the folders since the last stat pass (`TreeWatch`); only when that
cannot decide does it run one `git status` and hash the files it lists (outside
git: hash every indexable file). `method` says which way it was decided. See
`query.status` for the rules.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field

from codeimpact.indexer.config import IndexConfig
from codeimpact.indexer.treecheck import TreeCheck
from codeimpact.indexer.treesig import TreeSignature


@dataclass
class Freshness:
    fresh: bool | None  # None: not checked
    reasons: list[str] = field(default_factory=list)
    # how the tree was compared with the index: stat | watch | git-status | rehash
    # (None: not checked)
    method: str | None = None


def freshness(index) -> Freshness:
    """Fresh, or the reasons it is not (the same reasons `graph status` gives)."""
    from codeimpact.query.status import collect

    st = collect(index, exact=False)
    return Freshness(fresh=st.fresh, reasons=st.reasons, method=st.drift.method)


def freshness_of(index, check: bool) -> Freshness:
    """The freshness block; `check=False` skips the check (it runs `git status`, ~0.1 s on
    a large tree, far more than a traversal) and says so."""
    if not check:
        return Freshness(fresh=None, reasons=["freshness not checked (check_freshness=False)"])
    return freshness(index)


class TreeWatch:
    """One index's cheap tree check, kept for the life of the open index.

    The first check stats the signature (`TreeCheck`: what it verified by content is
    only stat'ed afterwards). From the `watch_from`-th check on, it also watches the
    signature's folders with inotify (Linux), set up before a stat pass: as long as no
    event has touched a file or folder that matters, the tree is as the last stat pass
    found it, and a check only stats what a folder watch cannot see (git's HEAD, ref
    and index, links). An event that matters, a lost watch or a lost event means one
    stat pass again. Without inotify (another OS, no free instance or watch), every
    check is a stat pass.

    Not seen by a watch, as by any inotify user: writes through a memory map, and
    writes made on another machine to a network filesystem.
    """

    def __init__(self, check: TreeCheck, config: IndexConfig, watch_from: int = 2):
        self.check = check
        self.config = config
        self.watch_from = watch_from
        self._lock = threading.Lock()  # the MCP server's tools share one open index
        self.calls = 0
        self._notify = None
        self._folders: dict[int, str] = {}  # watch descriptor -> folder
        self._known_unchanged = False  # the last stat pass, made while watching, found it so
        self._watch_failed = False

    @property
    def signature(self) -> TreeSignature:
        return self.check.sig

    @property
    def watching(self) -> bool:
        return self._notify is not None

    def decide(self) -> str | None:
        """How the tree was found unchanged ("stat" or "watch"), or None when it could not
        tell (the caller then asks git or hashes)."""
        with self._lock:
            return self._decide()

    def _decide(self) -> str | None:
        self.calls += 1
        if self._notify is None and not self._watch_failed and self.calls >= self.watch_from:
            self._start()
        if self._notify is not None:
            events = self._notify.read()
            if self._lost(events):
                self._restart()
            elif self._known_unchanged and not self._matter(events):
                if self.check.unchanged_outside_folders():
                    return "watch"
                self._known_unchanged = False
                return None
        ok = self.check.unchanged()
        self._known_unchanged = ok and self._notify is not None
        return "stat" if ok else None

    # ------------------------------------------------------------------ inotify
    def _start(self) -> None:
        from codeimpact.indexer.inotify import Inotify

        try:
            notify = Inotify()
        except OSError:
            self._watch_failed = True
            return
        folders = {}
        try:
            for rel in self.signature.dirs:
                folders[notify.add(os.path.join(str(self.check.repo), rel))] = rel
        except OSError:  # past the user's watch limit, or a folder gone: stat instead
            notify.close()
            self._watch_failed = True
            return
        self._notify, self._folders = notify, folders
        self._known_unchanged = False

    def _restart(self) -> None:
        self._stop()
        self._start()

    def _lost(self, events) -> bool:
        from codeimpact.indexer import inotify

        return any(
            e.mask & inotify.LOST or (e.mask & inotify.IN_ISDIR and e.mask & inotify.IN_MOVED_FROM)
            for e in events
        )

    def _matter(self, events) -> bool:
        """Whether any event touched a name the signature cares about."""
        from codeimpact.indexer import inotify
        from codeimpact.indexer.discover import ALWAYS_SKIPPED
        from codeimpact.indexer.fileset import config_rules, indexable_name
        from codeimpact.indexer.treesig import GITIGNORE

        rules = config_rules(self.config)
        for e in events:
            folder = self._folders.get(e.wd)
            if folder is None or not e.name:
                return True
            if e.mask & inotify.IN_ISDIR:
                if e.name not in ALWAYS_SKIPPED:
                    return True
                continue
            rel = f"{folder}/{e.name}" if folder else e.name
            if e.name == GITIGNORE or indexable_name(rel, self.config, rules):
                return True
        return False

    def close(self) -> None:
        with self._lock:
            self._stop()

    def _stop(self) -> None:
        if self._notify is not None:
            self._notify.close()
        self._notify = None
        self._folders = {}
        self._known_unchanged = False


def tree_watch(index, config: IndexConfig) -> TreeWatch | None:
    """The index's TreeWatch, made on first use; None when the index has no signature."""
    watch = index.tree_watch
    if watch is None:
        with index.watch_lock:
            watch = index.tree_watch
            if watch is None:
                sig = TreeSignature.from_text(index.meta.get("tree_signature"))
                if sig is None:
                    return None
                watch = index.tree_watch = TreeWatch(TreeCheck(index.repo, config, sig), config)
    return watch
