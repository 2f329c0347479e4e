"""C: tree-sitter queries (c.scm) -> FileFacts.

Locals: functions `f`, structs and unions by their tag (`point`; an anonymous one takes the
name its typedef gives it), their fields `point.x`, enums `color` with their enumerators
`color.RED` (an anonymous enum's enumerators are top-level `RED`), typedefs `point_t`,
function-like macros `MAX`, file-level variables `g`; a name defined again in a file (a
function under two `#if` branches) is `f#2`. Kinds: function, struct, union, enum, constant
(enumerators), type_alias, macro, variable (globals and fields). `static` definitions are
not exported (internal linkage: only their file sees them).

Language-specific facts in `extra` (plain values, read by resolve.py):
  protos:  names declared with external linkage but not defined here (prototypes, `extern`
           variables): a header that declares `f` lets its includers call the `f` that some
           .c file defines
  includes: [(path as written, is_system, line)] of `#include "..."` / `<...>`
  results: function local -> declared result type     types: variable local -> its type
  aliases: typedef local -> the type it names          locals: [(scope, name, type, line)]
Types are the names of struct/union/enum tags or typedefs (pointers and qualifiers dropped);
C's separate tag namespace is merged with typedef names (`typedef struct foo foo` is one
type). Calls are chains: `f`, `p.ops.read` (`->` is `.`), `make().x`; a function passed as
an argument, stored in an initializer (`.read = my_read`) or assigned (`ops->read =
my_read`) is a "value" ReferenceFact, so the tables of function pointers C code dispatches
through still point at their functions.
"""

from __future__ import annotations

import re

import tree_sitter as ts

from codeimpact.indexer.lang.api import CallFact, FileFacts, ImportFact, ReferenceFact
from codeimpact.indexer.lang.cfamily.decorations import blank_decorations
from codeimpact.indexer.lang.grammars import get_parser
from codeimpact.indexer.lang.queries import query_runner
from codeimpact.indexer.lang.syntax_common import (
    ChainForm,
    Names,
    Scopes,
    chain_of,
    count_lines,
    line,
    mark_errors,
    module_symbol,
    symbol_fact,
    text,
)

EXTRACTOR_VERSION = 1

# declarator wrappers between a declaration's type and its name
_WRAPPERS = frozenset(
    {
        "pointer_declarator",
        "array_declarator",
        "parenthesized_declarator",
        "init_declarator",
        "attributed_declarator",
        "reference_declarator",
        "function_declarator",
        "bitfield_clause",
    }
)
# what a declarator may declare (the C++ forms included: the C grammar has none of them)
_NAMES = frozenset(
    {
        "identifier",
        "field_identifier",
        "type_identifier",
        "qualified_identifier",
        "destructor_name",
        "operator_name",
        "template_function",
    }
)
_TAGGED = frozenset({"struct_specifier", "union_specifier", "enum_specifier"})
# names followed by `(` in a macro body or a condition that are no calls
_NOT_CALLS = frozenset(
    """if while for switch return sizeof alignof _Alignof typeof __typeof__ offsetof do else
    defined __has_attribute __has_builtin __has_include __has_include_next __has_extension
    __has_feature __has_cpp_attribute __attribute__ __declspec __pragma _Pragma asm __asm__
    __asm case goto static_cast dynamic_cast reinterpret_cast const_cast decltype
    noexcept alignas typeid""".split()
)
_CALL_IN_TEXT = re.compile(rb"(?<![\w.>#])([A-Za-z_]\w*)\s*\(")
_TEST_DIRS = frozenset({"test", "tests", "testing", "unittest", "unittests"})
_TEST_SUFFIXES = ("_test", "_tests", "_unittest", "-test", "_spec")


# ---------------------------------------------------------------- declarators and types


