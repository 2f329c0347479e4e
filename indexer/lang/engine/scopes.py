"""Binding tables: per scope, per name, the bindings in the order they take effect.

Every language keeps its names this way (a scope is the dotted local name of a definition,
"" for the module): a definition, an import, an assignment or a declared local is a
binding of a name in a scope at a line, and a lookup at a line sees the binding in effect
there: the last one at or before it. What a binding holds and which scopes a lookup walks
are the language's; the table and the rule of the binding in effect are the engine's.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from operator import itemgetter
from typing import Any

first = itemgetter(0)  # a binding stored as (line, ...)


class ScopeTable(dict):
    """scope -> name -> [binding, ...], sorted by `finish` into the order they take effect."""

    def add(self, scope: str, name: str, binding: Any) -> None:
        self.setdefault(scope, {}).setdefault(name, []).append(binding)

    def finish(self, key: Callable[[Any], Any] = first) -> None:
        """Sort every list by `key` (stable: bindings on one line keep their fact order)."""
        for names in self.values():
            for bindings in names.values():
                if len(bindings) > 1:
                    bindings.sort(key=key)

    def bindings(self, scope: str, name: str) -> list | None:
        names = self.get(scope)
        return names.get(name) if names is not None else None


def in_effect(bindings: list, line: int, line_of: Callable[[Any], int] = first) -> Any:
    """The binding in effect at `line`: the last one at or before it, None when the name is
    bound only later (`bindings` sorted by `line_of`)."""
    i = bisect_right(bindings, line, key=line_of)
    return bindings[i - 1] if i else None
