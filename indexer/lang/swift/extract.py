"""Swift: tree-sitter queries (queries.scm) -> FileFacts in the Java model's shape.

Every file's package is "": the files of a module see each other without imports (an
`import` names another module: external). Locals: `Cart` (kind class, struct, enum,
protocol; an `extension Cart` is a part of Cart), `Cart.add`, initialisers `Cart.<init>`,
properties `Cart.items` (kind property, typed by their annotation), top-level functions
`helper`. Supertypes (`: Base, Equatable`) are "extends" HeritageFacts (the resolver makes
a protocol IMPLEMENTS). Calls: `x.m()` is `x.m` (`self` is `this`, `super` is `super`),
`m()` is `m`, `Cart(...)` a call whose callee is a type (a construction). `let c = f()` is
a BindingFact, `let c: T` types c T.
"""

from __future__ import annotations

import tree_sitter as ts

from codeimpact.indexer.lang.api import CallFact, FileFacts, HeritageFact, ImportFact
from codeimpact.indexer.lang.java.model import ModelFile, bind_chain, model_extract
from codeimpact.indexer.lang.syntax_common import (
    ChainForm,
    Scopes,
    chain_of,
    child,
    line,
    text,
)

NAME = "swift"
EXTRACTOR_VERSION = 1
_KINDS = {"class": "class", "struct": "struct", "enum": "enum", "extension": "class",
          "actor": "class"}  # fmt: skip


def type_chain(node: ts.Node | None) -> str:
    if node is None:
        return ""
    t = node.type
    if t == "user_type":
        return ".".join(text(c) for c in node.named_children if c.type == "type_identifier")
    if t in ("type_identifier", "simple_identifier"):
        return text(node)
    if t in ("optional_type", "type_annotation") and node.named_children:
        return type_chain(node.child_by_field_name("name") or node.named_children[0])
    return ""


_CHAIN = ChainForm(
    names=frozenset({"simple_identifier"}),
    fixed={"self_expression": "this", "super_expression": "super"},
    members={"navigation_expression": ("target", ("suffix", "suffix"))},
    calls={"call_expression": 0},
)


def chain(node: ts.Node | None) -> str | None:
    """The chain of a value expression (lang/syntax_common.py); None when it has no such form."""
    return chain_of(_CHAIN, node)


class _File(ModelFile):
    def __init__(self, source: bytes, root: ts.Node):
        super().__init__(NAME, source, root)


def _params(node: ts.Node) -> tuple[tuple[str, str], ...]:
    out = []
    for p in node.named_children:
        if p.type == "parameter":
            names = p.children_by_field_name("name")
            ident = next((n for n in names if n.type == "simple_identifier"), None)
            typ = next((n for n in names if n.type != "simple_identifier"), None)
            if ident is not None:
                out.append((text(ident), type_chain(typ)))
    return tuple(out)


def _definitions(f: _File, defs) -> None:
    stack: list[tuple[int, str]] = []
    intervals = []
    for construct, caps in sorted(defs, key=lambda d: d[1][d[0]].start_byte):
        node = caps[construct]
        while stack and stack[-1][0] <= node.start_byte:
            stack.pop()
        parent = stack[-1][1] if stack else ""
        in_fun = f.facts.extra["modifiers"].get(parent, "").startswith("func")
        prefix = f"{parent}." if parent else ""
        if construct in ("definition.class", "definition.protocol"):
            name = type_chain(caps["name"])
            if not name or in_fun:
                continue
            kw = next((c.type for c in node.children if not c.is_named), "class")
            kind = "protocol" if construct == "definition.protocol" else _KINDS.get(kw, "class")
            local = f.names.unique(prefix + name)
            body = node.child_by_field_name("body")
            f.add(node, local, "interface" if kind == "protocol" else kind, name,
                  body.start_byte if body else None, mods=kw)  # fmt: skip
            for spec in node.named_children:
                if spec.type == "inheritance_specifier":
                    base = type_chain(spec.child_by_field_name("inherits_from"))
                    if base:
                        f.facts.heritage.append(HeritageFact(local, base, line(spec), "extends"))
            stack.append((node.end_byte, local))
            intervals.append((node.start_byte, node.end_byte, local))
            continue
        if construct == "definition.property":
            pat = node.child_by_field_name("name")
            ident = pat.child_by_field_name("bound_identifier") if pat is not None else None
            if ident is None:
                continue
            typ = type_chain(child(node, "type_annotation"))
            if in_fun:
                if typ:
                    f.facts.extra["locals"].append((parent, text(ident), typ, line(node)))
                continue
            if not parent:
                continue
            local = f.names.unique(prefix + text(ident))
            f.add(node, local, "property", text(ident))
            if typ:
                f.facts.extra["types"][local] = typ
            continue
        if construct == "definition.constructor":
            if not parent:
                continue
            local = f.names.unique(f"{prefix}<init>")
            body = node.child_by_field_name("body")
            f.add(node, local, "method", "<init>", body.start_byte if body else None, _params(node),
                  mods="func")  # fmt: skip
            intervals.append((node.start_byte, node.end_byte, local))
            stack.append((node.end_byte, local))
            continue
        name = text(caps["name"])
        kind = "method" if parent and not in_fun else "function"
        local = f.names.unique(prefix + name)
        body = node.child_by_field_name("body")
        is_test = name.startswith("test") and bool(parent)
        f.add(node, local, kind, name, body.start_byte if body else None, _params(node), is_test,
              "func")  # fmt: skip
        res = [c for c in node.children_by_field_name("name") if c.type != "simple_identifier"]
        if res and type_chain(res[-1]):
            f.facts.extra["results"][local] = type_chain(res[-1])
        stack.append((node.end_byte, local))
        intervals.append((node.start_byte, node.end_byte, local))
    f.scopes = Scopes(intervals)


def _on_import(f: _File, caps) -> None:
    node = caps["import"]
    ident = child(node, "identifier")
    if ident is not None:
        dotted = ".".join(text(c) for c in ident.named_children)
        f.facts.imports.append(ImportFact("", dotted, 0, "*", "", line(node)))


def _on_call(f: _File, caps) -> None:
    node = caps["reference.call"]
    callee = node.named_children[0] if node.named_children else None
    c = chain(callee)
    if c is None:
        return  # `.number(x)`: an implicit member of a type we do not know, no call to name
    args = child(child(node, "call_suffix"), "value_arguments")
    argv = [a for a in args.named_children if a.type == "value_argument"] if args else []
    scope = f.scopes.at(node.start_byte)
    f.calls.append((node.start_byte, CallFact(scope, c, line(node), "call", ()), len(argv)))
    parent = node.parent
    if parent is not None and parent.type == "property_declaration" and scope:
        pat = parent.child_by_field_name("name")
        ident = pat.child_by_field_name("bound_identifier") if pat is not None else None
        if ident is not None and child(parent, "type_annotation") is None:
            bind_chain(f.facts, scope, text(ident), chain(node), line(node))


_USES = {"import": _on_import, "reference.call": _on_call}


def extract(source: bytes) -> FileFacts:
    return model_extract(NAME, __package__, source, _File, _definitions, _USES)


def is_test_path(path: str) -> bool:
    """SwiftPM's layout (Tests/) and `*Tests.swift` files."""
    parts = path.split("/")
    return any(p in ("Tests", "tests", "Test") for p in parts[:-1]) or parts[-1].endswith(
        ("Tests.swift", "Test.swift")
    )
