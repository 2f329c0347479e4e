"""The type hierarchy: linearisations, member lookup, subtypes and what lies below a type.

Member lookup is the same in every language: walk the type's linearisation and take the
first type that has the name (`first_member`). Each language says which linearisation it
uses: Python's C3 MRO (`c3`), TypeScript's extends-then-implements chain, the typed
engine's breadth-first supertypes (`breadth_first`: Go embedding, Java extends/implements,
C++ bases), Rust's supertraits depth first (`depth_first`). A Rust type's methods are its
impls' own, else the defaults of every trait it implements, each found by that trait's
walk (rust/paths.py methods_of: all of them, a call with several is dispatch, so not a
first-found walk). Dispatch walks the other way: the
`subtypes` table of the direct subtypes and everything `descendants` of a type, where an
override may run instead of the method resolved.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar

K = TypeVar("K")


def first_member(order: Iterable[K], member_of: Callable[[K], Any]) -> tuple[int, K, Any] | None:
    """(position, type, member) of the first type in `order` whose `member_of` is not None
    (position 0: the type itself; above: inherited), or None."""
    for i, key in enumerate(order):
        m = member_of(key)
        if m is not None:
            return i, key, m
    return None


def breadth_first(me: K, supers: Callable[[K], Iterable[K]], *,
                  start: Iterable[K] | None = None,
                  max_levels: int = 40) -> Iterator[tuple[int, K]]:  # fmt: skip
    """(level, type) of `me` (level 0) and its supertypes level by level, each once. `start`
    replaces the first level (`me`'s direct supertypes: a lookup from `super`). A type's
    supertypes are asked for only when the walk goes past it, so a caller that stops early
    asks no further."""
    seen = {me}
    todo = deque((0, s) for s in start) if start is not None else deque(((0, me),))
    while todo:
        level, key = todo.popleft()
        if level >= max_levels:
            return
        yield level, key
        for s in supers(key):
            if s not in seen:
                seen.add(s)
                todo.append((level + 1, s))


def depth_first(
    me: K, supers: Callable[[K], Iterable[K]], max_depth: int
) -> Iterator[tuple[int, K]]:
    """(depth, type) of `me` (depth 0) and its supertypes depth first, in declaration order;
    a type reached twice (a diamond) is walked again and a cycle is cut by `max_depth` alone
    (the types at `max_depth` are yielded, not expanded). Supertypes are asked for only
    when the walk goes past a type."""
    todo = [(0, me)]
    while todo:
        depth, key = todo.pop()
        yield depth, key
        if depth < max_depth:
            todo.extend((depth + 1, s) for s in reversed(list(supers(key))))


def subtypes(types: Iterable[K], supers: Callable[[K], Iterable[K]]) -> dict[K, list[K]]:
    """Type -> the types that name it as a supertype directly, in the order of `types`."""
    out: dict[K, list[K]] = {}
    for t in types:
        for s in supers(t):
            out.setdefault(s, []).append(t)
    return out


def c3(me: K, bases: Sequence[K], mro_of: Callable[[K], Sequence[K]]) -> tuple[K, ...]:
    """Python's C3 linearisation of `me` over the bases we can resolve; depth-first (each
    class once) when C3 fails, as it does for inconsistent hierarchies."""
    if len(bases) < 2:  # (most classes: the merge below would give just this)
        if not bases:
            return (me,)
        first = tuple(mro_of(bases[0]))
        if me not in first:  # (a cycle of bases: the merge stops where it meets `me`)
            return (me, *first)
    # (loops, not comprehensions nor any() over a generator: in CPython 3.11 each is a
    # function made per run of its line)
    seqs = []
    for b in bases:
        seqs.append(list(mro_of(b)))
    seqs.append(list(bases))
    out = [me]
    while True:
        left = []
        for s in seqs:
            if s:
                left.append(s)
        seqs = left
        if not seqs:
            return tuple(out)
        for s in seqs:
            head = s[0]
            for t in seqs:
                if head in t[1:]:
                    break
            else:
                break  # (a head in no tail)
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


def descendants(me: K, subclasses: Callable[[K], Iterable[K] | None]) -> list[K]:
    """Every type below `me` (each once; the order of a depth-first walk, unsorted).
    `subclasses` may answer None for none: a table's `get` (no Python frame per type)."""
    seen = {me}
    out = []
    stack = list(subclasses(me) or ())
    while stack:
        key = stack.pop()
        if key in seen:
            continue
        seen.add(key)
        out.append(key)
        stack.extend(subclasses(key) or ())
    return out
