"""Rust: tree-sitter queries (rust.scm) -> FileFacts.

Locals: items are named by their lexical nesting (`m.S` for `struct S` in an
inline `mod m`); methods of an impl block are named after the impl's self type,
`S.new` for `impl S { fn new() }` and `S.fmt` for `impl Display for S { fn fmt }`
(`#2` for a same-named one from another impl block). Impl blocks are not
symbols: they are recorded in `extra["impls"]` so the resolver can attach their
methods to the type wherever it is defined.

Expressions are chains as written, with Rust's own separators: `a::b::f` for
paths, `.` for fields and method calls, `()` after a call result and `?` after a
try (`S::open()?.run`, `self.client.send`); `?` starts a chain whose receiver
is not a plain chain (`v[0].m` -> `?.m`).

Types are encoded as short strings the resolver reads (see `type_of`): a path
without generics (`a::S`), `Self`, `dyn A+B` for trait objects, `impl Trait`
and bounded generic parameters, `?X` for `Option<X>` / `Result<X, _>`, `[]X`
for a container of X (slices, arrays, `Vec<X>`, the values of a `HashMap<K, X>`),
a primitive name, "" when unknown. In chains, `v[]` is an element of v. Smart pointers
and references are see-through (`&Box<S>` is `S`), because methods reach the
pointee through Deref.

Macro bodies are token trees to tree-sitter; the arguments of the standard
expression macros (`assert_eq!`, `format!`, `vec!`, ...) are re-parsed as
expressions so the calls inside them are seen.

`extra` keys: mods [(scope, name, line, path attribute, is_test)] for
`mod x;`; impls [(scope, self type path, trait path, prefix, line, is_test)];
method_impl {method local: impl index}; ret {fn local: type}; variants {enum local: [name]}; alias
{type alias local: type}; vartypes {const/static local: type}; generics
{fn local: {param: type}}; file_test (an inner `#![cfg(test)]`).

Struct fields are BindingFacts of the struct's scope (`type:` + their type) and
`macro_rules!` names are BindingFacts of the scope "!macros": bindings are what
the incremental planner compares, so a changed field type or a new macro
re-resolves the files that use that name.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import PurePosixPath

import tree_sitter as ts

from codeimpact.indexer.lang.api import (
    BindingFact,
    FileFacts,
    HeritageFact,
    ReferenceFact,
    SymbolFact,
)
from codeimpact.indexer.lang.grammars import get_language, get_parser
from codeimpact.indexer.lang.rust.matching import NAME, matches
from codeimpact.indexer.lang.rust.sites import first_error, scan_sites
from codeimpact.indexer.lang.rust.syntax import (
    attributes,
    generic_bounds,
    impl_type_name,
    is_test_attr,
    node_text,
    path_of,
    type_of,
)
from codeimpact.indexer.lang.syntax_common import NestedScopes, module_symbol
from codeimpact.native.runner import QueryRunner

EXTRACTOR_VERSION = 1

# capture on the whole definition -> symbol kind ("impl" is a container, not a symbol)
_DEFS = {
    "function": "function",
    "struct": "struct",
    "enum": "enum",
    "trait": "trait",
    "type_alias": "type_alias",
    "module": "module",
    "variable": "variable",
    "impl": "impl",
}


_WS = re.compile(rb"\s+")


@cache
def _macro_runner() -> QueryRunner:
    """Every macro invocation with its token tree."""
    text = "(macro_invocation (token_tree) @arguments) @reference.macro"
    return QueryRunner(get_language(NAME), text)


class _Container:
    __slots__ = ("end", "prefix", "scope", "kind", "is_test", "generics", "iv", "impl")

    def __init__(self, end, prefix, scope, kind, is_test, generics, iv, impl=-1):
        self.end, self.prefix, self.scope, self.kind = end, prefix, scope, kind
        self.is_test, self.generics, self.iv, self.impl = is_test, generics, iv, impl


def _signature(source: bytes, node: ts.Node, body: ts.Node | None) -> str:
    end = body.start_byte if body is not None else node.end_byte
    text = source[node.start_byte : end]
    if body is None:
        text = text.split(b"\n", 1)[0]
    return _WS.sub(b" ", text).decode(errors="replace").strip().rstrip("{;").strip()[:300]


# ---------------------------------------------------------------- extraction
_ITEM_PARENTS = ("source_file", "declaration_list")


def _flatten_item_macros(source: bytes, root: ts.Node) -> bytes | None:
    """`cfg_rt! { pub mod runtime; }`: the items of an item-position macro whose braces hold
    plain items, with the macro's name and braces blanked out (same bytes, same lines), so
    they are seen as written. Macros whose bodies are not items (DSLs) are left alone."""
    out = None
    for _, caps in _macro_runner().matches(root):
        node, tokens = caps["reference.macro"], caps["arguments"]
        if node.parent is None or node.parent.type not in _ITEM_PARENTS:
            continue
        if source[tokens.start_byte : tokens.start_byte + 1] != b"{":
            continue
        body = source[tokens.start_byte + 1 : tokens.end_byte - 1]
        if not body.strip() or get_parser(NAME).parse(body).root_node.has_error:
            continue
        if out is None:
            out = bytearray(source)
        for a, b in (
            (node.start_byte, tokens.start_byte + 1),
            (tokens.end_byte - 1, node.end_byte),
        ):
            out[a:b] = bytes(c if c == 10 else 32 for c in source[a:b])
    return bytes(out) if out is not None else None


def extract(source: bytes) -> FileFacts:
    tree = get_parser(NAME).parse(source)
    root = tree.root_node
    for _ in range(3):  # nested wrappers: cfg_rt! { cfg_net! { ... } }
        flat = _flatten_item_macros(source, root)
        if flat is None:
            break
        source = flat
        tree = get_parser(NAME).parse(source)
        root = tree.root_node
    facts = FileFacts(
        language=NAME, lines=source.count(b"\n") + (0 if source.endswith(b"\n") else 1)
    )
    extra: dict = {
        "mods": [],
        "impls": [],
        "method_impl": {},
        "ret": {},
        "variants": {},
        "alias": {},
        "vartypes": {},
        "generics": {},
        "file_test": False,
    }
    facts.extra = extra
    facts.symbols.append(module_symbol(root, source))
    defs: list[tuple[ts.Node, str, dict]] = []
    sites: list[tuple[str, ts.Node, dict]] = []
    for kind, node, caps in matches(root):
        if kind in _DEFS:
            defs.append((node, kind, caps))
        else:
            sites.append((kind, node, caps))
    defs.sort(key=lambda d: d[0].start_byte)
    for kind, node, _ in sites:
        if kind == "inner_attribute":
            attr = node.named_children
            if attr and attr[0].named_children:
                path = path_of(attr[0].named_children[0]) or ""
                args = attr[0].child_by_field_name("arguments")
                if is_test_attr(path, node_text(args) if args is not None else ""):
                    extra["file_test"] = True

    intervals, generic_names = _definitions(source, defs, facts, extra)
    scopes = NestedScopes(intervals)
    scan_sites(source, root, sites, scopes, generic_names, facts)
    if root.has_error:
        facts.status = "partial"
        line = first_error(root)
        facts.error = f"syntax error at line {line}" if line else "syntax error"
    return facts


def _definitions(source, defs, facts: FileFacts, extra: dict):
    """Symbols, impl records and per-definition type facts; returns the scope intervals."""
    file_test = extra["file_test"]
    stack: list[_Container] = []
    intervals: list[tuple[int, int, str, int]] = []
    generic_names: dict[str, frozenset] = {}
    seen: dict[str, int] = {}
    for node, cap, _caps in defs:
        start = node.start_byte
        while stack and stack[-1].end <= start:
            stack.pop()
        top = stack[-1] if stack else None
        ckind = top.kind if top else "module"
        prefix = top.prefix if top else ""
        parent_iv = top.iv if top else -1
        attrs = attributes(node)
        is_test = (top.is_test if top else file_test) or any(is_test_attr(*a) for a in attrs)
        generics = dict(top.generics) if top else {}
        generic_bounds(node.child_by_field_name("type_parameters"), _where(node), generics)
        kind = _DEFS[cap]
        if kind == "impl":
            self_type = node.child_by_field_name("type")
            trait = node.child_by_field_name("trait")
            name = impl_type_name(self_type)
            self_path = (
                path_of(self_type)
                if self_type.type != "reference_type"
                else path_of(self_type.child_by_field_name("type"))
            )
            if self_path in generics:  # a blanket impl: `impl<T: X> Tr for T`
                self_path = ""
            extra["impls"].append(
                (
                    top.scope if top else "",
                    self_path or "",
                    path_of(trait) or "" if trait is not None else "",
                    f"{prefix}.{name}" if prefix else name,
                    node.start_point[0] + 1,
                    is_test,
                )
            )
            # the names an impl header uses, for the incremental planner; no edge of their own
            for p in (extra["impls"][-1][1], extra["impls"][-1][2]):
                if p:
                    facts.references.append(
                        ReferenceFact(extra["impls"][-1][0], p, node.start_point[0] + 1, "impl")
                    )
            iv = len(intervals)
            scope = top.scope if top else ""
            intervals.append((start, node.end_byte, scope, parent_iv))
            stack.append(
                _Container(
                    node.end_byte,
                    f"{prefix}.{name}" if prefix else name,
                    scope,
                    "impl",
                    is_test,
                    generics,
                    iv,
                    len(extra["impls"]) - 1,
                )
            )
            continue
        if kind == "function" and ckind in ("impl", "trait"):
            kind = "method"
        elif kind == "variable" and ckind != "module":
            continue  # associated and function-local constants are not module items
        elif kind == "type_alias" and ckind in ("impl", "trait"):
            continue  # associated types
        name = node_text(_caps["name"])
        local = f"{prefix}.{name}" if prefix else name
        n = seen.get(local, 0) + 1
        seen[local] = n
        if n > 1:
            local = f"{local}#{n}"
        body = node.child_by_field_name("body")
        exported = (
            ckind == "trait"
            or (ckind == "impl" and extra["impls"][top.impl][2] != "")
            or any(c.type == "visibility_modifier" for c in node.children)
        )
        params = _params(node, generics) if kind in ("function", "method") else ()
        facts.symbols.append(
            # not symbol_fact: the span starts at the first attribute, the line at the item
            SymbolFact(
                local=local,
                kind=kind,
                name=name,
                start_line=node.start_point[0] + 1,
                end_line=node.end_point[0] + 1,
                start_byte=start,
                end_byte=node.end_byte,
                signature=_signature(source, node, body),
                exported=exported,
                is_test=is_test,
                params=params,
                decorators=tuple(a[0] for a in attrs),
            )
        )
        if ckind == "impl":
            extra["method_impl"][local] = top.impl
        _type_facts(node, kind, local, generics, facts, extra)
        generic_names[local] = frozenset(generics)
        iv = len(intervals)
        intervals.append((start, node.end_byte, local, parent_iv))
        stack.append(
            _Container(
                node.end_byte,
                local,
                local,
                "fn" if kind in ("function", "method") else kind,
                is_test,
                generics,
                iv,
            )
        )
    return intervals, generic_names


def _where(node: ts.Node) -> ts.Node | None:
    for c in node.named_children:
        if c.type == "where_clause":
            return c
    return None


def _params(node: ts.Node, generics: dict) -> tuple:
    params = node.child_by_field_name("parameters")
    out = []
    for p in params.named_children if params is not None else ():
        if p.type == "self_parameter":
            out.append(("self", "Self"))
        elif p.type == "parameter":
            pat = p.child_by_field_name("pattern")
            name = node_text(pat) if pat is not None and pat.type in ("identifier", "self") else "_"
            out.append((name, type_of(p.child_by_field_name("type"), generics)))
    return tuple(out)


def _type_facts(node, kind, local, generics, facts: FileFacts, extra: dict) -> None:
    line = node.start_point[0] + 1
    if kind in ("function", "method"):
        ret = type_of(node.child_by_field_name("return_type"), generics)
        if ret:
            extra["ret"][local] = ret
        if generics:
            extra["generics"][local] = {k: v for k, v in generics.items()}
    elif kind == "struct":
        # fields are bindings of the struct's scope: a changed field type is a changed binding
        body = node.child_by_field_name("body")
        fields = []
        if body is not None and body.type == "field_declaration_list":
            for f in body.named_children:
                name = f.child_by_field_name("name")
                if f.type == "field_declaration" and name is not None:
                    fields.append((node_text(name), f.child_by_field_name("type")))
        elif body is not None and body.type == "ordered_field_declaration_list":
            fields = [(str(i), t) for i, t in enumerate(body.children_by_field_name("type"))]
        for name, typ in fields:
            enc = type_of(typ, generics)
            if enc:
                facts.bindings.append(
                    BindingFact(local, name, "type:" + enc, False, typ.start_point[0] + 1)
                )
    elif kind == "enum":
        body = node.child_by_field_name("body")
        extra["variants"][local] = [
            node_text(v.child_by_field_name("name"))
            for v in (body.named_children if body is not None else ())
            if v.type == "enum_variant" and v.child_by_field_name("name") is not None
        ]
    elif kind == "type_alias":
        enc = type_of(node.child_by_field_name("type"), generics)
        if enc:
            extra["alias"][local] = enc
    elif kind == "variable":
        enc = type_of(node.child_by_field_name("type"), generics)
        if enc:
            extra["vartypes"][local] = enc
    elif kind == "trait":
        bounds = node.child_by_field_name("bounds")
        for b in bounds.named_children if bounds is not None else ():
            p = path_of(b)
            if p:
                facts.heritage.append(HeritageFact(local, p, line, "extends"))


# ---------------------------------------------------------------- paths
_TEST_DIRS = frozenset({"tests", "test", "benches"})


def is_test_path(path: str) -> bool:
    """Cargo's integration tests and benches (`tests/`, `benches/`), and `tests.rs` modules."""
    p = PurePosixPath(path)
    if p.name in ("tests.rs", "test.rs") or p.stem.endswith("_tests") or p.stem.endswith("_test"):
        return True
    return any(part in _TEST_DIRS for part in p.parts[:-1])
