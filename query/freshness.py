"""Whether an open index still describes the repository: the block every query's JSON carries.

This is `graph status` without the costly parts: in a git work tree it costs
one `git status` plus hashing the files that lists (no full re-hash, no
commit counting). See `query.status` for the rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Freshness:
    fresh: bool | None  # None: not checked
    reasons: list[str] = field(default_factory=list)


def freshness(index) -> Freshness:
    """Fresh, or the reasons it is not (the same reasons `graph status` gives)."""
    from codeimpact.query.status import collect

    st = collect(index, exact=False)
    return Freshness(fresh=st.fresh, reasons=st.reasons)
