"""Whether an open index still describes the repository (filled in by `graph status`)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Freshness:
    fresh: bool | None  # None: not checked
    reasons: list[str] = field(default_factory=list)


def freshness(index) -> Freshness:
    """The freshness block every query's JSON carries."""
    return Freshness(fresh=None, reasons=["freshness not checked"])
