"""Receiver typing: the value a call gives, by the rules every language shares.

The type of a receiver is evident from a declaration (an annotation, a declared local, a
field's type: each language evaluates its own type syntax), from a construction (calling a
class gives an instance of it), from `self`/`this` (the enclosing class), or from what a
known function returns. The last is the same rule everywhere and lives here: a function's
declared return type first, since it names what every caller may get, then what its
`return` statements return, in source order; the first that evaluates to a value the
language can look members up on.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from typing import Any


def returned_value(project, fi, returns: Iterable, declared_prefix: str,
                   declared: Callable[[str, Any], Any], kinds: Collection[str],
                   depth: int) -> Any:  # fmt: skip
    """The value calling a function gives, from its return facts (`ReturnFact`: `value` is
    `<declared_prefix>TYPE` for the declared return type, else the returned chain), or None:
    the first value whose entity kind is one of `kinds`. `declared(type_text, fact)`
    evaluates a declared type (the language's type syntax); a returned chain is evaluated by
    the project's `eval_chain(fi, scope, chain, line, depth)`, and when it is a call, by its
    `call_result(value, depth)`."""
    n = len(declared_prefix)
    # the declared types first, then the returned chains, each in source order (two loops,
    # not a sort with a key: a lambda made per call)
    returned = []
    for r in returns:
        value = r.value
        if not value.startswith(declared_prefix):
            returned.append(r)
            continue
        v = declared(value[n:], r)
        if v is not None and v[0] in kinds:
            return v
    for r in returned:
        res = project.eval_chain(fi, r.scope, r.value, None, depth + 1)
        v = res[0] if res is not None else None
        if v is not None and r.is_call:
            v = project.call_result(v, depth + 1)
        if v is not None and v[0] in kinds:
            return v
    return None
