"""Kotlin: tree-sitter queries (queries.scm) -> FileFacts in the Java model's shape.

Locals are lexical below the package: `Cart`, `Cart.add`, constructors `Cart.<init>` (the
primary one written in the class header, and each secondary one), properties `Cart.items`
(and `val`/`var` parameters of the primary constructor), objects `Registry` (kind object),
a companion object's members on their class (`Cart.build`), top-level functions `helper`,
extension functions `shout` (kind function; their receiver type is in extra["extends"]).
Kinds: class, interface, object, method, function, property.

A supertype written with a constructor call (`: Base(repo)`) is an "extends" HeritageFact
(and a call of the base's constructor); one without (`: Comparable<Cart>`) an "implements"
one. Calls: `x.m()` is the chain `x.m` (`this` as is), `m()` is `m`; `Foo(...)` is a call
whose callee is a type (the resolver makes it a construction). `val c = Cart(repo)` is a
BindingFact (the engine types c by what the call returns); `val c: T` types c T. Argument
counts are in extra["argc"], one per CallFact, as Java's.
"""

from __future__ import annotations

import tree_sitter as ts

from codeimpact.indexer.lang.api import CallFact, FileFacts, HeritageFact, ImportFact
from codeimpact.indexer.lang.java.model import ModelFile, bind_chain, model_extract
from codeimpact.indexer.lang.syntax_common import (
    ChainForm,
    Child,
    Scopes,
    chain_of,
    child,
    line,
    text,
)

NAME = "kotlin"
EXTRACTOR_VERSION = 1


def type_chain(node: ts.Node | None) -> str:
    """`com.x.Order`, `Order<T>`, `Order?` -> the dotted name; "" if none."""
    if node is None:
        return ""
    t = node.type
    if t == "user_type":
        return ".".join(text(c) for c in node.named_children if c.type == "type_identifier")
    if t in ("nullable_type", "type_reference", "parenthesized_type"):
        return type_chain(node.named_children[0]) if node.named_children else ""
    if t in ("type_identifier", "simple_identifier"):
        return text(node)
    if t == "identifier":
        return ".".join(text(c) for c in node.named_children)
    return ""


_CHAIN = ChainForm(
    names=frozenset({"simple_identifier"}),
    fixed={"this_expression": "this", "super_expression": "super"},
    members={
        "navigation_expression": (0, (Child("navigation_suffix"), Child("simple_identifier")))
    },
    calls={"call_expression": 0},
    inner={"parenthesized_expression": 0},
)


def chain(node: ts.Node | None) -> str | None:
    """The chain of a value expression (lang/syntax_common.py); None when it has no such form."""
    return chain_of(_CHAIN, node)


class _File(ModelFile):
    def __init__(self, source: bytes, root: ts.Node):
        super().__init__(NAME, source, root)
        self.facts.extra["extends"] = {}  # extension function local -> its receiver type


def _mods(node: ts.Node) -> str:
    m = child(node, "modifiers")
    return " ".join(text(c) for c in m.named_children) if m is not None else ""


def _params(node: ts.Node | None) -> tuple[tuple[str, str], ...]:
    out = []
    for p in node.named_children if node is not None else ():
        if p.type in ("parameter", "class_parameter"):
            name = child(p, "simple_identifier")
            typ = child(p, "user_type", "nullable_type")
            if name is not None:
                out.append((text(name), type_chain(typ)))
    return tuple(out)


def _owner(stack, node) -> str:
    while stack and stack[-1][0] <= node.start_byte:
        stack.pop()
    return stack[-1][1] if stack else ""


