"""path -> a file's index, built when first asked for (the resolvers' `files`)."""

from __future__ import annotations


class LazyIndexes(dict):
    """path -> FileIndex, built on first use: an incremental run reads few of the files."""

    def __init__(self, build):
        super().__init__()
        self._build = build

    def __missing__(self, path: str):
        fi = self[path] = self._build(path)
        return fi
