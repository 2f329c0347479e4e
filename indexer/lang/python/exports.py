"""What other files can read of a Python function's body: its export view.

The change plan re-resolves the users of a function whose scope changed, since a body
edit can change what a call of it gives. Most body edits do not: a statement added,
a local call changed. The resolver reaches into a function's body from another file
only through
- `call_result` (values.py): the function's returns, evaluated in its scope: each name a return
  value names is looked up there (the bindings in effect at the return's line, local
  imports, parameters and their annotations) and followed through what it finds;
- value flow (playback.py's `_arguments`, flows.py's `sinks` and `item_sinks`): the calls
  whose callee is a parameter name, an item of one (`items[0]()`, a loop variable over
  one), or that pass one on as an argument, owned by the function whose
  parameter it is unless a scope on the way rebinds the name (closures); what a class's
  methods do with the parameters stored on `self` is the class's (python/plan.py);
- `instance_attr` (values.py): the `self.x = ...` bindings of a method, evaluated in its scope;
- the definitions nested in it, which a return hands out by name.

`function_view` is that part of a function's facts, each line replaced by its rank among
the lines kept (a use picks the binding in effect by comparing lines of one scope): the
returns, the parameter calls, `self.x` bindings, and the bindings and local imports of
every name those read, followed to a fixpoint; nested definitions whole. Two versions
of a function with equal views answer every lookup from elsewhere alike, so an edit
that leaves the view as it was re-resolves only its own file.

Anything the resolver comes to read of a function body must be added here (the
incremental tests compare such edits with full builds).
"""

from __future__ import annotations

import re

from codeimpact.indexer.lang.api import FileFacts

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_FUNCTION_KINDS = frozenset({"function", "method"})
_ITEM_READS = ("iter:", "key:")  # a loop variable, an item read: an item of the chain
_OFFSET = re.compile(r"([A-Za-z_]\w*)\$(\d+)")


def _names(text: str) -> set[str]:
    return set(_NAME.findall(text))


def _bound_name(imp) -> str:
    return imp.alias or imp.name or imp.module.split(".", 1)[0]


def _enclosing(syms: dict, scope: str) -> set[str]:
    """The function scopes around `scope` (a closure's lookups pass through them)."""
    out = set()
    up = scope.rpartition(".")[0]
    while up in syms and syms[up].kind in _FUNCTION_KINDS:
        out.add(up)
        up = up.rpartition(".")[0]
    return out


def _bound_here(facts: FileFacts, scopes: set[str]) -> set[str]:
    """The plain names bound in `scopes`: assignments, local imports, nested definitions."""
    names = {b.name for b in facts.bindings if b.scope in scopes}
    names |= {_bound_name(i) for i in facts.imports if i.scope in scopes}
    names |= {s.name for s in facts.symbols if s.local.rpartition(".")[0] in scopes}
    return names


def value_parameters(sym) -> set[str]:
    """The parameters of a function (a SymbolFact) that a caller's value can land in: all but
    a method's `self`/`cls`, which a call on an instance or class binds (flows.py
    `parameter_of` shifts past it). Passing `self` on is everywhere in real code and never
    hands on a function value: counting it made Django's body edits re-resolve 2,088 files."""
    names = [name.lstrip("*") for name, _ in sym.params]
    if names and sym.kind == "method" and "staticmethod" not in sym.decorators:
        names = names[1:]
    return set(names)


def function_locals(facts: FileFacts) -> dict[str, set[str]]:
    """Function scope -> the plain names it binds itself (assignments, parameters, local
    imports). A container such a name holds is the function's own: what `x[k] = v` or
    `x.append(v)` stores in it is read from elsewhere only through the function's returns
    (its export view), never by the name `x` (counting it by name let a local `constraints`
    dict in Django chain the change plan to 8,243 names)."""
    out: dict[str, set[str]] = {
        s.local: {n.lstrip("*") for n, _ in s.params}
        for s in facts.symbols
        if s.kind in _FUNCTION_KINDS
    }
    for b in facts.bindings:
        if b.scope in out and "." not in b.name and "[" not in b.name:
            out[b.scope].add(b.name)
    for i in facts.imports:
        if i.scope in out:
            out[i.scope].add(_bound_name(i))
    return out


def container_of(name: str) -> str:
    """The name a binding's value is reached by: `x` for the items stored in `x` (`x[]`,
    `x[k]`: lang/python/items.py)."""
    return name.split("[", 1)[0]


def passes_on(callee: str) -> bool:
    """Whether value flow follows a parameter passed to `callee` (flows.py `sinks`): a plain
    name or what it returns (`middle(fn)`, `make()(fn)`), or a method of the class
    (`self.register(fn)`, `super().__init__(fn)`). A method of some other receiver
    (`client.delete(key)`) is not followed: the change plan can only track it by the
    method's name, and names like `delete`/`add` chained every function passing a parameter
    to one into the plan (a body edit of Django's Model.delete reached 8,777 names)."""
    return _PASSES_ON.match(callee) is not None


_PASSES_ON = re.compile(r"(?:[A-Za-z_]\w*(?:\(\))?|(?:self|cls|super\(\))\.[A-Za-z_]\w*)\Z")


