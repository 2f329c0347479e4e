"""Java: tree-sitter queries (java.scm) -> FileFacts.

Locals are lexical: `Outer`, `Outer.Inner`, methods `Outer.run`, fields
`Outer.svc`, constructors `Outer.<init>` (the JVM's name; a class cannot have a
member type of its own name, and `<init>` never collides with a method),
overloads `Outer.run#2`, anonymous classes `Outer.run.$1` (numbered per
enclosing definition), classes declared in a method `Outer.run.Local`.
Kinds: class (records and anonymous classes too, and enum constants that have a
body: each is an anonymous subclass), interface (annotation types too), enum,
method (constructors too), variable (fields, enum constants, interface constants).

Calls: `m()` and `a.b.m()` are CallFacts of kind "call"; `new T(...)` is kind
"new" with the type as callee; `this(...)` / `super(...)` are calls of
`this.<init>` / `super.<init>`. Argument counts (overloads are picked by them)
are in extra["argc"], one per CallFact.

Language-specific facts in `extra` (plain values, read by resolve.py):
  package: the package clause         static:  indexes of the static imports
  results: method local -> return type types:   field local -> declared type
  tparams: local -> type parameter names  modifiers: local -> "public static ..."
  bounds:  local -> {type parameter: its first bound}
  records: locals of the records (a call `p.x()` of a component runs its implicit accessor)
  locals:  [(scope, name, type, line)] for locals, lambda and catch parameters
           ("" = type not evident); `var x = call()` / `var x = y` are BindingFacts.
Params are (name, type); a varargs parameter is `*name` with type "".
"""

from __future__ import annotations

from pathlib import PurePosixPath

import tree_sitter as ts

from codeimpact.indexer.lang.api import (
    FileFacts,
    HeritageFact,
    ReferenceFact,
)
from codeimpact.indexer.lang.grammars import get_parser
from codeimpact.indexer.lang.java.model import model_facts
from codeimpact.indexer.lang.java.syntax import type_chain
from codeimpact.indexer.lang.java.uses import USES
from codeimpact.indexer.lang.queries import query_runner
from codeimpact.indexer.lang.syntax_common import (
    Scopes,
    line,
    mark_errors,
    signature,
    symbol_fact,
    text,
)
from codeimpact.native.runner import QueryRunner

NAME = "java"
EXTRACTOR_VERSION = 2

_TEST_ANNOTATIONS = frozenset(
    {"Test", "ParameterizedTest", "RepeatedTest", "TestFactory", "TestTemplate", "Property"}
)
_TYPE_KINDS = {
    "class": "class",
    "interface": "interface",
    "enum": "enum",
    "record": "class",
    "annotation_type": "interface",
    "anonymous": "class",
}


# ---------------------------------------------------------------- context


class JavaFile:
    """What Java's extraction holds while it walks one file: the facts, the scopes of its
    definitions, each definition's kind, the references made (one per scope and target)."""

    def __init__(self, source: bytes, root: ts.Node):
        self.source = source
        self.facts = model_facts(NAME, source, root)
        self.scopes = Scopes([])
        self.kind_of: dict[str, str] = {"": "module"}
        self.seen_refs: set[tuple[str, str]] = set()

    def add_symbol(self, node, local, kind, name, sig_end, params=(), decorators=(), is_test=False):
        mods = self.facts.extra["modifiers"].get(local, "")
        parent_kind = self.kind_of.get(local.rpartition(".")[0] if "." in local else "", "")
        exported = (
            "public" in mods.split()
            or "protected" in mods.split()
            or (parent_kind == "interface" and "private" not in mods.split())
            or kind == "variable"
            and parent_kind == "enum"
        )
        self.facts.symbols.append(
            symbol_fact(
                self.source,
                node,
                local,
                kind,
                name,
                exported=exported,
                params=params,
                is_test=is_test,
                decorators=decorators,
                sig=signature(self.source, node.start_byte, sig_end),
            )  # fmt: skip
        )

    def local_name(self, scope: str, name: str, lineno: int, typ: str) -> None:
        self.facts.extra["locals"].append((scope, name, typ, lineno))

    def reference(self, node: ts.Node, target: str, kind: str = "annotation") -> None:
        scope = self.scopes.at(node.start_byte)
        if kind == "annotation" and self.is_tparam(scope, target.partition(".")[0]):
            return
        if (scope, target) not in self.seen_refs:
            self.seen_refs.add((scope, target))
            self.facts.references.append(ReferenceFact(scope, target, line(node), kind))

    def is_tparam(self, scope: str, name: str) -> bool:
        tparams = self.facts.extra["tparams"]
        while True:
            if name in tparams.get(scope, ()):
                return True
            if not scope:
                return False
            scope = scope.rpartition(".")[0]


