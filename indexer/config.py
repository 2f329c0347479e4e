"""Index-affecting configuration: changing any of it changes what the indexer writes."""

from __future__ import annotations

import os

from codeimpact.native.record import Compared, Hashed

# Real C projects vendor amalgamations (SQLite's sqlite3.c is 9.5 MB): 16 MiB takes them
DEFAULT_MAX_FILE_SIZE = 16 * 1024 * 1024


class IndexConfig(Hashed):
    max_file_size: int
    ignore: tuple[str, ...]  # extra gitignore-style patterns
    languages: frozenset[str] | None  # None: every supported language
    parse_timeout_ms: int
    __slots__ = ("max_file_size", "ignore", "languages", "parse_timeout_ms")

    def __init__(
        self,
        max_file_size: int = DEFAULT_MAX_FILE_SIZE,
        ignore: tuple[str, ...] = (),
        languages: frozenset[str] | None = None,
        parse_timeout_ms: int = 10_000,
    ) -> None:
        self.max_file_size = max_file_size
        self.ignore = ignore
        self.languages = languages
        self.parse_timeout_ms = parse_timeout_ms

    def identity(self) -> dict:
        return {
            "max_file_size": self.max_file_size,
            "ignore": list(self.ignore),
            "languages": sorted(self.languages) if self.languages is not None else "all",
            "parse_timeout_ms": self.parse_timeout_ms,
        }


class RunOptions(Compared):
    """How to run, not what to write: never part of the identity."""

    force: bool
    workers: int  # 0: one per core
    buffer_pool: int
    # Resolution forks workers only while (1 + workers) x this process's resident memory
    # fits: each worker may come to copy every page it reads.
    memory_budget_mb: int
    progress: bool
    lock_wait: float
    extra: dict
    __slots__ = (
        "force",
        "workers",
        "buffer_pool",
        "memory_budget_mb",
        "progress",
        "lock_wait",
        "extra",
    )

    def __init__(
        self,
        force: bool = False,
        workers: int = 0,
        buffer_pool: int = 512 * 1024 * 1024,
        memory_budget_mb: int = 3072,
        progress: bool = False,
        lock_wait: float = 0.0,
        extra: dict | None = None,
    ) -> None:
        self.force = force
        self.workers = workers
        self.buffer_pool = buffer_pool
        self.memory_budget_mb = memory_budget_mb
        self.progress = progress
        self.lock_wait = lock_wait
        self.extra = {} if extra is None else extra

    def processes(self) -> int:
        """Worker processes to extract (and resolve) with: `workers`, or one per core."""
        return self.workers or os.cpu_count() or 1
