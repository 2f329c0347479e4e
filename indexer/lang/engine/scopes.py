"""Scopes: the lexical nesting of a file's definitions and its binding tables.

A scope is the dotted local name of a definition, "" for the module. Two things every
language's resolver does with scopes live here:

- walking out from a scope: to the nearest enclosing definition of some kind (the class of
  a method, Rust's module or trait around an item) and through the scopes whose names a
  nested body sees (`outward`, `innermost`, `Lexical` for the file indexes that keep a
  `parent` table);
- the binding table (`ScopeTable`: scope -> name -> bindings in the order they take effect)
  and the rule of the binding in effect at a line (`in_effect`: the last one at or before
  it). A definition, an import, an assignment or a declared local is a binding of a name in
  a scope at a line.

What a binding holds and which kinds of body hide their names from nested bodies (Python's
and TypeScript's class bodies) are the language's; the walk and the table are the engine's.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Collection, Iterator
from operator import itemgetter
from typing import Any

first = itemgetter(0)  # a binding stored as (line, ...)


def outward(scope: str, container: Callable[[str], str]) -> Iterator[str]:
    """`scope`, the scope it is written in, and so on out to the module ("")."""
    yield scope
    while scope:
        scope = container(scope)
        yield scope


def innermost(scope: str, container: Callable[[str], str],
              wanted: Callable[[str], bool]) -> str | None:  # fmt: skip
    """The nearest scope from `scope` outwards (itself included, the module excluded) that
    is `wanted`, or None."""
    while scope:
        if wanted(scope):
            return scope
        scope = container(scope)
    return None


class Lexical:
    """Scope walks of a file index that has `syms` (local -> SymbolFact) and `parent`
    (local -> the local of the definition it is written in; absent for top-level ones)."""

    __slots__ = ()
    syms: dict
    parent: dict[str, str]

    def kind(self, local: str) -> str | None:
        s = self.syms.get(local)
        return s.kind if s is not None else None

    def container(self, local: str) -> str:
        return self.parent.get(local, "")

    def outward(self, scope: str) -> Iterator[str]:
        """`scope`, the definition it is written in, and so on out to the module ("")."""
        parent = self.parent
        yield scope
        while scope:
            scope = parent.get(scope, "")
            yield scope

    def innermost(self, scope: str, kinds: Collection[str]) -> str | None:
        """The nearest definition of one of `kinds` around `scope` (itself included)."""
        syms, parent = self.syms, self.parent
        while scope:
            s = syms.get(scope)
            if s is not None and s.kind in kinds:
                return scope
            scope = parent.get(scope, "")
        return None

    def enclosing(self, scope: str, hidden: Collection[str]) -> Iterator[str]:
        """The scopes around `scope` (itself excluded) whose names a body nested in it sees:
        each enclosing definition but those of the `hidden` kinds (class bodies), then the
        module."""
        syms, parent = self.syms, self.parent
        while scope:
            scope = parent.get(scope, "")
            if scope:
                s = syms.get(scope)
                if s is not None and s.kind in hidden:
                    continue
            yield scope


class ScopeTable(dict):
    """scope -> name -> [binding, ...], sorted by `finish` into the order they take effect."""

    def add(self, scope: str, name: str, binding: Any) -> None:
        # (every definition, import and binding of a project passes here: no fresh dict and
        # list made for each as `setdefault` would)
        names = self.get(scope)
        if names is None:
            names = self[scope] = {}
        held = names.get(name)
        if held is None:
            names[name] = [binding]
        else:
            held.append(binding)

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