def _modifiers(node: ts.Node) -> tuple[str, tuple[str, ...]]:
    """("public static", annotation names) of a declaration."""
    for c in node.children:
        if c.type == "modifiers":
            words, annots = [], []
            for m in c.children:
                if m.type in ("marker_annotation", "annotation"):
                    annots.append(type_chain(m.child_by_field_name("name")))
                elif not m.is_named or m.type in ("static", "final", "abstract", "default"):
                    words.append(text(m))
            return " ".join(words), tuple(a for a in annots if a)
    return "", ()


def _params(node: ts.Node | None) -> tuple:
    out = []
    if node is None:
        return ()
    for p in node.named_children:
        if p.type == "formal_parameter":
            out.append(
                (text(p.child_by_field_name("name")), type_chain(p.child_by_field_name("type")))
            )
        elif p.type == "spread_parameter":
            decl = next((c for c in p.named_children if c.type == "variable_declarator"), None)
            if decl is not None:
                out.append(("*" + text(decl.child_by_field_name("name")), ""))
    return tuple(out)


def _type_params(f: JavaFile, node: ts.Node, local: str) -> None:
    tp = node.child_by_field_name("type_parameters")
    if tp is None:
        return
    names = []
    for p in tp.named_children:
        ident = next(
            (c for c in p.named_children if c.type in ("type_identifier", "identifier")), None
        )
        if ident is None:
            continue
        names.append(text(ident))
        bound = next((c for c in p.named_children if c.type == "type_bound"), None)
        first = type_chain(bound.named_children[0]) if bound and bound.named_children else ""
        if first:  # `T extends Foo & Bar`: a T is a Foo (the first bound is its erasure)
            f.facts.extra.setdefault("bounds", {}).setdefault(local, {})[text(ident)] = first
    if names:
        f.facts.extra["tparams"][local] = names


# ---------------------------------------------------------------- definitions


class _Def:
    """One definition match, named once all definitions are known (nesting needs them all)."""

    __slots__ = ("node", "key", "caps", "scope_span")

    def __init__(self, node, key, caps, scope_span):
        self.node, self.key, self.caps, self.scope_span = node, key, caps, scope_span


def _collect_def(defs: list, construct: str, caps: dict) -> None:
    node = caps[construct]
    key = _DEF_KEY_OF_NODE.get(node.type, _DEF_KEYS[construct])
    body = caps.get("body")
    if key == "anonymous":
        span = (body.start_byte, body.end_byte)
    elif key == "enum_constant":
        b = node.child_by_field_name("body")
        span = (b.start_byte, b.end_byte) if b is not None else None
    elif key in ("field", "element"):
        span = None
    else:
        span = (node.start_byte, node.end_byte)
    defs.append(_Def(node, key, caps, span))