def declarator_name(node: ts.Node | None) -> tuple[ts.Node | None, ts.Node | None]:
    """(the name a declarator declares, its function_declarator when it declares a function).

    `int *f(void)` declares a function; `int (*fp)(int)` a pointer to one (a variable): the
    function_declarator counts only when the name is directly its declarator.
    """
    fn = None
    while node is not None:
        t = node.type
        if t in _NAMES:
            return node, fn
        if t not in _WRAPPERS:
            return None, None
        inner = node.child_by_field_name("declarator")
        if inner is None:
            inner = next((c for c in node.named_children if c.type in _NAMES), None)
        if t == "function_declarator":
            fn = node if inner is not None and inner.type in _NAMES else None
        elif t not in ("init_declarator", "attributed_declarator"):
            fn = None
        node = inner
    return None, None


def type_chain(node: ts.Node | None) -> str:
    """The named type a type specifier denotes (`struct foo` -> foo, `foo_t`); "" if none."""
    if node is None:
        return ""
    t = node.type
    if t in ("type_identifier", "namespace_identifier", "identifier"):
        return text(node)
    if t in _TAGGED or t in ("class_specifier", "template_type", "template_function"):
        return type_chain(node.child_by_field_name("name"))
    if t == "qualified_identifier":  # C++ `ns::A` -> ns.A; `::A` -> A
        scope = type_chain(node.child_by_field_name("scope"))
        name = type_chain(node.child_by_field_name("name"))
        return f"{scope}.{name}" if scope and name else name
    return ""


# C's and C++'s value expressions in the chain form (syntax_common.ChainForm)
_CHAIN = ChainForm(
    type_chain,
    names=frozenset({"identifier"}),
    fixed={"this": "this"},
    members={"field_expression": ("argument", "field")},
    member_names={"template_method": "name"},  # C++ `x.As<T>()`
    calls={"call_expression": "function"},
    # `((struct foo *)p)->x`: a value of the cast's type
    constructions={"cast_expression": ("type", "type")},
    inner={"parenthesized_expression": -1, "pointer_expression": -1},
    indexed={"subscript_expression": "argument"},
    types=frozenset({"qualified_identifier", "template_function"}),  # C++ `ns::f`, `f<int>`
)


def chain(node: ts.Node | None) -> str | None:
    """The chain of a value expression; None when it has no such form."""
    return chain_of(_CHAIN, node)


def _is_static(node: ts.Node) -> bool:
    return any(c.type == "storage_class_specifier" and text(c) == "static" for c in node.children)


def _is_extern(node: ts.Node) -> bool:
    return any(c.type == "storage_class_specifier" and text(c) == "extern" for c in node.children)


def _params(fn: ts.Node | None) -> list[tuple[str, str]]:
    """(name, type) of a function declarator's parameters (K&R identifiers untyped)."""
    out: list[tuple[str, str]] = []
    plist = fn.child_by_field_name("parameters") if fn is not None else None
    for p in plist.named_children if plist is not None else ():
        if p.type == "identifier":
            out.append((text(p), ""))
            continue
        name, _fn = declarator_name(p.child_by_field_name("declarator"))
        if name is not None:
            out.append((text(name), type_chain(p.child_by_field_name("type"))))
    return out


# ---------------------------------------------------------------- context


class CFile:
    """What the handlers share while walking one file's matches."""

    language = "c"

    def __init__(self, source: bytes, root: ts.Node):
        self.source = source
        self.facts = FileFacts(language=self.language, lines=count_lines(source))
        self.facts.symbols.append(module_symbol(root, source))
        self.names = Names()
        self.func_iv: list[tuple[int, int, str]] = []
        self.var_iv: list[tuple[int, int, str]] = []
        self.func_scopes = Scopes([])
        self.scopes = Scopes([])
        self.seen_refs: set[tuple[str, str, str]] = set()
        self.defined: set[str] = set()  # top-level functions and variables defined here
        ex = self.facts.extra
        for key in ("results", "types", "aliases"):
            ex[key] = {}
        ex["locals"] = []
        ex["includes"] = []
        ex["protos"] = []

    def symbol(self, node, local, kind, name, exported=True, sig_end=None, params=()):
        self.facts.symbols.append(
            symbol_fact(
                self.source,
                node,
                local,
                kind,
                name,
                exported=exported,
                sig_end=sig_end,
                params=tuple(params),
            )  # fmt: skip
        )

    def reference(self, scope: str, target: str, lineno: int, kind: str) -> None:
        key = (scope, target, kind)
        if key not in self.seen_refs:
            self.seen_refs.add(key)
            self.facts.references.append(ReferenceFact(scope, target, lineno, kind))

    def values_in(self, node: ts.Node, scope: str) -> None:
        """Functions named as values in an initializer (`{ .read = my_read, my_write }`)."""
        stack = [node]
        while stack:
            n = stack.pop()
            if n.type == "identifier":
                p = n.parent
                if p is not None and p.type in ("initializer_list", "initializer_pair"):
                    self.reference(scope, text(n), line(n), "value")
            elif n.type in ("initializer_list", "initializer_pair"):
                stack.extend(n.named_children)