def _definitions(f: _File, defs) -> None:
    stack: list[tuple[int, str]] = []  # (end byte, local) of the enclosing classes/functions
    intervals = []
    for construct, caps in sorted(defs, key=lambda d: d[1][d[0]].start_byte):
        node = caps[construct]
        parent = _owner(stack, node)
        prefix = f"{parent}." if parent else ""
        mods = _mods(node)
        if construct == "package":
            f.facts.extra["package"] = type_chain(child(node, "identifier"))
            continue
        if construct in ("definition.class", "definition.object"):
            name = text(child(node, "type_identifier"))
            if not name:
                continue
            kw = next((c.type for c in node.children if not c.is_named), "class")
            kind = "object" if construct == "definition.object" else (
                "interface" if kw == "interface" else "class")  # fmt: skip
            local = f.names.unique(prefix + name)
            body = child(node, "class_body", "enum_class_body")
            f.add(node, local, kind, name, body.start_byte if body else None, mods=mods)
            _supertypes(f, node, local)
            stack.append((node.end_byte, local))
            intervals.append((node.start_byte, node.end_byte, local))
            continue
        if construct == "definition.constructor":
            if not parent:
                continue
            local = f.names.unique(f"{prefix}<init>")
            plist = child(node, "class_parameters", "function_value_parameters") or node
            f.add(node, local, "method", "<init>", params=_params(plist), mods=mods)
            for p in plist.named_children:
                if p.type == "class_parameter" and child(p, "binding_pattern_kind") is not None:
                    pname = text(child(p, "simple_identifier"))
                    plocal = f.names.unique(prefix + pname)
                    f.add(p, plocal, "property", pname)
                    ptype = type_chain(child(p, "user_type", "nullable_type"))
                    if ptype:
                        f.facts.extra["types"][plocal] = ptype
            if node.type == "secondary_constructor":
                intervals.append((node.start_byte, node.end_byte, local))
            continue
        if construct == "definition.property":
            var = child(node, "variable_declaration")
            name = child(var, "simple_identifier")
            if name is None or not parent:
                continue
            if f.facts.extra["modifiers"].get(parent, "").startswith("fun"):  # a local
                typ = type_chain(child(var, "user_type", "nullable_type"))
                if typ:
                    f.facts.extra["locals"].append((parent, text(name), typ, line(node)))
                continue
            local = f.names.unique(prefix + text(name))
            f.add(node, local, "property", text(name), mods=mods)
            typ = type_chain(child(var, "user_type", "nullable_type"))
            if typ:
                f.facts.extra["types"][local] = typ
            continue
        # a function
        name = text(child(node, "simple_identifier"))
        if not name:
            continue
        receiver = node.child_by_field_name("receiver")
        in_fun = f.facts.extra["modifiers"].get(parent, "").startswith("fun")
        kind = "method" if parent and not in_fun else "function"
        local = f.names.unique(prefix + name)
        params = _params(child(node, "function_value_parameters"))
        body = child(node, "function_body")
        is_test = "Test" in mods.split() or "@Test" in mods
        f.add(node, local, kind, name, body.start_byte if body else None, params, is_test,
              ("fun " + mods).strip())  # fmt: skip
        res = type_chain(next((c for c in node.named_children if c.type in ("user_type", "nullable_type")
                               and c != receiver), None))  # fmt: skip
        if res:
            f.facts.extra["results"][local] = res
        if receiver is not None and type_chain(child(receiver, "user_type", "nullable_type")):
            f.facts.extra["extends"][local] = type_chain(
                child(receiver, "user_type", "nullable_type")
            )
        stack.append((node.end_byte, local))
        intervals.append((node.start_byte, node.end_byte, local))
    f.scopes = Scopes(intervals)


def _supertypes(f: _File, node: ts.Node, local: str) -> None:
    for d in node.named_children:
        if d.type != "delegation_specifier":
            continue
        inv = child(d, "constructor_invocation")
        if inv is not None:
            base = type_chain(child(inv, "user_type"))
            if base:
                f.facts.heritage.append(HeritageFact(local, base, line(d), "extends"))
                args = child(inv, "value_arguments")
                n = len(args.named_children) if args is not None else 0
                f.calls.append(
                    (d.start_byte, CallFact(local, "super.<init>", line(d), "call", ()), n)
                )
            continue
        base = type_chain(child(d, "user_type"))
        if base:
            f.facts.heritage.append(HeritageFact(local, base, line(d), "implements"))


def _on_import(f: _File, caps) -> None:
    node = caps["import"]
    dotted = type_chain(child(node, "identifier"))
    if not dotted:
        return
    if child(node, "wildcard_import") is not None:
        f.facts.imports.append(ImportFact("", dotted, 0, "*", "", line(node)))
        return
    alias = child(node, "import_alias")
    module, _, name = dotted.rpartition(".")
    f.facts.imports.append(ImportFact("", module, 0, name, text(child(alias, "type_identifier")),
                                      line(node)))  # fmt: skip


def _on_call(f: _File, caps) -> None:
    node = caps["reference.call"]
    callee = node.named_children[0] if node.named_children else None
    c = chain(callee) or "?"
    suffix = child(node, "call_suffix")
    args = child(suffix, "value_arguments")
    argv = [a.named_children[0] for a in args.named_children if a.named_children] if args else []
    plain = tuple((i, text(a)) for i, a in enumerate(argv) if a.type == "simple_identifier")
    scope = f.scopes.at(node.start_byte)
    f.calls.append((node.start_byte, CallFact(scope, c, line(node), "call", plain), len(argv)))
    parent = node.parent
    if parent is not None and parent.type == "property_declaration" and scope:
        name = child(child(parent, "variable_declaration"), "simple_identifier")
        if name is not None and child(child(parent, "variable_declaration"), "user_type") is None:
            bind_chain(f.facts, scope, text(name), chain(node), line(node))


_USES = {"import": _on_import, "reference.call": _on_call}


def extract(source: bytes) -> FileFacts:
    return model_extract(NAME, __package__, source, _File, _definitions, _USES)


def is_test_path(path: str) -> bool:
    """Gradle's layout (src/test/, src/androidTest/) and `*Test.kt` files."""
    parts = path.split("/")
    if any(p in ("test", "tests", "androidTest", "testFixtures") for p in parts[:-1]):
        return True
    return parts[-1].endswith(("Test.kt", "Tests.kt"))
