"""Facts of every file of a run, decoded only when a resolver first asks for them."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping

from codeimpact.indexer.lang.api import FileFacts


class LazyFacts(Mapping[str, FileFacts]):
    """path -> FileFacts over a fixed set of paths; `load(path)` runs once per path.

    An incremental run resolves a few files, whose lookups reach a few more: the rest of
    the repository's facts are never read or decoded.
    """

    def __init__(self, paths: Iterable[str], load: Callable[[str], FileFacts],
                 _memo: dict[str, FileFacts] | None = None):  # fmt: skip
        self._paths = list(paths)
        self._known = frozenset(self._paths)
        self._load = load
        self._memo = {} if _memo is None else _memo

    def __getitem__(self, path: str) -> FileFacts:
        f = self._memo.get(path)
        if f is None:
            if path not in self._known:
                raise KeyError(path)
            f = self._memo[path] = self._load(path)
        return f

    def __contains__(self, path: object) -> bool:
        return path in self._known

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)

    def forget(self, path: str) -> None:
        """Drop the decoded facts of `path` (asked for again, they are loaded again): a
        resolver that keeps a slim copy of each file frees the rest (cfamily/slim.py)."""
        self._memo.pop(path, None)

    def subset(self, paths: Iterable[str]) -> LazyFacts:
        """A view of some of the paths that shares the decoded facts."""
        return LazyFacts(filter(self._known.__contains__, paths), self._load, self._memo)