def _numbered(items: list) -> list:
    """The view's items with each local named by its offset (`f$<start byte>` of a
    comprehension, `arg$`/`it$` of a literal passed or iterated) renamed by its rank among
    them: an edit above the function moves the offsets, not which local is which."""
    found = {(int(m.group(2)), m.group(0)) for _, _, item in items for m in _OFFSET.finditer(item)}
    names = {text: f"{text.partition('$')[0]}${i}" for i, (_, text) in enumerate(sorted(found))}
    return sorted((s, r, _OFFSET.sub(lambda m: names[m.group(0)], item)) for s, r, item in items)


def function_view(facts: FileFacts, scope: str) -> tuple | None:
    """The export view of function `scope` (see the module docstring); None when the file
    has no such function."""
    syms = {s.local: s for s in facts.symbols}
    fn = syms.get(scope)
    if fn is None or fn.kind not in _FUNCTION_KINDS:
        return None
    nested = {local for local in syms if local.startswith(scope + ".")}
    inside = nested | {scope}
    params: set[str] = set()
    for local in inside:
        params |= {name.lstrip("*") for name, _ in syms[local].params}
    up = scope.rpartition(".")[0]
    while up in syms and syms[up].kind in _FUNCTION_KINDS:  # whose parameters closures call
        params |= {name.lstrip("*") for name, _ in syms[up].params}
        up = up.rpartition(".")[0]

    own_bindings = [b for b in facts.bindings if b.scope == scope]
    # the names a lookup from elsewhere starts from in this scope, then what they read
    wanted = set(params)
    for _, ann in fn.params:
        wanted |= _names(ann)
    for r in facts.returns:
        if r.scope == scope:
            wanted |= _names(r.value)
            if r.value.startswith("ret$"):  # a returned literal: its items (query_facts.py)
                wanted.add(r.value)
    for b in own_bindings:
        if b.name.startswith("self."):
            wanted |= _names(b.value)
    # a local bound to a parameter and called is a call of what the parameter was passed
    # (index.py's aliases): the binding and its calls are read from elsewhere
    aliases = {b.name for b in own_bindings if not b.is_call and b.value in params}
    # and one bound to an item of a parameter (`for f in items`, `h = table["go"]`) and
    # called, a call of an item of what it was passed (index.py's item_aliases)
    aliases |= {b.name for b in own_bindings if not b.is_call and b.value.startswith(_ITEM_READS)
                and b.value.split(":", 2)[2] in params}  # fmt: skip
    wanted |= aliases
    frontier = set(wanted)
    while frontier:
        found: set[str] = set()
        for b in own_bindings:
            if b.name in frontier:
                found |= _names(b.value) - wanted
        wanted |= found
        frontier = found

    kept: list[tuple[str, int, tuple]] = []  # (scope, line, item without its line)
    for group in (facts.returns, facts.bindings, facts.imports, facts.calls, facts.heritage,
                  facts.references):  # fmt: skip
        for x in group:
            if x.scope in nested:
                kept.append((x.scope, x.line, x._replace(line=0)))
    for r in facts.returns:
        if r.scope == scope:
            kept.append((scope, r.line, r._replace(line=0)))
    for b in own_bindings:  # `h[k] = v` too when `h` is read (`return h`)
        if container_of(b.name) in wanted or b.name.startswith("self."):
            kept.append((scope, b.line, b._replace(line=0)))
    for i in facts.imports:
        if i.scope == scope and _bound_name(i) in wanted:
            kept.append((scope, i.line, i._replace(line=0)))
    # Where a value flows (flows.py `sinks`) does not depend on the order of the function's
    # own calls: a parameter called or passed on is found by its name at any line, and a
    # callee looked up outside the function sees the same bindings from every line of the
    # body. Such calls are kept as a set (no rank), so a statement that passes a parameter
    # on the way an existing one does (Django's force_str gaining `is_protected_type(s)`)
    # leaves the view as it was; a callee the function binds itself keeps its rank.
    local_names = _bound_here(facts, inside | _enclosing(syms, scope)) - params
    flow: set[tuple[str, str]] = set()
    for c in facts.calls:  # a parameter called, or passed on (flows.py `sinks`)
        if c.scope not in inside:
            continue
        if (
            c.callee in params
            or c.callee in aliases
            or ("[]" in c.callee and c.callee.endswith("[]") and c.callee[:-2] in params)
            or (passes_on(c.callee) and any(a in params for _, a in c.args))
        ):
            head = c.callee.split(".", 1)[0].removesuffix("()")
            if c.scope == scope and head not in local_names:
                flow.add((c.scope, repr(c._replace(line=0))))
            else:
                kept.append((c.scope, c.line, c._replace(line=0)))
    ranks: dict[str, dict[int, int]] = {}
    for s in {s for s, _, _ in kept}:
        ranks[s] = {line: i for i, line in enumerate(sorted({ln for sc, ln, _ in kept if sc == s}))}
    items = sorted((s, ranks[s][line], repr(item)) for s, line, item in kept)
    items += sorted((s, -1, item) for s, item in flow)
    if any("$" in item for _, _, item in items):
        items = _numbered(items)
    definitions = sorted(
        repr(syms[local]._replace(start_line=0, end_line=0, start_byte=0, end_byte=0))
        for local in nested
    )
    return tuple(items), tuple(definitions)