# ---------------------------------------------------------------- definitions


def _on_function(f: CFile, caps) -> None:
    node = caps["definition.function"]
    name, fn = declarator_name(node.child_by_field_name("declarator"))
    if name is None or fn is None:
        return
    parent = f.func_scopes.at(node.start_byte)  # a GCC nested function
    nm = text(name)
    local = f.names.unique(f"{parent}.{nm}" if parent else nm)
    body = caps["body"]
    params = _params(fn)
    f.symbol(node, local, "function", nm, not _is_static(node), body.start_byte, params)
    f.func_iv.append((node.start_byte, node.end_byte, local))
    f.defined.add(nm)
    res = type_chain(node.child_by_field_name("type"))
    if res:
        f.facts.extra["results"][local] = res


def _tag_owner(node: ts.Node) -> tuple[str, ts.Node]:
    """The name of a struct/union/enum and the node that spans its definition."""
    name = node.child_by_field_name("name")
    if name is not None:
        return text(name), node
    p = node.parent
    if p is not None and p.type == "type_definition":  # typedef struct {...} name;
        for d in p.children_by_field_name("declarator"):
            n, fn = declarator_name(d)
            if n is not None and fn is None and d.type == "type_identifier":
                return text(n), p
    return "", node


def _on_tagged(f: CFile, caps, key: str) -> None:
    node = caps[key]
    name, span = _tag_owner(node)
    if not name:
        if node.type == "enum_specifier":
            _enumerators(f, node, "")
        return
    if f.func_scopes.at(node.start_byte):
        return  # a type local to a function: its members are not reached from elsewhere
    parent = node.parent
    if parent is not None and parent.type == "field_declaration_list":
        pass  # a nested tag is file-level in C
    local = f.names.unique(name)
    kind = {"struct_specifier": "struct", "union_specifier": "union"}.get(node.type, "enum")
    f.symbol(span, local, kind, name)
    if kind == "enum":
        _enumerators(f, node, local)
    else:
        _fields(f, caps["body"], local)


def _on_struct(f: CFile, caps) -> None:
    _on_tagged(f, caps, "definition.struct")


def _on_enum(f: CFile, caps) -> None:
    _on_tagged(f, caps, "definition.enum")


def _enumerators(f: CFile, node: ts.Node, owner: str) -> None:
    body = node.child_by_field_name("body")
    for e in body.named_children if body is not None else ():
        if e.type == "enumerator":
            n = text(e.child_by_field_name("name"))
            f.symbol(e, f.names.unique(f"{owner}.{n}" if owner else n), "constant", n)


def _fields(f: CFile, body: ts.Node, owner: str) -> None:
    for fd in body.named_children:
        if fd.type != "field_declaration":
            continue
        ftype = fd.child_by_field_name("type")
        decls = fd.children_by_field_name("declarator")
        if not decls and ftype is not None and ftype.type in _TAGGED:
            inner = ftype.child_by_field_name("body")
            if inner is not None and ftype.child_by_field_name("name") is None:
                _fields(f, inner, owner)  # an anonymous struct/union: its members are ours
            continue
        typ = type_chain(ftype)
        for d in decls:
            name, _fn = declarator_name(d)
            if name is None:
                continue
            local = f.names.unique(f"{owner}.{text(name)}")
            f.symbol(fd, local, "variable", text(name))
            if typ:
                f.facts.extra["types"][local] = typ


