"""Index-affecting configuration: changing any of it changes what the indexer writes."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

# Real C projects vendor amalgamations (SQLite's sqlite3.c is 9.5 MB): 16 MiB takes them
DEFAULT_MAX_FILE_SIZE = 16 * 1024 * 1024


@dataclass(frozen=True)
class IndexConfig:
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    ignore: tuple[str, ...] = ()  # extra gitignore-style patterns
    languages: frozenset[str] | None = None  # None: every supported language
    parse_timeout_ms: int = 10_000

    def identity(self) -> dict:
        return {
            "max_file_size": self.max_file_size,
            "ignore": list(self.ignore),
            "languages": sorted(self.languages) if self.languages is not None else "all",
            "parse_timeout_ms": self.parse_timeout_ms,
        }


@dataclass
class RunOptions:
    """How to run, not what to write: never part of the identity."""

    force: bool = False
    workers: int = 0  # 0: one per core
    buffer_pool: int = 512 * 1024 * 1024
    # Resolution forks workers only while (1 + workers) x this process's resident memory
    # fits: each worker may come to copy every page it reads.
    memory_budget_mb: int = 3072
    progress: bool = False
    lock_wait: float = 0.0
    extra: dict = field(default_factory=dict)

    def processes(self) -> int:
        """Worker processes to extract (and resolve) with: `workers`, or one per core."""
        return self.workers or os.cpu_count() or 1
