"""The one walk of what a module exports: what an importer of `module` gets for `name`.

Every language answers it the same way: the module's own binding of the name if it has
one, else the first of its re-export sources (Python's `from m import *`, TypeScript's
`export * from`, Rust's `pub use m::*`) that exports the name, else, when exactly one source
lies outside the repository, that source's name. Cycles of re-exports resolve to nothing
through the one memo (engine/memo.py), never stored while a cut is pending.

A language supplies the hooks (`ExportRules`): what binds a name in a module itself, its
re-export sources in order and where each leads, and how a result reached through a
re-export is named. It keeps its own entry point (its memo key and depth bound) and calls
`exported` from it; its own recursion goes back through that entry point.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from codeimpact.indexer.lang.engine.memo import BUSY, MISSING, Memo
from codeimpact.indexer.lang.engine.rules import CONFIDENCE

# own_binding's answer when the module binds nothing under the name (None: bound, but to
# nothing that resolves; the walk stops there)
UNBOUND: Any = object()

# reexport_target's answers: ("module", m) the name is looked up in module m, through
# `exported` again; ("found", r) the source itself answers r (Rust's glob of an enum's
# variants); ("outside", dotted) a source outside the repository
MODULE, FOUND, OUTSIDE = "module", "found", "outside"


class ExportRules(Protocol):
    memo: Memo

    def own_binding(self, module: Any, name: str, depth: int) -> Any:
        """The module's own binding of `name` (result, None) or UNBOUND."""

    def reexports(self, module: Any, name: str) -> Iterable[Any]:
        """The module's re-export sources that may hold `name`, in the language's order."""

    def reexport_target(self, module: Any, source: Any, name: str,
                        depth: int) -> tuple[str, Any] | None:  # fmt: skip
        """Where `source` leads for `name` (see MODULE, FOUND, OUTSIDE), None: nowhere."""

    def exported(self, module: Any, name: str, depth: int) -> Any:
        """The language's entry point (memo key, depth bound) that calls `exported`."""

    def via_reexport(self, found: Any) -> Any:
        """A result of `exported` in a source module, as the re-exporting module gives it."""


def via_import(found: tuple | None) -> tuple | None:
    """A binding reached through an import is an `import` step, unless a weaker one came
    first (the rule of every language's imports)."""
    if found is None:
        return None
    ent, reason = found
    return ent, "import" if CONFIDENCE[reason] >= CONFIDENCE["import"] else reason


def exported(rules: ExportRules, key: tuple, module: Any, name: str, depth: int) -> Any:
    """`name` as importers of `module` see it, memoised under `key` (a cycle: None). (The
    memo's protocol written out: the wrapper and the function were two frames per name
    computed, 9K per Django.)"""
    memo = rules.memo
    table = memo.table
    hit = table.get(key, MISSING)
    if hit is not MISSING:
        if hit is BUSY:
            memo.cuts += 1
            return None
        return hit
    table[key] = BUSY
    cuts = memo.cuts
    try:
        out = rules.own_binding(module, name, depth)
        if out is UNBOUND:
            out = through_reexports(rules, module, name, depth)
    except BaseException:
        table.pop(key, None)
        raise
    if memo.cuts == cuts:
        table[key] = out
    else:
        del table[key]
    return out


def through_reexports(rules: ExportRules, module: Any, name: str, depth: int) -> Any:
    """`name` from the first of the module's re-export sources that has it; else from the
    one source outside the repository, when there is exactly one."""
    outside: list[str] = []
    for source in rules.reexports(module, name):
        target = rules.reexport_target(module, source, name, depth)
        if target is None:
            continue
        how, where = target
        if how == OUTSIDE:
            outside.append(where)
            continue
        if how == FOUND:
            found = where
        else:
            found = rules.exported(where, name, depth + 1)
            if found is not None:
                found = rules.via_reexport(found)
        if found is not None:
            return found
    if len(outside) == 1:
        # `export * from "pkg"` is the only place left the name can come from
        return ("ext", f"{outside[0]}.{name}"), "import"
    return None