def _on_typedef(f: CFile, caps) -> None:
    node = caps["definition.type_alias"]
    if f.func_scopes.at(node.start_byte):
        return
    tnode = node.child_by_field_name("type")
    target = type_chain(tnode)
    anonymous_tag = tnode is not None and tnode.type in _TAGGED and not target
    for d in node.children_by_field_name("declarator"):
        name, _fn = declarator_name(d)
        if name is None:
            continue
        nm = text(name)
        if nm == target or (anonymous_tag and d.type == "type_identifier"):
            continue  # `typedef struct foo foo;` and `typedef struct {...} foo;`: the tag itself
        local = f.names.unique(nm)
        # after a struct's body, the name is the typedef's only line of its own
        f.symbol(d if tnode.child_by_field_name("body") else node, local, "type_alias", nm)
        if target and d.type == "type_identifier":
            f.facts.extra["aliases"][local] = target


def _on_macro(f: CFile, caps) -> None:
    """A function-like macro; the functions its body calls are its calls (the preprocessor
    puts them at each use: `#define lock(m) mutex_enter(m)`)."""
    node = caps["definition.macro"]
    name = text(caps["name"])
    plist = node.child_by_field_name("parameters")
    params = [(text(p), "") for p in plist.named_children] if plist is not None else []
    value = node.child_by_field_name("value")
    end = value.start_byte if value is not None else None
    local = f.names.unique(name)
    f.symbol(node, local, "macro", name, sig_end=end, params=params)
    if value is not None:
        _macro_calls(f, local, value, {p for p, _t in params})


def _on_alias_macro(f: CFile, caps) -> None:
    """`#define sqlite3StrNICmp sqlite3_strnicmp`: a macro naming a function is called like
    one, and calls it. Other object-like macros (constants) are not definitions here."""
    node = caps["definition.constant"]
    value = node.child_by_field_name("value")
    target = text(value).strip() if value is not None else ""
    while target.startswith("(") and target.endswith(")"):
        target = target[1:-1].strip()
    if not target.isidentifier() or target in _NOT_CALLS or f.func_scopes.at(node.start_byte):
        return
    name = text(caps["name"])
    local = f.names.unique(name)
    f.symbol(node, local, "macro", name)
    f.facts.calls.append(CallFact(local, target, line(value), "call", ()))


def _macro_calls(f: CFile, local: str, value: ts.Node, params: set[str]) -> None:
    body = value.text or b""
    if b"(" not in body:
        return
    first = line(value)
    seen = set()
    for m in _CALL_IN_TEXT.finditer(body):
        callee = m.group(1).decode()
        if callee in params or callee in _NOT_CALLS or callee in seen:
            continue
        seen.add(callee)
        f.facts.calls.append(CallFact(local, callee, first + body.count(b"\n", 0, m.start()),
                                      "call", ()))  # fmt: skip


def _on_declaration(f: CFile, caps) -> None:
    node = caps["definition.variable"]
    scope = f.func_scopes.at(node.start_byte)
    typ = type_chain(node.child_by_field_name("type"))
    static = _is_static(node)
    extern = _is_extern(node)
    for d in node.children_by_field_name("declarator"):
        name, fn = declarator_name(d)
        if name is None:
            continue
        nm = text(name).replace("::", ".")  # C++ `int A::count = 0;`
        value = d.child_by_field_name("value") if d.type == "init_declarator" else None
        if scope:
            if fn is None:
                f.facts.extra["locals"].append((scope, nm, typ, line(node)))
                if value is not None:
                    f.values_in(value, scope)
            continue
        if fn is not None or (extern and value is None):
            if not static:
                f.facts.extra["protos"].append(nm)
            continue
        local = f.names.unique(nm)
        f.symbol(node, local, "variable", nm, not static)
        f.defined.add(nm)
        f.var_iv.append((node.start_byte, node.end_byte, local))
        if typ:
            f.facts.extra["types"][local] = typ
        if value is not None:
            f.values_in(value, local)


# ---------------------------------------------------------------- uses


def _on_include(f: CFile, caps) -> None:
    node = caps["import"]
    path = caps["path"]
    system = path.type == "system_lib_string"
    written = text(path).strip('<>"')
    if written:
        f.facts.extra["includes"].append((written, system, line(node)))
        f.facts.imports.append(ImportFact("", written, 0, "", "", line(node)))


