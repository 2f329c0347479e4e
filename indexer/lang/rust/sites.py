"""Rust's call sites, bindings and uses (the second pass of extraction, after the
definitions gave the scopes): calls, struct literals, `let`/`for`/`if let` bindings, `use`
trees and type paths, in the file and in the token trees of macros whose arguments are
code (re-parsed, their positions mapped back)."""

from __future__ import annotations

import bisect

import tree_sitter as ts

from codeimpact.indexer.lang.api import (
    BindingFact,
    CallFact,
    FileFacts,
    ImportFact,
    ReferenceFact,
)
from codeimpact.indexer.lang.grammars import get_parser
from codeimpact.indexer.lang.rust.matching import (
    CLOSURE,
    EXPR_MACROS,
    FORMAT_MACROS,
    INERT_MACROS,
    MACROS,
    NAME,
    matches,
)
from codeimpact.indexer.lang.rust.syntax import (
    attributes,
    chain_of,
    is_test_attr,
    node_text,
    path_of,
    type_of,
)
from codeimpact.indexer.lang.syntax_common import NestedScopes


class _Source:
    """A text being scanned: the file itself, or macro arguments re-parsed (positions mapped).

    Each re-parsed segment remembers its macro context: None when the macro's arguments are
    plain expressions of the caller (`assert_eq!`, `format!`, `log::info!`), else the name
    of the macro whose expansion they are part of (a crate's own `macro_rules!`).
    """

    def __init__(self, data: bytes, segments: list[tuple] | None = None, parent=None):
        self.data = data
        self.segments = segments  # [(start here, start in parent, context)], sorted
        self.starts = [s[0] for s in segments] if segments else []
        self.parent = parent
        self.tree = None

    def _segment(self, pos: int) -> tuple:
        return self.segments[max(0, bisect.bisect_right(self.starts, pos) - 1)]

    def original(self, pos: int) -> int:
        src = self
        while src.segments is not None:
            start, target, _ = src._segment(pos)
            pos = target + (pos - start)
            src = src.parent
        return pos

    def context(self, pos: int) -> str | None:
        return self._segment(pos)[2] if self.segments else None


_STD_HEADS = ("", "std", "core", "alloc")


def _macro_context(path: str, outer: str | None) -> str | None | bool:
    """The context of a macro's arguments; False when they are not code at all."""
    head, _, last = path.rpartition("::")
    if head in _STD_HEADS and last in INERT_MACROS:
        return False
    if (head in _STD_HEADS and last in EXPR_MACROS) or last in FORMAT_MACROS:
        return outer
    return last


def scan_sites(source, root, sites, scopes: NestedScopes, generic_names, facts: FileFacts) -> None:
    newlines = [i for i, b in enumerate(source) if b == 10]

    def line_of(pos: int) -> int:
        return bisect.bisect_left(newlines, pos) + 1

    file_src = _Source(source)
    for cap, node, caps in sites:
        if cap == "use":
            _uses(node, scopes, facts)
        elif cap == "extern_crate":
            alias = node.child_by_field_name("alias")
            facts.imports.append(
                ImportFact(
                    scopes.at(node.start_byte),
                    "",
                    0,
                    node_text(caps["name"]),
                    node_text(alias) if alias is not None else "",
                    node.start_point[0] + 1,
                )
            )
        elif cap == "mod_decl":
            attrs = attributes(node)
            path_attr = next((a for p, a in attrs if p == "path"), "")
            facts.extra["mods"].append(
                (
                    scopes.at(node.start_byte),
                    node_text(caps["name"]),
                    node.start_point[0] + 1,
                    path_attr,
                    any(is_test_attr(*a) for a in attrs),
                )
            )
        elif cap == "macro_def":
            facts.bindings.append(
                BindingFact(
                    MACROS, node_text(caps["name"]), "macro_rules", False, node.start_point[0] + 1
                )
            )
        elif cap == "typeref":
            scope = scopes.at(node.start_byte)
            skip = generic_names.get(scope, frozenset())
            for path in _type_paths(node):
                if path not in skip:
                    facts.references.append(
                        ReferenceFact(scope, path, node.start_point[0] + 1, "annotation")
                    )
    # calls, struct literals, macros and bindings: in the file, then in macro arguments
    src = file_src
    todo = [site for site in sites if site[0] in _CODE_SITES]
    for _depth in range(4):
        macro_args: list[tuple[ts.Node, str | None]] = []
        for cap, node, caps in todo:
            pos = src.original(node.start_byte)
            scope = scopes.at(pos)
            line = line_of(pos)
            ctx = src.context(node.start_byte)
            at = f"@{ctx}" if ctx else ""
            if cap == "call":
                _call(node, caps["callee"], caps["arguments"], scope, line, at, facts)
            elif cap == "struct_literal":
                p = path_of(caps["callee"])
                facts.calls.append(CallFact(scope, p or "?", line, "struct" + at, ()))
            elif cap == "macro":
                p = path_of(caps["callee"]) or "?"
                facts.calls.append(CallFact(scope, p, line, "macro" + at, ()))
                inner = _macro_context(p, ctx)
                if inner is not False:
                    macro_args.append((caps["arguments"], inner))
            elif src is file_src:
                _binding(cap, node, caps, scope, line, facts)
        if not macro_args:
            break
        src = _reparse(src, macro_args)
        todo = [
            site
            for site in matches(src.tree.root_node)
            if site[0] in ("call", "struct_literal", "macro")
        ]


