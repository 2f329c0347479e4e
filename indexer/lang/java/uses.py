"""Java's uses, one handler per construct of queries.scm that is not a definition: the
package clause, imports, calls (`m()`, `new T()`, `this(...)`, method references), type and
annotation references, and the locals they bind (typed by declaration or by what they are
assigned). They run after the definitions (extract.py), whose scopes they read."""

from __future__ import annotations

from typing import TYPE_CHECKING

import tree_sitter as ts

from codeimpact.indexer.lang.api import BindingFact, CallFact, ImportFact
from codeimpact.indexer.lang.java.syntax import callee_chain, chain, type_chain
from codeimpact.indexer.lang.syntax_common import line, text

if TYPE_CHECKING:
    from codeimpact.indexer.lang.java.extract import JavaFile


def _on_package(f: JavaFile, caps) -> None:
    node = caps["package"]
    name = next(
        (c for c in node.named_children if c.type in ("scoped_identifier", "identifier")), None
    )
    f.facts.extra["package"] = type_chain(name)


def _on_import(f: JavaFile, caps) -> None:
    node = caps["import"]
    target = next(
        (c for c in node.named_children if c.type in ("scoped_identifier", "identifier")), None
    )
    dotted = type_chain(target)
    if not dotted:
        return
    star = any(c.type == "asterisk" for c in node.children)
    if star:
        module, name = dotted, "*"
    else:
        module, _, name = dotted.rpartition(".")
    if any(c.type == "static" for c in node.children):
        f.facts.extra["static"].append(len(f.facts.imports))
    f.facts.imports.append(ImportFact("", module, 0, name, "", line(node)))


def _call(f: JavaFile, node: ts.Node, callee: str, kind: str, args: ts.Node) -> None:
    plain = []
    for i, a in enumerate(args.named_children):
        if a.type in ("identifier", "field_access"):
            c = chain(a)
            if c:
                plain.append((i, c))
    scope = f.scopes.at(node.start_byte)
    f.facts.calls.append(CallFact(scope, callee, line(node), kind, tuple(plain)))
    f.facts.extra["argc"].append(args.named_child_count)


def _on_call(f: JavaFile, caps) -> None:
    node = caps["reference.call"]
    _call(f, node, callee_chain(node), "call", caps["arguments"])


def _on_new(f: JavaFile, caps) -> None:
    node = caps["reference.new"]
    tc = type_chain(caps["type"])
    if tc:
        _call(f, node, tc, "new", caps["arguments"])


def _on_ctor_call(f: JavaFile, caps) -> None:
    node = caps["reference.constructor"]
    who = caps["callee"].type  # this | super
    if who in ("this", "super"):
        _call(f, node, f"{who}.<init>", "call", caps["arguments"])


def _on_method_ref(f: JavaFile, caps) -> None:
    node = caps["reference.method"]
    kids = node.named_children
    if not kids:
        return
    target = kids[0]
    if node.children[-1].type == "new":  # Foo::new
        tc = type_chain(target)
        if tc:
            f.reference(node, tc)
        return
    if len(kids) < 2 or kids[-1].type != "identifier":
        return
    head = chain(target) or type_chain(target)
    if head:
        f.reference(node, f"{head}.{text(kids[-1])}", "value")


def _on_typeref(f: JavaFile, caps) -> None:
    node = caps["reference.type"]
    if node.type == "scoped_type_identifier":
        _on_scoped_typeref(f, node)
        return
    parent = node.parent
    if parent is not None and parent.type == "scoped_type_identifier":
        return
    name = text(node)
    if name != "var":
        f.reference(node, name)


def _on_scoped_typeref(f: JavaFile, node: ts.Node) -> None:
    parent = node.parent
    if parent is not None and parent.type == "scoped_type_identifier":
        return
    tc = type_chain(node)
    if tc:
        f.reference(node, tc)


def _on_annotation(f: JavaFile, caps) -> None:
    tc = type_chain(caps["name"])
    if tc:
        f.reference(caps["reference.annotation"], tc)


def _bind(f: JavaFile, scope: str, name: str, declared: str, value, lineno: int) -> None:
    """A local's type: declared, or evident from `var x = new T()` / a cast / a call result."""
    if declared:
        f.local_name(scope, name, lineno, declared)
        return
    if value is not None:
        c = chain(value)
        if c and c.endswith("{}"):
            f.local_name(scope, name, lineno, c[:-2])
            return
        if c and c.endswith("()"):
            f.facts.bindings.append(BindingFact(scope, name, c[:-2], True, lineno))
            return
        if c and value.type in ("identifier", "field_access"):
            f.facts.bindings.append(BindingFact(scope, name, c, False, lineno))
            return
    f.local_name(scope, name, lineno, "")


def _on_local_var(f: JavaFile, caps) -> None:
    node = caps["binding.local"]
    scope = f.scopes.at(node.start_byte)
    typ = type_chain(caps["type"])
    for decl in node.children_by_field_name("declarator"):
        name = text(decl.child_by_field_name("name"))
        declared = typ if decl.child_by_field_name("dimensions") is None else ""
        if not typ and text(caps["type"]) != "var":
            declared = ""  # an array or a primitive: nothing to call methods on
            _bind(f, scope, name, "", None, line(node))
            continue
        _bind(f, scope, name, declared, decl.child_by_field_name("value"), line(node))


def _on_typed_name(key: str):
    def handler(f: JavaFile, caps) -> None:
        node = caps[key]
        scope = f.scopes.at(node.start_byte)
        typ = type_chain(caps["type"]) if "type" in caps else ""
        f.local_name(scope, text(caps["name"]), line(node), typ)

    return handler


def _on_catch(f: JavaFile, caps) -> None:
    node = caps["binding.catch"]
    ctype = next((c for c in node.named_children if c.type == "catch_type"), None)
    types = [type_chain(t) for t in ctype.named_children] if ctype is not None else []
    typ = types[0] if len(types) == 1 else ""  # a multi-catch is only its common supertype
    f.local_name(f.scopes.at(node.start_byte), text(caps["name"]), line(node), typ)


def _on_lambda(f: JavaFile, caps) -> None:
    node = caps["scope.lambda"]
    params = caps["parameters"]
    scope = f.scopes.at(node.start_byte)
    if params.type == "identifier":
        f.local_name(scope, text(params), line(node), "")
        return
    for p in params.named_children:
        if p.type == "identifier":
            f.local_name(scope, text(p), line(node), "")
        elif p.type == "formal_parameter":
            name = text(p.child_by_field_name("name"))
            f.local_name(scope, name, line(node), type_chain(p.child_by_field_name("type")))


USES = {
    "package": _on_package,
    "import": _on_import,
    "reference.call": _on_call,
    "reference.new": _on_new,
    "reference.constructor": _on_ctor_call,
    "reference.method": _on_method_ref,
    "reference.type": _on_typeref,
    "reference.annotation": _on_annotation,
    "binding.local": _on_local_var,
    "binding.iteration": _on_typed_name("binding.iteration"),
    "binding.context": _on_typed_name("binding.context"),
    "binding.pattern": _on_typed_name("binding.pattern"),
    "binding.catch": _on_catch,
    "scope.lambda": _on_lambda,
}