def _on_call(f: CFile, caps) -> None:
    call = caps["reference.call"]
    fn = caps["callee"]
    scope = f.scopes.at(call.start_byte)
    c = chain(fn)
    if c in _NOT_CALLS:
        return  # `#if defined(X)`, `__has_attribute(x)`: the preprocessor's, not calls
    if c is None:
        c = f"?.{text(fn.child_by_field_name('field'))}" if fn.type == "field_expression" else "?"
    args = []
    for i, a in enumerate(caps["arguments"].named_children):
        if a.type in ("identifier", "field_expression"):
            ac = chain(a)
            if ac:
                args.append((i, ac))
        elif a.type == "pointer_expression" and text(a)[:1] == "&":
            ac = chain(a.named_children[-1])  # `&my_func`
            if ac:
                args.append((i, ac))
    f.facts.calls.append(CallFact(scope, c, line(call), "call", tuple(args)))


def _on_typeref(f: CFile, caps) -> None:
    node = caps["reference.type"]
    parent = node.parent
    if parent is not None:
        pt = parent.type
        if pt in _TAGGED and parent.child_by_field_name("body") is not None:
            return  # the name of a definition
        if pt == "type_definition" and node != parent.child_by_field_name("type"):
            return  # the name a typedef defines
    scope = f.scopes.at(node.start_byte)
    f.reference(scope, text(node), line(node), "annotation")


def _on_assignment(f: CFile, caps) -> None:
    node = caps["assignment"]
    scope = f.scopes.at(node.start_byte)
    f.reference(scope, text(caps["right"]), line(node), "value")


# Handlers run by phase: functions first (their spans are the scopes of everything else),
# then the other definitions, then uses.
PHASES: tuple[dict, ...] = (
    {"definition.function": _on_function},
    {
        "definition.struct": _on_struct,
        "definition.enum": _on_enum,
        "definition.type_alias": _on_typedef,
        "definition.macro": _on_macro,
        "definition.constant": _on_alias_macro,
        "definition.variable": _on_declaration,
    },
    {
        "import": _on_include,
        "reference.call": _on_call,
        "reference.type": _on_typeref,
        "assignment": _on_assignment,
    },
)


def run_phases(f: CFile, root: ts.Node, matches, phases: tuple[dict, ...]) -> FileFacts:
    """Hand each match to its handler, phase by phase; the facts in symbol order."""
    handlers = {name: h for phase in phases for name, h in phase.items()}
    phase_of = {name: i for i, phase in enumerate(phases) for name in phase}
    by_phase: list[list] = [[] for _ in phases]
    for construct, caps in matches:
        if construct in handlers:
            by_phase[phase_of[construct]].append((handlers[construct], caps))
    for i, todo in enumerate(by_phase):
        if i == len(phases) - 1:
            f.scopes = Scopes(f.func_iv + f.var_iv)
        for handler, caps in todo:
            handler(f, caps)
        f.func_scopes = Scopes(f.func_iv)  # the functions known so far enclose the rest
    protos = f.facts.extra["protos"]
    f.facts.extra["protos"] = sorted(set(protos) - f.defined)
    f.facts.symbols.sort(key=lambda s: (s.local != "", s.start_byte))
    mark_errors(root, f.language, f.facts)
    return f.facts


def extract_c(source: bytes) -> FileFacts:
    root = get_parser("c").parse(blank_decorations(source)).root_node
    f = CFile(source, root)
    matches = query_runner("c", __package__, "c.scm").matches(root)
    return run_phases(f, root, matches, PHASES)


def is_test_path(path: str) -> bool:
    """Files under a test folder, or named test_x / x_test / x_unittest (C and C++ test
    runners have no one convention; these are the common ones: CTest, GoogleTest, Check)."""
    parts = path.lower().split("/")
    if any(p in _TEST_DIRS for p in parts[:-1]):
        return True
    stem = parts[-1].rsplit(".", 1)[0]
    return stem.startswith(("test_", "test-")) or stem.endswith(_TEST_SUFFIXES)
