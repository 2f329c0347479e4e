"""What `graph analyze` reports: a record per file (its status and why) and the run's report
(mode, reason, counts, timings), with its one-line summary."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from codeimpact.native.runner import native_status

Progress = Callable[[str, int, int], None]  # (phase, done, total)


@dataclass
class FileRecord:
    """One discovered file after reading: what the File table and the freshness check need."""

    path: str
    language: str
    size: int
    content_hash: str
    status: str
    detail: str
    lines: int = 0
    is_test: bool = False
    mtime_ns: int = 0


@dataclass
class AnalyzeReport:
    repo: str
    mode: str  # full | incremental | unchanged
    generation: int
    files: int
    files_by_status: dict[str, int]
    symbols: int
    edges: dict[str, int]
    calls: dict[str, int]
    incomplete: list[dict]
    seconds: float
    timings: dict[str, float] = field(default_factory=dict)
    memory_mb: dict[str, int] = field(default_factory=dict)  # resident memory after each phase
    # phase -> CPU seconds (user+sys) of this process and the workers it waited for in it
    cpu_seconds: dict[str, float] = field(default_factory=dict)
    reason: str = ""  # why this mode was chosen
    changes: dict[str, int] = field(default_factory=dict)  # added/modified/deleted/renamed
    parsed: int = 0  # files extracted (not taken from a cache)
    resolved: int = 0  # files resolved
    delta: dict[str, int] = field(default_factory=dict)
    # which extraction path this process runs (native/runner.py's NativeStatus)
    extraction: dict = field(default_factory=lambda: native_status().as_json())
    notes: list[str] = field(default_factory=list)  # e.g. a stale lock taken over
    # job -> "forked", or the path it took instead and why (indexer/fork_guard.py)
    forks: dict[str, str] = field(default_factory=dict)
    # what the index now holds, for the user's registry without opening the database:
    # HEAD when indexed, when (None: an unchanged run, which did not read the Meta) and the
    # File rows per language
    indexed_commit: str | None = None
    indexed_at: float | None = None
    languages: dict[str, int] = field(default_factory=dict)

    def summary(self) -> str:
        """One sentence, in every mode: what this run did, then what the index holds."""
        if self.mode == "unchanged":
            return (
                f"index is up to date ({self.files} files, {self.symbols} symbols): no file "
                f"changed and HEAD did not move, nothing to do; {self.seconds:.2f}s"
            )
        if self.mode == "incremental":
            changed = ", ".join(f"{v} {k}" for k, v in self.changes.items() if v)
            if changed:
                did = (
                    f"updated the index of {self.files} files ({changed}; re-parsed "
                    f"{self.parsed}, re-resolved {self.resolved})"
                )
            else:
                why = "HEAD moved" if self.reason == "HEAD moved" else self.reason or "no reason"
                did = (
                    f"updated the index of {self.files} files ({why}, no file changed; "
                    f"re-resolved {self.resolved})"
                )
        else:
            did = f"indexed {self.files} files from scratch" + (
                f" ({self.reason})" if self.reason else ""
            )
        edges = ", ".join(f"{k} {v}" for k, v in sorted(self.edges.items()) if v) or "no edges"
        extra = f", {len(self.incomplete)} incomplete" if self.incomplete else ""
        return (
            f"{did}: {self.symbols} symbols; {edges}; "
            f"{self.calls.get('unresolved', 0)} unresolved calls{extra}; {self.seconds:.2f}s"
        )


def incomplete_record(rec: FileRecord) -> dict | None:
    if rec.status == "ok":
        return None
    if rec.status == "partial":
        return {"code": "parse_error", "path": rec.path, "detail": rec.detail}
    code = rec.status.split(":", 1)[1]
    return {"code": code, "path": rec.path, "detail": rec.detail}
