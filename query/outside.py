"""Definitions code outside the repository may call with no caller in the graph: why a
selection of tests can be a lower bound although no call site is unresolved (issue 26).

A library calls back into the repository: a WSGI server or a test client calls the app
object (`Flask.__call__`), `with` and `for` call `__enter__`/`__iter__`, a base class from a
library calls the methods a subclass overrides (`JSONEncoder.default`). Where the resolver
knows the call (the entry-point table, `with` statements) the definition has a caller; one
with none may still be entered that way, and the tests running it through the library are
then missing from any selection that passes through it.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from codeimpact.graph import csr as csrmod
from codeimpact.query.graphview import GraphView
from codeimpact.query.relays import relay_csr
from codeimpact.query.test_runs import RunIds

_CALLABLE = frozenset(("function", "method"))
# dunders the graph follows as plain calls or constructions, not library callbacks
_CALLED_BY_NAME = frozenset(("__init__", "__new__", "__post_init__"))
EXTERNAL = "<external>::"
# protocol methods the interpreter calls without a call written out (`while stream:`, `len(x)`,
# `x in y`, hashing, `str(x)`, comparisons, pickling): the graph links the calls it sees
# (`len(x)` on a typed x), so one with callers may still be entered where it sees none
_IMPLICIT = frozenset(("__bool__", "__len__", "__iter__", "__next__", "__contains__",
                       "__hash__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__",
                       "__str__", "__repr__", "__format__", "__getstate__", "__setstate__",
                       "__reduce__", "__reduce_ex__"))  # fmt: skip


def entered_from_outside(view: GraphView, ids: Iterable[int]) -> list[int]:
    """Of `ids`, the functions and methods with no CALLS edge in that are special methods
    (`__call__`, `__enter__`, ...) or methods of a class with a base outside the repository
    (directly or through the repository's own bases), and the protocol methods the
    interpreter calls implicitly (`__bool__`, `__len__`, ...: `_IMPLICIT`) even with callers."""
    return entered_and_uncalled(view, ids)[0]


def entered_and_uncalled(view: GraphView, ids: Iterable[int]) -> tuple[list[int], list[int]]:
    """(`entered_from_outside`, the other functions and methods of `ids` with no caller at
    all: no CALLS and no REFERENCES edge in). Code runs the latter through what the graph
    does not see (a dynamic call, a callback stored where no rule follows it, a library
    calling back), so tests entering there are missing from any answer through them."""
    s = view.symbols
    up, down = view.csr("upstream"), view.csr("downstream")
    calls, extends = csrmod.EDGE_TYPES["CALLS"], csrmod.EDGE_TYPES["EXTENDS"]
    refs = csrmod.EDGE_TYPES["REFERENCES"]
    memo: dict[int, bool] = {}

    def outside_base(cls: int, seen: set[int]) -> bool:
        if cls in memo:
            return memo[cls]
        seen.add(cls)
        lo, hi = down.indptr[cls], down.indptr[cls + 1]
        bases = down.indices[lo:hi][down.edge_type[lo:hi] == extends].tolist()
        memo[cls] = any(
            s.uid[b].startswith(EXTERNAL) or (b not in seen and outside_base(b, seen))
            for b in bases
        )
        return memo[cls]

    out, uncalled = [], []
    for i in ids:
        if s.kind[i] not in _CALLABLE or s.is_test[i] or s.uid[i].startswith(EXTERNAL):
            continue  # a test is the runner's to call
        lo, hi = up.indptr[i], up.indptr[i + 1]
        kinds = up.edge_type[lo:hi]
        name = s.name[i]
        if np.any(kinds == calls):
            if name in _IMPLICIT:
                out.append(i)
            continue
        if name.startswith("__") and name.endswith("__") and len(name) > 4:
            if name not in _CALLED_BY_NAME:
                out.append(i)
            continue
        if s.kind[i] == "method":
            cls = s.by_uid.get(s.uid[i].rpartition(".")[0])
            if cls is not None and s.kind[cls] == "class" and outside_base(cls, set()):
                out.append(i)
                continue
        if not np.any(kinds == refs):
            uncalled.append(i)
    return out, uncalled


def registered(view: GraphView, ids: np.ndarray) -> list[int]:
    """The functions of `ids` whose every caller and referrer is one the upstream walk does
    not follow: a dispatcher they were handed to, their own module's or class's body
    (`_registered_only`): they run through a registration made at import (a module-level
    `@bp.route("/x") def view` called by `dispatch_request`, a module's filters table run by
    compiled templates), so the tests running them that way are not found. A function of a
    test file that is no test the runner collects (a suite's app module's view) counts too."""
    flagged = _registered_only(view)
    ids = np.asarray(ids, dtype=np.int64)
    hits = ids[flagged[ids]].tolist()
    if not hits:
        return []
    s = view.symbols
    runs = RunIds(view)
    return [i for i in hits if not (s.is_test[i] and runs.of_id(i).exact)]


def _registered_only(view: GraphView) -> np.ndarray:
    """Bool per node (cached per view): a function or method whose every CALLS and REFERENCES
    in is one the upstream walk does not follow (query/relays.py: a relay's value-flow call,
    its own module's or class's body handing it over), and that has one: a dispatcher or a
    table of its module runs it (`@bp.route` views, `DEFAULT_FILTERS = {"int": do_int}` run by
    compiled templates), so the tests running it that way are not found."""
    got = view.cached("registered_only")
    if got is not None:
        return got
    r = relay_csr(view)
    c, n = r.csr, r.n
    kinds = c.edge_type
    use = (kinds == csrmod.EDGE_TYPES["CALLS"]) | (kinds == csrmod.EDGE_TYPES["REFERENCES"])
    row = np.repeat(np.arange(n, dtype=np.int64), np.diff(c.indptr[: n + 1]).astype(np.int64))
    shadow = c.indices[: row.size] >= n
    followed = np.bincount(row[use & ~shadow], minlength=n) > 0
    hidden = np.bincount(row[use & shadow], minlength=n) > 0
    kind = view.snapshot.node_kind
    callable_ = (kind == csrmod.KIND_CODES["function"]) | (kind == csrmod.KIND_CODES["method"])
    got = hidden & ~followed & callable_
    view.cache("registered_only", got)
    return got
