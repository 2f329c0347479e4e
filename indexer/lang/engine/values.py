"""Values that are one of several: what a container's item or a flow of values may hold.

A value read out of a collection (`handlers[key]`, `for f in fs`) or a parameter fed by
several call sites is one of a known set of values, not a single one. Resolvers carry such
a value as one entity, `("alts", (entity, ...))`, sorted and without repeats, so it is
hashable and memoizable like any other entity; each step applied to it (a member, a call's
result, an item) is applied to every alternative (`each`), and a call of it reaches every
alternative that is callable. A set of one is that entity; an empty set is no value.

Edges made through alternatives take the `value-flow` rule at most (engine/rules.py): which
alternative runs depends on data the resolver does not follow.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

ALTS = "alts"
# An alternative set larger than this says too little to be worth its edges.
MAX_ALTERNATIVES = 32


def alternatives(entities: Iterable[Any]) -> Any:
    """One entity standing for `entities` (None dropped, nested alternatives flattened):
    None for none, the entity itself for one, an `alts` entity for more, None for more than
    MAX_ALTERNATIVES."""
    found: set = set()
    for ent in entities:
        if ent is None:
            continue
        if ent[0] == ALTS:
            found.update(ent[1])
        else:
            found.add(ent)
    if not found or len(found) > MAX_ALTERNATIVES:
        return None
    if len(found) == 1:
        return found.pop()
    return (ALTS, tuple(sorted(found, key=repr)))


def members(ent: Any) -> tuple:
    """The alternatives an entity stands for (itself when it is a single value)."""
    if ent is None:
        return ()
    return ent[1] if ent[0] == ALTS else (ent,)


def each(ent: Any, step: Callable[[Any], Any]) -> Any:
    """`step` applied to every alternative of `ent`, as one entity (see `alternatives`)."""
    found = []  # (a loop, not a generator: a function made per call)
    for e in ent[1]:
        found.append(step(e))
    return alternatives(found)