def _name_defs(f: JavaFile, defs: list[_Def]) -> None:
    """Lexical locals for every definition, scopes for the later phases."""
    defs.sort(key=lambda d: (d.node.start_byte, -d.node.end_byte))
    stack: list[tuple[int, str]] = []  # (scope end, local) of the enclosing scopes
    seen: dict[str, int] = {}
    anon: dict[str, int] = {}
    intervals: list[tuple[int, int, str]] = []

    def unique(local: str) -> str:
        n = seen.get(local, 0) + 1
        seen[local] = n
        return local if n == 1 else f"{local}#{n}"

    for d in defs:
        start = d.node.start_byte
        while stack and stack[-1][0] <= start:
            stack.pop()
        parent = stack[-1][1] if stack else ""
        prefix = f"{parent}." if parent else ""
        if d.key == "field":
            _field(f, d.node, parent, unique)
            continue
        if d.key == "anonymous":
            anon[parent] = anon.get(parent, 0) + 1
            # named like its local, never like its supertype: a lookup of `Runnable` must not
            # find the anonymous class
            name = f"${anon[parent]}"
            local = prefix + name
        elif d.key in ("constructor", "compact_constructor"):
            local = unique(f"{prefix}<init>")
            name = "<init>"
        else:
            name = text(d.caps["name"])
            local = unique(prefix + name)
        _definition(f, d, local, name, parent)
        if d.scope_span is not None:
            intervals.append((d.scope_span[0], d.scope_span[1], local))
            stack.append((d.scope_span[1], local))
    f.scopes = Scopes(intervals)


def _definition(f: JavaFile, d: _Def, local: str, name: str, parent: str) -> None:
    node, key = d.node, d.key
    mods, annots = _modifiers(node)
    if mods:
        f.facts.extra["modifiers"][local] = mods
    lineno = line(node)
    if key in _TYPE_KINDS:
        kind = _TYPE_KINDS[key]
        f.kind_of[local] = kind
        body = d.caps["body"]
        is_test = name.endswith(("Test", "Tests", "TestCase")) or name.startswith("Test")
        f.add_symbol(node, local, kind, name, body.start_byte, decorators=annots, is_test=is_test)
        _type_params(f, node, local)
        _heritage(f, node, key, local)
        if key == "record":  # components are fields, and their implicit accessors
            f.facts.extra.setdefault("records", []).append(local)
            comps = node.child_by_field_name("parameters")
            for p in comps.named_children if comps is not None else ():
                pname = text(p.child_by_field_name("name"))
                if p.type != "formal_parameter" or not pname:
                    continue
                comp = f"{local}.{pname}"
                f.add_symbol(p, comp, "variable", pname, p.end_byte)
                ptype = type_chain(p.child_by_field_name("type"))
                if ptype:
                    f.facts.extra["types"][comp] = ptype
        return
    if key == "enum_constant":
        body = node.child_by_field_name("body")
        if body is None:
            f.add_symbol(node, local, "variable", name, node.end_byte)
            f.facts.extra["types"][local] = parent.rpartition(".")[2]  # a constant is an E
            return
        f.kind_of[local] = "class"
        f.add_symbol(node, local, "class", name, body.start_byte)
        enum = parent
        f.facts.heritage.append(HeritageFact(local, enum.rpartition(".")[2], lineno, "extends"))
        return
    # methods, constructors, annotation elements
    params = _params(node.child_by_field_name("parameters"))
    if key == "compact_constructor":  # `record R(int a) { R {...} }` takes the components
        record = node.parent.parent if node.parent is not None else None
        if record is not None and record.type == "record_declaration":
            params = _params(record.child_by_field_name("parameters"))
    body = node.child_by_field_name("body")
    end = body.start_byte if body is not None else node.end_byte
    words = mods.split()
    if body is None and key == "method" and not {"default", "abstract", "native"} & set(words):
        # an interface method without a body (or an abstract one) never runs itself
        mods = f"{mods} abstract".strip()
        f.facts.extra["modifiers"][local] = mods
    is_test = any(a.rpartition(".")[2] in _TEST_ANNOTATIONS for a in annots)
    f.kind_of[local] = "method"
    f.add_symbol(node, local, "method", name, end, params, annots, is_test)
    _type_params(f, node, local)
    result = type_chain(node.child_by_field_name("type"))
    if result and key in ("method", "element"):
        f.facts.extra["results"][local] = result


