"""Registries on the instance: functions a method stores into a container attribute of
`self` and other methods call out of it (Flask's `self.view_functions[endpoint] = view_func`,
`self.before_request_funcs.setdefault(None, []).append(f)`, then
`self.ensure_sync(self.view_functions[rule.endpoint])(**view_args)` or
`for func in self.before_request_funcs[name]: self.ensure_sync(func)()`).

Gathered per file by index.py when the file is indexed (its calls and references are
dropped once it is resolved, while other files' value flow still reads these):

- `param_items`: class -> attribute -> the (function, parameter) pairs stored as an item of
  `self.attr` (`self.x[k] = p`, `self.x.append(p)`, `self.x.setdefault(k, []).append(p)`,
  `self.x[k].append(p)`);
- `item_calls`: class -> attribute -> the methods that call an item of `self.attr`: a loop
  variable over it called (or passed to a call whose result is called, a wrapper such as
  `ensure_sync(func)()`), or a line reading `self.attr` that calls `self.attr[...]` or the
  result of a call (the item passed through a wrapper).

flows.py makes the methods calling the items of a registry sinks of the parameters stored
into it, for the classes that share the attribute (the storing class's MRO and its
subclasses). Which item runs depends on data (an endpoint, an exception class): the edges
are `value-flow`.
"""

from __future__ import annotations

import re

from codeimpact.indexer.lang.api import FileFacts, ReferenceFact, native_core

# `self.x`, `self.x[]`, `self.x.setdefault()`: the container an adder stores into
_STORE_HEAD = re.compile(r"self\.(\w+)(?:\[\]|\.setdefault\(\))?\Z")
_SELF_ATTR = re.compile(r"self\.(\w+)")


def self_attr(chain: str) -> str | None:
    """`x` of a chain that starts at `self.x` (`self.x[]`, `self.x.values()`), else None."""
    m = _SELF_ATTR.match(chain)
    return m.group(1) if m is not None else None


def stored_attr(head: str) -> str | None:
    """The attribute of `self` an adder called on `head` stores into, else None."""
    m = _STORE_HEAD.match(head)
    return m.group(1) if m is not None else None


def item_callers(facts: FileFacts, loops: list) -> tuple[set, set]:
    """((scope, key), (scope, attribute)): the scopes calling an item of a registry, keyed by
    the attribute (`x` for `self.x`) or by the method handing one out (`m()` for the value
    of `self.m(...)`); the methods handing out an item of `self.attribute`. `loops` are the
    file's `iter:` bindings, one per loop. See the module docstring."""
    read = _self_reads(facts)
    held: dict[tuple[str, str], set[str]] = {}  # (scope, local name) -> registry keys
    for b in loops:
        chain = b.value.split(":", 2)[2]
        attr = self_attr(chain)
        attrs = {attr} if attr is not None else read.get((b.scope, b.line), set())
        if attrs and b.name:
            held.setdefault((b.scope, b.name), set()).update(attrs)
    for b in facts.bindings:  # `handler = self.find_handler(e)`
        v = b.value
        if b.is_call and v.startswith("self.") and v.count(".") == 1:
            held.setdefault((b.scope, b.name), set()).add(v[5:] + "()")
    getters = _getters(facts, read)
    if not read and not held:
        return set(), getters
    out: set[tuple[str, str]] = set()
    wrapped: set[tuple[str, int, str]] = set()  # calls whose result is called: `wrap(x)()`
    for c in facts.calls:
        callee = c.callee
        if callee[-1] == ")":
            wrapped.add((c.scope, c.line, callee[:-2]))
            on_line = read.get((c.scope, c.line)) if read else None
            if on_line:  # `wrap(self.x[k])()`
                out.update((c.scope, k) for k in on_line)
        elif "[" in callee and read and callee.startswith("self."):  # `self.x[k]()`
            attr = self_attr(callee)
            if attr in read.get((c.scope, c.line), ()) and callee.startswith(f"self.{attr}["):
                out.add((c.scope, attr))
    if not held:
        return out, getters
    names = {name for _, name in held}
    callees = {callee for _, _, callee in wrapped}
    for c in facts.calls:
        keys = held.get((c.scope, c.callee)) if c.callee in names else None  # `func()`
        if keys is None and c.args and c.callee in callees:
            if (c.scope, c.line, c.callee) in wrapped:
                for _, a in c.args:  # `wrap(func)()`
                    keys = held.get((c.scope, a))
                    if keys is not None:
                        break
        if keys:
            out.update((c.scope, k) for k in keys)
    return out, getters


