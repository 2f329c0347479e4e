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

import bisect
import re
from functools import cache
from pathlib import PurePosixPath

import tree_sitter as ts
from tree_sitter_language_pack import get_language, get_parser

from codeimpact.indexer.lang.api import (
    BindingFact,
    CallFact,
    FileFacts,
    HeritageFact,
    ImportFact,
    ReferenceFact,
    SymbolFact,
)
from codeimpact.indexer.lang.queries import query_runner
from codeimpact.indexer.lang.rust.syntax import (
    attributes,
    chain_of,
    generic_bounds,
    impl_type_name,
    is_test_attr,
    node_text,
    path_of,
    type_of,
    words,
)
from codeimpact.native.runner import QueryRunner

NAME = "rust"
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


# Standard macros whose arguments are expressions: their token trees are parsed again.
EXPR_MACROS = words(
    """assert assert_eq assert_ne debug_assert debug_assert_eq debug_assert_ne print println
    eprint eprintln format format_args write writeln panic unreachable todo unimplemented dbg
    vec matches"""
)
# Macros of ubiquitous crates (log, tracing, anyhow, eyre) whose arguments are expressions too.
FORMAT_MACROS = words("trace debug info warn error event bail ensure anyhow format_err eyre")
# Standard macros whose arguments are not evaluated code.
INERT_MACROS = words(
    """stringify concat concat_idents include include_str include_bytes env option_env cfg
    compile_error module_path file line column"""
)
_WS = re.compile(rb"\s+")
CLOSURE = "|closure|"  # the value of a binding to a closure (no chain)
MACROS = "!macros"  # the scope of the bindings that record `macro_rules!` names


# the queries' constructs -> this module's kinds of definitions (_DEFS) and sites; a module
# without a body (`mod m;`) is the site "mod_decl"
_KIND_OF = {
    "definition.function": "function",
    "definition.struct": "struct",
    "definition.enum": "enum",
    "definition.trait": "trait",
    "definition.type_alias": "type_alias",
    "definition.module": "module",
    "definition.variable": "variable",
    "definition.implementation": "impl",
    "definition.macro": "macro_def",
    "import": "use",
    "import.crate": "extern_crate",
    "attribute": "inner_attribute",
    "reference.call": "call",
    "reference.new": "struct_literal",
    "reference.macro": "macro",
    "reference.type": "typeref",
    "binding.local": "let",
    "binding.iteration": "for",
    "binding.pattern": "if_let",
}


def _runner() -> QueryRunner:
    return query_runner(NAME, __package__, "queries.scm")


@cache
def _macro_runner() -> QueryRunner:
    """Every macro invocation with its token tree."""
    text = "(macro_invocation (token_tree) @arguments) @reference.macro"
    return QueryRunner(get_language(NAME), text)


def _matches(root: ts.Node) -> list[tuple[str, ts.Node, dict]]:
    """(kind, the construct's node, captures) per match."""
    out = []
    for construct, caps in _runner().matches(root):
        node = caps[construct]
        kind = _KIND_OF[construct]
        if kind == "module" and node.child_by_field_name("body") is None:
            kind = "mod_decl"
        out.append((kind, node, caps))
    return out


# ---------------------------------------------------------------- scopes
class _Scopes:
    """Innermost enclosing definition of a byte offset, by binary search over intervals."""

    def __init__(self, intervals: list[tuple[int, int, str, int]]):
        self.starts = [iv[0] for iv in intervals]
        self.intervals = intervals  # (start, end, scope local, parent index), properly nested

    def at(self, pos: int) -> str:
        i = bisect.bisect_right(self.starts, pos) - 1
        while i >= 0:
            start, end, local, parent = self.intervals[i]
            if start <= pos < end:
                return local
            i = parent
        return ""


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
    facts.symbols.append(
        SymbolFact(
            "",
            "module",
            "",
            1,
            max(1, root.end_point[0] + 1),
            0,
            len(source),
            "",
            True,
            False,
            (),
            (),
        )
    )
    defs: list[tuple[ts.Node, str, dict]] = []
    sites: list[tuple[str, ts.Node, dict]] = []
    for kind, node, caps in _matches(root):
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
    scopes = _Scopes(intervals)
    _sites(source, root, sites, scopes, generic_names, facts)
    if root.has_error:
        facts.status = "partial"
        line = _first_error(root)
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
            SymbolFact(
                local,
                kind,
                name,
                node.start_point[0] + 1,
                node.end_point[0] + 1,
                start,
                node.end_byte,
                _signature(source, node, body),
                exported,
                is_test,
                params,
                tuple(a[0] for a in attrs),
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


# ---------------------------------------------------------------- sites
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


def _sites(source, root, sites, scopes: _Scopes, generic_names, facts: FileFacts) -> None:
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
            for site in _matches(src.tree.root_node)
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


def _uses(node: ts.Node, scopes: _Scopes, facts: FileFacts) -> None:
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


def _first_error(root: ts.Node) -> int | None:
    """Line of the first ERROR or MISSING node, descending only into subtrees that have one."""
    node = root
    while True:
        if node.type == "ERROR" or node.is_missing:
            return node.start_point[0] + 1
        nxt = next((c for c in node.children if c.has_error or c.is_missing), None)
        if nxt is None:
            return node.start_point[0] + 1 if node is not root else None
        node = nxt


# ---------------------------------------------------------------- paths
_TEST_DIRS = frozenset({"tests", "test", "benches"})


def is_test_path(path: str) -> bool:
    """Cargo's integration tests and benches (`tests/`, `benches/`), and `tests.rs` modules."""
    p = PurePosixPath(path)
    if p.name in ("tests.rs", "test.rs") or p.stem.endswith("_tests") or p.stem.endswith("_test"):
        return True
    return any(part in _TEST_DIRS for part in p.parts[:-1])
