"""The one memo of a resolver project: lookups computed once, cycles cut, order kept out.

Lookups recurse through each other (a name's value through an import, a class's members
through its bases, a function's result through what it returns) and may meet themselves
(re-export cycles, `a = b; b = a`, bases that name each other). A lookup met again while
it is being computed is a cycle: it answers `on_cycle` and counts a cut. A result computed
while any cut happened (a cycle, or a depth bound reached) depends on where the lookup
started, so it is returned but never stored: every stored result is the same whatever order
the files are resolved in, which incremental == full relies on.

`@memoized(key, on_cycle)` is the one way to compute a lookup: a method (or a function whose
first parameter has the memo) whose result is kept under `key`, an expression over its
parameters. The wrapper is written for the function's own parameters (below), so a call
costs what the protocol written out in the function would, on the hottest paths (Python's
names, members and types, per call site of Django): no closure, bound method, argument
tuple or further interpreter loop per call, each of which was measured to cost there.
`cached(key, compute)` keeps results that cannot meet a cycle (a transitive closure
computed with its own visited set) unconditionally. Keys are tuples that start with the
lookup's name, so every kind of lookup shares the one table.

The hottest lookups write this protocol out in their own body instead (Python's
class_member, instance_attr, _instance_member and call results in values.py,
_binding_value, mro, _member_owners; the engine's `exported`): there the wrapper and the
function were two frames per lookup computed, 8-46K each per Django. memo_gen.py does not
generate them: it would have to splice each body into `_WRAPPER`, rewriting its `return`s,
so the code that runs would be a generated copy of the body (tracebacks, coverage and
`duplicates` would point at the copy, and memo_wrappers.py would hold every body twice).
A change to the protocol is made in `_WRAPPER` and in each of those.

A lookup declared `per_file` is kept only while the file being resolved is (`file_table`,
emptied by `next_file`): a binding's value, a read's evaluation, a class's library method
are asked again by the same file's call sites but seldom by another file's. Of the 95.7K
entries one resolving process of Django made, 88.5K were never asked for by another file;
kept for the whole build they were ~28 MB of each resolving process at the build's peak.
A lookup computed again gives what it gave (what is stored never depends on the order of
lookups), so the lifetime changes only the work done twice.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import update_wrapper
from types import FunctionType
from typing import Any

MISSING: Any = object()
BUSY: Any = object()  # an entry being computed: meeting it again is a cycle


class Memo:
    __slots__ = ("cuts", "file_table", "table")

    def __init__(self) -> None:
        self.table: dict[tuple, Any] = {}
        self.file_table: dict[tuple, Any] = {}  # the `per_file` lookups of the current file
        self.cuts = 0  # cycles and depth bounds met so far

    def cut(self) -> None:
        """A lookup stopped short (a depth bound): what depends on it is not stored."""
        self.cuts += 1

    def cached(self, key: tuple, compute: Callable[[], Any], per_file: bool = False) -> Any:
        table = self.file_table if per_file else self.table
        hit = table.get(key, MISSING)
        if hit is MISSING:
            hit = table[key] = compute()
        return hit

    def next_file(self) -> None:
        """Another file's resolution starts: the `per_file` lookups of the last one go."""
        self.file_table = {}

    def clear(self) -> None:
        """Forget everything (entries left in progress by an aborted lookup included)."""
        self.table.clear()
        self.file_table = {}


_WRAPPER = """
def {name}({params}):
    memo = {owner}.memo
    key = {key}
    table = memo.{table}
    hit = table.get(key, MISSING)
    if hit is not MISSING:
        if hit is BUSY:
            memo.cuts += 1
            return {on_cycle}
        return hit
{guard}    table[key] = BUSY
    cuts = memo.cuts
    try:
        out = compute({args})
    except BaseException:
        table.pop(key, None)
        raise
    if memo.cuts == cuts:
        table[key] = out
    else:
        del table[key]
    return out
"""


# Every wrapper's source as `memoized` made it, in this process (memo_gen.py writes them out).
MADE: list[str] = []


def _compiled() -> dict[str, Callable]:
    """The wrappers compiled ahead (memo_wrappers.py, written by memo_gen.py) by their
    source: compiling the ~20 wrappers at import was ~4 ms of each process resolving."""
    from codeimpact.indexer.lang.engine.memo_wrappers import WRAPPERS

    return WRAPPERS


def memoized(key: str, on_cycle: str = "None", cut_if: str = "", *, per_file: bool = False,
             **names: Any) -> Callable:  # fmt: skip
    """Keep what the decorated function returns in the memo of its first argument (a
    project, which has `.memo`) under `key`, an expression over the function's parameters
    (`'("member", path, cls, attr)'`): the table's entry when there is one; met again while
    it is computed, `on_cycle` (an expression too) and a cut; computed while a cut happened,
    returned but not kept. `cut_if`: when this expression holds for a lookup the table does
    not answer (a depth bound, `"depth > MAX_DEPTH"`), `on_cycle` and a cut, as a cycle.
    `per_file`: kept while the current file is resolved only (`Memo.next_file`).
    `names`: what the expressions use besides the parameters."""

    def wrap(compute: Callable) -> Callable:
        # its parameters from its code (inspect.signature was ~30 us a wrapper): positional,
        # the last ones defaulted
        params = compute.__code__.co_varnames[: compute.__code__.co_argcount]
        defaults = compute.__defaults__ or ()
        namespace = {"MISSING": MISSING, "BUSY": BUSY, "compute": compute, **names}
        declared = list(params[: len(params) - len(defaults)])
        for name, value in zip(params[len(declared) :], defaults):
            namespace[f"default_{name}"] = value  # (by name: values need no source form)
            declared.append(f"{name}=default_{name}")
        source = _WRAPPER.format(
            name=compute.__name__,
            params=", ".join(declared),
            owner=params[0],
            key=key,
            table="file_table" if per_file else "table",
            on_cycle=on_cycle,
            guard=f"    if {cut_if}:\n        memo.cuts += 1\n        return {on_cycle}\n"
            if cut_if
            else "",
            args=", ".join(params),
        )
        MADE.append(source)
        made = _compiled().get(source)
        if made is None:  # a wrapper memo_wrappers.py does not hold yet (its test says so)
            exec(compile(source, f"<memoized {compute.__qualname__}>", "exec"), namespace)
            wrapper = namespace[compute.__name__]
        else:  # the same code, compiled into the generated module's .pyc
            wrapper = FunctionType(made.__code__, namespace, compute.__name__, defaults or None)
        return update_wrapper(wrapper, compute)

    return wrap
