"""Re-checking a tree signature (`treesig`): whether the tree, HEAD and the indexable set
are still as signed, without git (but for a changed index file) and without reading a
file (but for the racy ones, once). `query.freshness` keeps one per open index.
"""

from __future__ import annotations

import os
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path

from codeimpact.indexer.config import IndexConfig
from codeimpact.indexer.fileset import config_rules, hash_entry
from codeimpact.indexer.treesig import (
    RACY_NS,
    Stamp,
    TreeSignature,
    folder_names,
    ignored_dirs,
    is_settled,
    list_folder,
    names_digest,
    raw_entry,
    rules_down_to,
    stamp_of,
    tracked_digest,
)


@dataclass
class TreeCheck:
    """Re-checks one signature; remembers what it verified by content or by listing."""

    repo: Path
    config: IndexConfig
    sig: TreeSignature
    verified: dict[str, Stamp] = field(default_factory=dict)  # path -> stamp now trusted
    verified_dirs: dict[str, tuple[int, int]] = field(default_factory=dict)
    difference: str = ""  # the first path the last check could not verify

    def __post_init__(self) -> None:
        root = str(self.repo)
        join = os.path.join
        seen_by_watch = set(self.sig.links)

        def in_tree(path: str) -> bool:  # what a watch on the signature's folders sees
            return not os.path.isabs(path) and path not in seen_by_watch

        # full paths made once: joining 6,000 of them was a third of a check
        stamps = [(p, join(root, p), want) for p, want in self.sig.stamps.items()]
        self._tree_stamps = [x for x in stamps if in_tree(x[0])]
        self._other_stamps = [x for x in stamps if not in_tree(x[0])]
        self._tree_contents = {p: e for p, e in self.sig.contents.items() if in_tree(p)}
        self._other_contents = {p: e for p, e in self.sig.contents.items() if not in_tree(p)}
        self._dirs = [(rel, join(root, rel), d) for rel, d in self.sig.dirs.items()]

    def unchanged(self) -> bool:
        """True: tree, HEAD and the indexable set are as signed. False: cannot tell."""
        self.difference = ""
        return self.unchanged_outside_folders() and self._tree_unchanged()

    def unchanged_outside_folders(self) -> bool:
        """The part a watch on the signature's folders does not see: git's files, `.git`
        folders that must not exist, files reached through a symbolic link."""
        now = time.time_ns()
        return (
            self._stamps_match(self._other_stamps)
            and self._contents_match(self._other_contents, now)
            and self._absent()
            and self._tracked_same(now)
        )

    def _tracked_same(self, now: int) -> bool:
        """git's index file unchanged, or changed without changing what is tracked."""
        path = self.sig.git_index
        if path is None:
            return True
        try:
            have = stamp_of(os.stat(path))
        except OSError:
            have = None
        if have is not None and have in (self.sig.git_index_stamp, self.verified.get(path)):
            return True
        if tracked_digest(self.repo, self.config) != self.sig.tracked:
            return self._differs(path)
        if have is not None and max(have[1], have[2]) < now - RACY_NS:
            self.verified[path] = have  # the stat came first: a later write changes it
        return True

    def _tree_unchanged(self) -> bool:
        now = time.time_ns()
        return (
            self._stamps_match(self._tree_stamps)
            and self._contents_match(self._tree_contents, now)
            and self._dirs_match(now)
        )

    def _stamps_match(self, stamps: list[tuple[str, str, Stamp]]) -> bool:
        st_fn = os.stat
        verified = self.verified
        for path, full, want in stamps:
            try:
                st = st_fn(full)
            except OSError:
                return self._differs(path)
            have = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
            if have != want and verified.get(path) != have:
                return self._differs(path)
        return True

    def _contents_match(self, contents: dict[str, str], now: int) -> bool:
        root = str(self.repo)
        for path, entry in contents.items():
            if not self._content_matches(root, path, entry, now):
                return self._differs(path)
        return True

    def _absent(self) -> bool:
        root = str(self.repo)
        for path in self.sig.absent:
            if os.path.lexists(os.path.join(root, path)):
                return self._differs(path)
        return True

    def _dirs_match(self, now: int) -> bool:
        root = str(self.repo)
        st_fn = os.stat
        verified_dirs = self.verified_dirs
        for rel, full, (mtime, ino, digest) in self._dirs:
            try:
                st = st_fn(full)
            except OSError:
                return self._differs(rel or ".")
            have_dir = (st.st_mtime_ns, st.st_ino)
            if have_dir == (mtime, ino) or verified_dirs.get(rel) == have_dir:
                continue
            if digest is None or not stat.S_ISDIR(st.st_mode):
                return self._differs(rel or ".")
            if not self._listing_matches(root, rel, digest):
                return self._differs(rel or ".")
            if st.st_mtime_ns < now - RACY_NS:  # stat before the listing: safe to keep
                verified_dirs[rel] = have_dir
        return True

    def _differs(self, path: str) -> bool:
        self.difference = path
        return False

    def _content_matches(self, root: str, path: str, entry: str, now: int) -> bool:
        full = os.path.join(root, path)
        try:
            st = os.stat(full)  # before the read: a write after it changes the stamp
        except OSError:
            return False
        have = stamp_of(st)
        if self.verified.get(path) == have:
            return True
        if entry.startswith("raw:"):
            now_entry = raw_entry(full)
        else:
            now_entry = hash_entry(root, path, self.config)
        if now_entry != entry:
            return False
        if is_settled(st, now):
            self.verified[path] = have
        return True

    def _listing_matches(self, root: str, rel: str, digest: str) -> bool:
        rules = rules_down_to(root, rel)
        rules.add("", list(self.config.ignore))
        listing = list_folder(
            root, rel, self.config, config_rules(self.config), self.sig.git, rules, False
        )
        if listing is None:
            return False
        known = [sub for sub in listing.subdirs if sub in self.sig.dirs]
        new = [sub for sub in listing.subdirs if sub not in self.sig.dirs]
        # A folder not walked when signed was ignored (or is new): it matters only if
        # discover would look into it now.
        ignored = ignored_dirs(self.repo, new, self.sig.git, rules)
        walked = known + [sub for sub in new if sub not in ignored]
        return names_digest(folder_names(listing, walked)) == digest