_CODE_SITES = frozenset(["call", "struct_literal", "macro", "let", "for", "if_let"])


def _reparse(parent: _Source, token_trees: list[tuple[ts.Node, str | None]]) -> _Source:
    """Macro arguments as one synthetic function body: `(args);` per macro, positions mapped."""
    parts = [b"fn __m() {\n"]
    size = len(parts[0])
    segments = [(0, 0, None)]
    for tt, ctx in token_trees:
        inner_start, inner_end = tt.start_byte + 1, tt.end_byte - 1
        if inner_end <= inner_start:
            continue
        body = parent.data[inner_start:inner_end]
        open_ = b"[" if parent.data[tt.start_byte : tt.start_byte + 1] == b"[" else b"("
        close = b"]" if open_ == b"[" else b",)"
        parts.append(open_)
        size += 1
        segments.append((size, inner_start, ctx))
        parts.append(body)
        parts.append(close + b";\n")
        size += len(body) + len(close) + 2
        segments.append((size - len(close) - 2, inner_end, None))
    parts.append(b"}\n")
    src = _Source(b"".join(parts), segments, parent)
    src.tree = get_parser(NAME).parse(src.data)
    return src


def _call(node, fn: ts.Node, args: ts.Node, scope: str, line: int, at: str, facts) -> None:
    while fn.type == "generic_function":
        fn = fn.child_by_field_name("function")
    if fn.type == "field_expression":
        recv = chain_of(fn.child_by_field_name("value"))
        field = fn.child_by_field_name("field")
        callee = f"{recv or '?'}.{node_text(field)}"
        kind = "method"
    else:
        callee = path_of(fn) or "?"
        kind = "call"
    out = []
    for i, a in enumerate(args.named_children):
        if a.type in ("identifier", "scoped_identifier"):
            p = path_of(a)
            if p:
                out.append((i, p))
    facts.calls.append(CallFact(scope, callee, line, kind + at, tuple(out)))


# `for x in <iterable>`: what iterating these gives is the container's element
_ITER_SUFFIXES = (".iter()", ".iter_mut()", ".into_iter()", ".values()", ".values_mut()")


def _binding(cap: str, node, caps, scope: str, line: int, facts: FileFacts) -> None:
    if cap == "let":
        _let(node, caps["left"], scope, line, facts)
        return
    # for <left> in <right> / if let <type>(<name>) = <value>
    value = chain_of(caps["right" if cap == "for" else "value"])
    if not value:
        return
    name = node_text(caps["left" if cap == "for" else "name"])
    if cap == "for":
        for suffix in _ITER_SUFFIXES:
            if value.endswith(suffix):
                value = value[: -len(suffix)]
                break
        facts.bindings.append(BindingFact(scope, name, value + "[]", False, line))
    elif node_text(caps["type"]) in ("Some", "Ok"):  # if let Some(x) = value
        facts.bindings.append(BindingFact(scope, name, value + "?", False, line))


