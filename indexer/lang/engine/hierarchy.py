"""Linearisations: the order in which a type's members are looked for in its supertypes.

Each language says which one it uses; member lookup walks the order and takes the first
type that has the name (engine users: Python's MRO, TypeScript's class chain, the typed
engine's breadth-first supertypes in typed.py, Rust's impls and traits in rust/resolve.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

K = TypeVar("K")


def c3(me: K, bases: Sequence[K], mro_of: Callable[[K], Sequence[K]]) -> tuple[K, ...]:
    """Python's C3 linearisation of `me` over the bases we can resolve; depth-first (each
    class once) when C3 fails, as it does for inconsistent hierarchies."""
    seqs = [list(mro_of(b)) for b in bases]
    seqs.append(list(bases))
    out = [me]
    while True:
        seqs = [s for s in seqs if s]
        if not seqs:
            return tuple(out)
        for s in seqs:
            head = s[0]
            if not any(head in t[1:] for t in seqs):
                break
        else:
            seen = set(out)
            for s in seqs:
                for x in s:
                    if x not in seen:
                        seen.add(x)
                        out.append(x)
            return tuple(out)
        if head in out:
            return tuple(out)
        out.append(head)
        for s in seqs:
            if s and s[0] == head:
                del s[0]


def extends_then_implements(
    me: K, heritage: Callable[[K], Iterable[tuple[str, K]]], limit: int = 64
) -> tuple[K, ...]:
    """The type, its `extends` ancestors breadth first, then the interfaces implemented
    anywhere on that chain and their own supertypes (TypeScript and JavaScript classes).
    `heritage(key)` gives (kind, supertype) pairs, kind "extends" or "implements"."""
    out = [me]
    seen = {me}
    later: list[K] = []
    i = 0
    while i < len(out) and len(out) < limit:
        key = out[i]
        i += 1
        for kind, sup in heritage(key):
            if kind == "extends" and sup not in seen:
                seen.add(sup)
                out.append(sup)
            elif kind == "implements":
                later.append(sup)
    j = 0
    while j < len(later) and len(later) < limit:
        key = later[j]
        j += 1
        if key in seen:
            continue
        seen.add(key)
        out.append(key)
        later.extend(sup for _kind, sup in heritage(key))
    return tuple(out)


def descendants(me: K, subclasses: Callable[[K], Iterable[K]]) -> list[K]:
    """Every type below `me` (each once; the order of a depth-first walk, unsorted)."""
    seen = {me}
    out = []
    stack = list(subclasses(me))
    while stack:
        key = stack.pop()
        if key in seen:
            continue
        seen.add(key)
        out.append(key)
        stack.extend(subclasses(key))
    return out
