"""The one memo of a resolver project: lookups computed once, cycles cut, order kept out.

Lookups recurse through each other (a name's value through an import, a class's members
through its bases, a function's result through what it returns) and may meet themselves
(re-export cycles, `a = b; b = a`, bases that name each other). A lookup met again while
it is being computed is a cycle: it answers `on_cycle` and counts a cut. A result computed
while any cut happened (a cycle, or a depth bound reached) depends on where the lookup
started, so it is returned but never stored: every stored result is the same whatever order
the files are resolved in, which incremental == full relies on.

Two ways to use it. `get(key, compute, on_cycle)` for most lookups. On the hottest paths
(Python's names, members and types, per call site of Django) the same protocol inline,
without a closure per call:

    hit = memo.table.get(key, MISSING)
    if hit is not MISSING:
        return memo.hit(hit, on_cycle)
    cuts = memo.begin(key)
    out = ...                       # may recurse into the memo
    return memo.store(key, out, cuts)

`cached(key, compute)` keeps results that cannot meet a cycle (a transitive closure
computed with its own visited set) unconditionally. Keys are tuples that start with the
lookup's name, so every kind of lookup shares the one table.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

MISSING: Any = object()
BUSY: Any = object()  # an entry being computed: meeting it again is a cycle


class Memo:
    __slots__ = ("cuts", "table")

    def __init__(self) -> None:
        self.table: dict[tuple, Any] = {}
        self.cuts = 0  # cycles and depth bounds met so far

    def cut(self) -> None:
        """A lookup stopped short (a depth bound): what depends on it is not stored."""
        self.cuts += 1

    def hit(self, value: Any, on_cycle: Any = None) -> Any:
        """A table entry found: its value, or `on_cycle` (and a cut) when it is in progress."""
        if value is BUSY:
            self.cuts += 1
            return on_cycle
        return value

    def begin(self, key: tuple) -> int:
        self.table[key] = BUSY
        return self.cuts

    def store(self, key: tuple, out: Any, cuts: int) -> Any:
        if self.cuts == cuts:
            self.table[key] = out
        else:
            del self.table[key]
        return out

    def get(self, key: tuple, compute: Callable[[], Any], on_cycle: Any = None) -> Any:
        hit = self.table.get(key, MISSING)
        if hit is not MISSING:
            return self.hit(hit, on_cycle)
        cuts = self.begin(key)
        try:
            out = compute()
        except BaseException:
            self.table.pop(key, None)
            raise
        return self.store(key, out, cuts)

    def cached(self, key: tuple, compute: Callable[[], Any]) -> Any:
        hit = self.table.get(key, MISSING)
        if hit is MISSING:
            hit = self.table[key] = compute()
        return hit

    def clear(self) -> None:
        """Forget everything (entries left in progress by an aborted lookup included)."""
        self.table.clear()
