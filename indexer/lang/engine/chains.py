"""The one chain evaluator: TypeScript/JavaScript, Rust and the typed engine (Go, Java, C,
C++, C#, Dart, Kotlin, PHP, Ruby, Swift) evaluate their chains with it.

A chain is a value expression written as its steps (syntax_common.py's chain form): a head
(a name, `self`/`this`, `super`, a path) and member steps, each with what follows it (a
call, a subscript, Rust's `?`). Evaluating one is the same fold in every language: the
head's value, then each step applied to the value so far, stopping at the first step whose
value is not evident; what a value is and what a step does to it are the language's (its
entity tuples, its member lookup, its call results), given by four hooks:

- `chain_steps(chain)`: the chain split into steps (None: not a chain this language reads);
- `chain_head(fi, scope, step, line, depth, option)`: (value, rule) of the first step;
- `chain_step(found, step, depth, option)`: (value, rule) after one more step;
- `chain_end(found, depth, option)`: the result (a last dereference, or None when what is
  left is not a value).

and two settings: `chain_depth` (deeper evaluations stop) and `chain_cut()` (what a
stopped one returns: a memo cut where the language memoises partial results, else None).
`option` is the caller's per-call parameter, passed through untouched (Python's list of
property reads, TypeScript's `deref_last`).
"""

from __future__ import annotations

from typing import Any, Protocol


class ChainLanguage(Protocol):
    chain_depth: int

    def chain_cut(self) -> Any: ...

    def chain_steps(self, chain: str) -> list | None: ...

    def chain_head(self, fi, scope: str, step, line, depth: int, option) -> tuple | None: ...

    def chain_step(self, found: tuple, step, depth: int, option) -> tuple | None: ...

    def chain_end(self, found: tuple, depth: int, option) -> tuple | None: ...


def evaluate(lang: ChainLanguage, fi, scope: str, chain: str, line, depth: int, option=None):
    """(value, rule) of `chain` in `scope` at `line`, or None when its value is not evident."""
    if not chain or chain.startswith("?"):
        return None
    if depth > lang.chain_depth:
        return lang.chain_cut()
    steps = lang.chain_steps(chain)
    return evaluate_steps(lang, fi, scope, steps, line, depth, option) if steps else None


def evaluate_steps(lang: ChainLanguage, fi, scope: str, steps: list, line, depth: int, option=None):
    """The fold itself, over steps already split (the typed engine evaluates a callee's
    receiver, all its steps but the last, this way)."""
    found = lang.chain_head(fi, scope, steps[0], line, depth, option)
    return None if found is None else fold(lang, found, steps[1:], depth, option)


def fold(lang: ChainLanguage, found: tuple, steps, depth: int, option=None):
    """The value of the steps after the head, from the head's value `found`: what no scope
    or line changes any more (Python keeps it per value and steps while a file is resolved)."""
    for step in steps:
        found = lang.chain_step(found, step, depth, option)
        if found is None:
            return None
    return lang.chain_end(found, depth, option)
