"""Go's uses, one handler per construct of queries.scm that is not a definition (imports,
calls, type and member references, `:=` / `range` / pattern bindings, function literals),
and the binding of a name to a value that definitions (`var`) share with them. They run
after the definitions (extract.py's phases), whose scopes they read."""

from __future__ import annotations

from typing import TYPE_CHECKING

import tree_sitter as ts

from codeimpact.indexer.lang.api import BindingFact, CallFact, ImportFact, ReferenceFact
from codeimpact.indexer.lang.go.syntax import (
    BUILTIN_TYPES,
    callee_chain,
    chain,
    last_name,
    params_of,
    type_chain,
)
from codeimpact.indexer.lang.syntax_common import line, text

if TYPE_CHECKING:
    from codeimpact.indexer.lang.go.extract import GoFile


def paired(values: list, n_names: int, i: int):
    if len(values) == n_names:
        return values[i]
    if len(values) == 1:  # `a, err := f()`: the results of one call
        return values[0]
    return None


def bind_value(f, scope, name, value, lineno, declare: bool = True, index: int = 0) -> None:
    """Record what a declared name holds: an evident type, a call result or another name.

    `a, err := f()` binds err to `f#1`, the second result of f.
    """
    typ = ""
    if index and (value is None or value.type != "call_expression"):
        value = None  # `v, ok := m[k]`, `v, ok := x.(T)`: the second value is a bool
    if value is not None:
        t = value.type
        if t == "call_expression":
            fn = value.child_by_field_name("function")
            args = value.child_by_field_name("arguments")
            if fn is not None and text(fn) == "new" and args is not None and args.named_children:
                typ = type_chain(args.named_children[0])  # new(T) is a *T
            else:
                c = callee_chain(fn)
                if c:
                    c = f"{c}#{index}" if index else c
                    f.facts.bindings.append(BindingFact(scope, name, c, True, lineno))
                    return
        elif t in ("identifier", "selector_expression"):
            c = chain(value)
            if c:
                f.facts.bindings.append(BindingFact(scope, name, c, False, lineno))
                return
        else:
            c = chain(value)
            if c and c.endswith("{}"):
                typ = c[:-2]
    if declare:
        f.local_name(scope, name, lineno, typ)
    elif typ:
        f.facts.extra["types"].setdefault(name, typ)


def on_import(f: GoFile, caps) -> None:
    node = caps["import"]
    path = text(caps["path"]).strip('"`')
    alias = text(node.child_by_field_name("name"))
    name = "init" if alias == "_" else ""
    f.facts.imports.append(ImportFact("", path, 0, name, alias, line(node)))


def on_call(f: GoFile, caps) -> None:
    call = caps["reference.call"]
    fn = caps["callee"]
    if fn.type == "func_literal":
        return  # an immediately called closure: its body is already part of this scope
    scope = f.scopes.at(call.start_byte)
    c = callee_chain(fn) or last_name(fn)
    args = []
    for i, a in enumerate(caps["arguments"].named_children):
        if a.type in ("identifier", "selector_expression"):
            ac = chain(a)
            if ac:
                args.append((i, ac))
    f.facts.calls.append(CallFact(scope, c, line(call), "call", tuple(args)))


def _reference(f: GoFile, node: ts.Node, target: str) -> None:
    for start, end in f.receivers:
        if start <= node.start_byte < end:
            return  # a method's receiver type is its container, not a use
    scope = f.scopes.at(node.start_byte)
    if f.is_tparam(scope, target.partition(".")[0]):
        return
    key = (scope, target)
    if key not in f.seen_refs:
        f.seen_refs.add(key)
        f.facts.references.append(ReferenceFact(scope, target, line(node), "annotation"))


def on_typeref(f: GoFile, caps) -> None:
    node = caps["reference.type"]
    if node.type == "qualified_type":
        _reference(f, node, type_chain(node))
        return
    parent = node.parent
    if parent is not None:
        if parent.type == "qualified_type":
            return
        if parent.type in ("type_spec", "type_alias") and node == parent.child_by_field_name(
            "name"
        ):
            return
    name = text(node)
    if name not in BUILTIN_TYPES:
        _reference(f, node, name)


def on_selector(f: GoFile, caps) -> None:
    node = caps["reference.member"]
    parent = node.parent
    if parent is not None and parent.type == "call_expression":
        if parent.child_by_field_name("function") == node:
            return  # a call: already a CallFact
    scope = f.scopes.at(node.start_byte)
    f.selectors.append((scope, text(caps["receiver"]), text(caps["name"]), line(node)))


def selector_references(f: GoFile) -> None:
    """`x.Name` uses where `x` is no local name of the scope: package members, mostly."""
    local: dict[str, set[str]] = {}
    for scope, name, _typ, _line in f.facts.extra["locals"]:
        local.setdefault(scope, set()).add(name)
    for b in f.facts.bindings:
        local.setdefault(b.scope, set()).add(b.name)
    for s in f.facts.symbols:
        names = local.setdefault(s.local, set())
        names.update(n for n, _t in s.params)
    for m, r in f.facts.extra["recv"].items():
        local.setdefault(m, set()).add(r)
    for scope, op, fld, lineno in f.selectors:
        if op in local.get(scope, ()):
            continue
        target = f"{op}.{fld}"
        if (scope, target) not in f.seen_refs:
            f.seen_refs.add((scope, target))
            f.facts.references.append(ReferenceFact(scope, target, lineno, "value"))


def on_short_var(f: GoFile, caps) -> None:
    node = caps["binding.local"]
    scope = f.scopes.at(node.start_byte)
    lhs = [n for n in caps["left"].named_children if n.type == "identifier"]
    rhs = caps["right"].named_children
    for i, n in enumerate(lhs):
        index = i if len(rhs) == 1 and len(lhs) > 1 else 0
        bind_value(f, scope, text(n), paired(rhs, len(lhs), i), line(node), index=index)


def on_range(f: GoFile, caps) -> None:
    """`for i, v := range xs`: v is an element of xs; i (a key or an index) is not typed."""
    node = caps["binding.iteration"]
    scope = f.scopes.at(node.start_byte)
    names = [n for n in caps["left"].named_children if n.type == "identifier"]
    over = chain(node.child_by_field_name("right"))
    for i, n in enumerate(names):
        name = text(n)
        if i == 1 and over and name != "_":
            f.facts.bindings.append(BindingFact(scope, name, f"{over}[i]", False, line(node)))
        else:
            f.local_name(scope, name, line(node), "")


def on_untyped_names(f: GoFile, caps) -> None:
    node = caps["left"]
    scope = f.scopes.at(node.start_byte)
    for n in node.named_children:
        if n.type == "identifier":
            f.local_name(scope, text(n), line(node), "")


def on_func_literal(f: GoFile, caps) -> None:
    node = caps["scope.lambda"]
    scope = f.scopes.at(node.start_byte)
    for name, typ in params_of(caps["parameters"]):
        f.local_name(scope, name, line(node), typ)
