"""Extraction results cached by content hash, one small file each, per runner identity."""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path


class FactsCache:
    def __init__(self, index_dir: Path, identity_digest: str):
        self.root = index_dir / "facts"
        self.dir = self.root / identity_digest[:16]

    def _path(self, content_hash: str) -> Path:
        return self.dir / content_hash[:2] / content_hash

    def get(self, content_hash: str) -> bytes | None:
        try:
            return self._path(content_hash).read_bytes()
        except OSError:
            return None

    def put(self, content_hash: str, blob: bytes) -> None:
        path = self._path(content_hash)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
            tmp.write_bytes(blob)
            os.replace(tmp, path)
        except OSError:
            pass  # a cache that cannot be written only costs time

    def prune_other_identities(self) -> None:
        if not self.root.is_dir():
            return
        for child in self.root.iterdir():
            if child != self.dir:
                with contextlib.suppress(OSError):
                    shutil.rmtree(child)

    def clear(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)