def _self_reads(facts: FileFacts) -> dict[tuple[str, int], set[str]]:
    """(scope, line) -> the attributes of `self` read there as values."""
    read: dict[tuple[str, int], set[str]] = {}
    # (the `self.` references picked in C: the lookup keys read every file's here)
    for r in native_core().rows_prefixed(facts.references, _TARGET, "self.", -1):
        t = r.target
        if r.kind == "read" and t.count(".") == 1:
            read.setdefault((r.scope, r.line), set()).add(t[5:])
    return read


def _returned_locals(facts: FileFacts) -> set[tuple[str, str]]:
    """(scope, name) of each plain name a function returns, not a call's result.
    (A returned literal's local, `ret$K`, is no handler: its items are what it hands out,
    and counting it made Django's Collector.delete a getter of self.data, chaining the
    change plan's flow binders to 8,044 names.)"""
    out = set()  # (a loop: a set comprehension is a function made per file)
    for r in facts.returns:
        if not r.is_call and "$" not in r.value:
            out.add((r.scope, r.value))
    return out


def _getters(facts: FileFacts, read: dict[tuple[str, int], set[str]],
             returned: set[tuple[str, str]] | None = None) -> set[tuple[str, str]]:  # fmt: skip
    """(method, attribute): the methods that read `self.attribute` and return a local name
    bound after the read (Flask's `_find_error_handler`: `handler_map =
    self.error_handler_spec[name][c]`, `handler = handler_map.get(cls)`, `return handler`).
    `returned`: `_returned_locals(facts)` when the caller made them."""
    reads: dict[str, list[tuple[int, set[str]]]] = {}
    for (scope, line), attrs in read.items():
        reads.setdefault(scope, []).append((line, attrs))
    out: set[tuple[str, str]] = set()
    if returned is None:
        returned = _returned_locals(facts)
    returned = {x for x in returned if x[0] in reads}
    if not returned:
        return out
    for b in facts.bindings:
        if (b.scope, b.name) in returned:
            for line, attrs in reads[b.scope]:
                if line < b.line:
                    out.update((b.scope, attr) for attr in attrs)
    return out


def registry_view(facts: FileFacts) -> dict[str, tuple]:
    """Scope -> what the change plan compares of its registries: the items it stores into
    `self.x` containers, the items it calls, the items it hands out (python/plan.py)."""
    loops = [b for b in facts.bindings if b.value.startswith("iter:")]
    callers, getters = item_callers(facts, loops)
    out: dict[str, list] = {}
    for scope, key in callers:
        out.setdefault(scope, []).append(("calls", key))
    for scope, attr in getters:
        out.setdefault(scope, []).append(("hands out", attr))
    for scope, attr, value in _stores(facts):
        out.setdefault(scope, []).append(("stores", attr, value))
    return {scope: tuple(sorted(v)) for scope, v in out.items()}


def registry_binders(
    facts: FileFacts, symbols: dict | None = None
) -> list[tuple[tuple[str, ...], str]]:
    """Flow binders (indexer/plan.py) of the methods handing out an item of `self.x`: reached
    by the attribute's name, as are the callers of their value (a function storing into
    `self.x` is reached by its own name, reading x: indexer/plan.py). `symbols`: local ->
    SymbolFact (None: made here if a method hands one out)."""
    # (most files return no plain name: their `self.` reads are not gathered; every file of
    # a full build passes here, its lookup keys)
    returned = _returned_locals(facts)
    getters = _getters(facts, _self_reads(facts), returned) if returned else ()
    if not getters:
        return []
    if symbols is None:
        symbols = {s.local: s for s in facts.symbols}
    return sorted({((symbols[scope].name,), attr) for scope, attr in getters if scope in symbols})


def registry_store(call) -> str | None:
    """The attribute of `self` a call stores its argument into (`self.x.append(v)`,
    `self.x.setdefault(k, []).append(v)`, `self.x[k].append(v)`), else None."""
    head, _, last = call.callee.rpartition(".")
    return stored_attr(head) if last in _ADDER_NAMES else None


def _stores(facts: FileFacts) -> list[tuple[str, str, str]]:
    """(scope, attribute, stored chain) of `self.x[k] = v` and the adders storing into self.x."""
    out = []
    for b in facts.bindings:
        if b.name.endswith("[]") and b.name.startswith("self.") and b.value.startswith("item:"):
            out.append((b.scope, b.name[5:-2], b.value.partition(":")[2].partition(":")[2]))
    for c in facts.calls:
        attr = registry_store(c) if c.args and c.callee.startswith("self.") else None
        if attr is not None:
            out.extend((c.scope, attr, chain) for _, chain in c.args)
    return out


REGISTRY_ADDERS = ("append", "add", "appendleft", "insert")  # (FlowRules.registry_adders)
_ADDER_NAMES = frozenset(REGISTRY_ADDERS)
_TARGET = ReferenceFact._fields.index("target")