def _let(node, pattern: ts.Node, scope: str, line: int, facts: FileFacts) -> None:
    if pattern.type != "identifier":
        return
    name = node_text(pattern)
    typ = node.child_by_field_name("type")
    if typ is not None:
        enc = type_of(typ, facts.extra["generics"].get(scope, {}))
        if enc:
            facts.bindings.append(BindingFact(scope, name, "type:" + enc, False, line))
        return
    value = node.child_by_field_name("value")
    if value is None:
        return
    if value.type == "struct_expression":
        p = path_of(value.child_by_field_name("name"))
        if p:
            facts.bindings.append(BindingFact(scope, name, "type:" + p, False, line))
        return
    if value.type == "closure_expression":  # a local closure shadows any item of its name
        facts.bindings.append(BindingFact(scope, name, CLOSURE, False, line))
        return
    chain = chain_of(value)
    if chain:
        is_call = chain.endswith(("()", "?"))
        facts.bindings.append(BindingFact(scope, name, chain, is_call, line))


def _uses(node: ts.Node, scopes: NestedScopes, facts: FileFacts) -> None:
    scope = scopes.at(node.start_byte)
    line = node.start_point[0] + 1
    arg = node.child_by_field_name("argument")
    for segs, alias, glob in _use_leaves(arg, []):
        if not segs:
            continue
        if glob:
            facts.imports.append(ImportFact(scope, "::".join(segs), 0, "*", "", line))
        else:
            facts.imports.append(ImportFact(scope, "::".join(segs[:-1]), 0, segs[-1], alias, line))


def _segments(node: ts.Node | None) -> list[str]:
    p = path_of(node) if node is not None else None
    return p.split("::") if p else []


def _use_leaves(node: ts.Node | None, prefix: list[str]):
    """Flatten a use tree: yields (path segments, alias, is_glob)."""
    if node is None:
        return
    t = node.type
    if t == "self" and prefix:  # `use a::b::{self}` binds b
        yield prefix, "", False
    elif t in ("identifier", "crate", "self", "super", "scoped_identifier"):
        yield prefix + _segments(node), "", False
    elif t == "use_as_clause":
        alias = node.child_by_field_name("alias")
        path = node.child_by_field_name("path")
        segs = (
            prefix
            if path is not None and path.type == "self" and prefix
            else prefix + _segments(path)
        )
        yield segs, node_text(alias) if alias is not None else "", False
    elif t == "use_wildcard":
        inner = node.named_children[0] if node.named_children else None
        yield prefix + _segments(inner), "", True
    elif t == "scoped_use_list":
        segs = prefix + _segments(node.child_by_field_name("path"))
        yield from _use_leaves(node.child_by_field_name("list"), segs)
    elif t == "use_list":
        for c in node.named_children:
            yield from _use_leaves(c, prefix)


_PATH_NODES = ("type_identifier", "scoped_type_identifier")


def _type_paths(node: ts.Node) -> list[str]:
    """The named types inside a type (outermost paths; generic arguments included)."""
    out = []
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type in _PATH_NODES:
            p = path_of(n)
            if p and p != "Self":
                out.append(p)
            continue
        if n.type == "generic_type":
            stack.append(n.child_by_field_name("type"))
            args = n.child_by_field_name("type_arguments")
            if args is not None:
                stack.extend(args.named_children)
            continue
        stack.extend(n.named_children)
    return out


def first_error(root: ts.Node) -> int | None:
    """Line of the first ERROR or MISSING node, descending only into subtrees that have one."""
    node = root
    while True:
        if node.type == "ERROR" or node.is_missing:
            return node.start_point[0] + 1
        nxt = next((c for c in node.children if c.has_error or c.is_missing), None)
        if nxt is None:
            return node.start_point[0] + 1 if node is not root else None
        node = nxt