def _field(f: JavaFile, node: ts.Node, parent: str, unique) -> None:
    mods, annots = _modifiers(node)
    typ = type_chain(node.child_by_field_name("type"))
    for decl in node.children_by_field_name("declarator"):
        name = text(decl.child_by_field_name("name"))
        local = unique(f"{parent}.{name}" if parent else name)
        if mods:
            f.facts.extra["modifiers"][local] = mods
        if typ and decl.child_by_field_name("dimensions") is None:
            f.facts.extra["types"][local] = typ
        f.add_symbol(node, local, "variable", name, node.end_byte, decorators=annots)


def _type_list(node: ts.Node | None) -> list[ts.Node]:
    if node is None:
        return []
    lst = next((c for c in node.named_children if c.type == "type_list"), None)
    return list(lst.named_children) if lst is not None else list(node.named_children)


def _heritage(f: JavaFile, node: ts.Node, key: str, local: str) -> None:
    if key == "anonymous":
        # `new T() {...}`: T may be a class or an interface; the resolver tells them apart
        tc = type_chain(node.child_by_field_name("type"))
        if tc:
            f.facts.heritage.append(HeritageFact(local, tc, line(node), "extends"))
        return
    supers: list[tuple[ts.Node, str]] = []
    sc = node.child_by_field_name("superclass")
    if sc is not None:
        supers += [(t, "extends") for t in sc.named_children]
    supers += [(t, "implements") for t in _type_list(node.child_by_field_name("interfaces"))]
    ext = next((c for c in node.named_children if c.type == "extends_interfaces"), None)
    supers += [(t, "extends") for t in _type_list(ext)]
    for t, kind in supers:
        tc = type_chain(t)
        if tc:
            f.facts.heritage.append(HeritageFact(local, tc, line(t), kind))


# the definitions' constructs -> the handlers' kind of definition; where one construct covers
# two node types (a record's compact constructor, an annotation type's element), the node's
_DEF_KEYS = {
    "definition.class": "class",
    "definition.interface": "interface",
    "definition.enum": "enum",
    "definition.record": "record",
    "definition.annotation": "annotation_type",
    "definition.object": "anonymous",
    "definition.enum_member": "enum_constant",
    "definition.method": "method",
    "definition.constructor": "constructor",
    "definition.field": "field",
}
_DEF_KEY_OF_NODE = {
    "compact_constructor_declaration": "compact_constructor",
    "annotation_type_element_declaration": "element",
}


def _runner() -> QueryRunner:
    return query_runner(NAME, __package__, "queries.scm")


def extract(source: bytes) -> FileFacts:
    root = get_parser(NAME).parse(source).root_node
    f = JavaFile(source, root)
    defs: list[_Def] = []
    uses = []
    # definitions first: every use needs the scopes they make
    for construct, caps in _runner().matches(root):
        if construct in _DEF_KEYS:
            _collect_def(defs, construct, caps)
        else:
            uses.append((USES[construct], caps))
    _name_defs(f, defs)
    for handler, caps in uses:
        handler(f, caps)
    # calls are matched in query order; keep them in source order with their argument counts
    order = sorted(range(len(f.facts.calls)), key=lambda i: (f.facts.calls[i].line, i))
    f.facts.calls = [f.facts.calls[i] for i in order]
    f.facts.extra["argc"] = [f.facts.extra["argc"][i] for i in order]
    f.facts.symbols.sort(key=lambda s: (s.local != "", s.start_byte))
    mark_errors(root, NAME, f.facts)
    return f.facts


def is_test_path(path: str) -> bool:
    """Maven/Gradle test roots (`src/test/...`) and `test`/`tests` folders."""
    parts = PurePosixPath(path).parts[:-1]
    if any(a == "src" and b == "test" for a, b in zip(parts, parts[1:])):
        return True
    return any(p in ("test", "tests") for p in parts)
