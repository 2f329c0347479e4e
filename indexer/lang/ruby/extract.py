"""Ruby: tree-sitter queries (queries.scm) -> FileFacts in the Java model's shape.

Locals nest as the constants do: `Shop` (a module: kind `module`), `Shop.Cart` (kind
`class`; `class Shop::Cart` names the same), methods `Shop.Cart.add`, singleton methods
(`def self.build`) `Shop.Cart.build` (kind `method`; a name defined twice in a body is
`add#2`), top-level `def helper` (kind `function`). Every file's package is "": Ruby's
constants live in one namespace once their file is loaded.

`require_relative "x"` and `require "x"` are ImportFacts (module = the path as written,
level 1 for require_relative); `include M` / `extend M` / `prepend M` are "implements"
HeritageFacts, `class A < B` an "extends" one. Calls: `recv.m(...)` is the chain `recv.m`
(`self` is `this`, `A::B` is `A.B`), a bare `m(...)` is `m`, `Foo.new(...)` is a
construction (kind `new` on Foo), `super` calls `super.<method>`. A local assigned from
`Foo.new` is typed Foo, one assigned from another call is a BindingFact. Argument counts are
in extra["argc"] (one per CallFact), as Java's.
"""

from __future__ import annotations

import tree_sitter as ts

from codeimpact.indexer.lang.api import CallFact, FileFacts, HeritageFact, ImportFact
from codeimpact.indexer.lang.java.model import ModelFile, bind_chain, model_extract
from codeimpact.indexer.lang.syntax_common import (
    Scopes,
    line,
    text,
)

NAME = "ruby"
EXTRACTOR_VERSION = 3

_MIXINS = frozenset({"include", "extend", "prepend"})
_REQUIRES = {"require": 0, "require_relative": 1, "load": 0}
_TEST_DIRS = frozenset({"test", "tests", "spec"})


def const_chain(node: ts.Node | None) -> str:
    """`A::B` -> A.B; a constant -> its name; "" for anything else."""
    if node is None:
        return ""
    if node.type == "constant":
        return text(node)
    if node.type == "scope_resolution":
        scope_node = node.child_by_field_name("scope")
        name = text(node.child_by_field_name("name"))
        if scope_node is None:  # `::Readline`: the top-level constant, whatever encloses it
            return f"::{name}"
        scope = const_chain(scope_node)
        return f"{scope}.{name}" if scope else name
    return ""


def chain(node: ts.Node | None) -> str | None:
    """The chain of a value expression (lang/syntax_common.py); None when it has no such form."""
    if node is None:
        return None
    t = node.type
    if t in ("identifier", "constant"):
        return text(node)
    if t == "self":
        return "this"
    if t == "instance_variable":  # `@repo`: the object's field repo
        return f"this.{text(node)[1:]}"
    if t == "scope_resolution":
        return const_chain(node) or None
    if t == "call":
        method = text(node.child_by_field_name("method"))
        recv = node.child_by_field_name("receiver")
        if recv is not None and method == "new":
            tc = const_chain(recv)
            return f"{tc}{{}}" if tc else None
        head = chain(recv) if recv is not None else ""
        if head is None:
            return None
        return f"{head}.{method}()" if head else f"{method}()"
    if t == "parenthesized_statements" and node.named_children:
        return chain(node.named_children[-1])
    return None


class _File(ModelFile):
    def __init__(self, source: bytes, root: ts.Node):
        super().__init__(NAME, source, root)
        self.fields: set[str] = set()  # `Cart.@repo`: instance variables and attr_* names
        self.typed: set[str] = set()  # the fields typed by their first assignment
        self._kinds: dict[str, str] | None = None

    def kind_of(self, local: str) -> str:
        if self._kinds is None:  # the definitions are all known once the uses are read
            self._kinds = {s.local: s.kind for s in self.facts.symbols}
        return self._kinds.get(local, "")

    def field(self, node: ts.Node, owner: str, name: str) -> str | None:
        """The field `owner.@name` of a class (defined at its first mention; named `@name`
        beside the methods, which may have its name); None outside a class."""
        if self.kind_of(owner) not in ("class", "module"):
            return None
        local = f"{owner}.@{name}"
        if local not in self.fields:
            self.fields.add(local)
            self.add(node, local, "variable", name)
        return local


def _params(node: ts.Node | None) -> tuple[tuple[str, str], ...]:
    out = []
    for p in node.named_children if node is not None else ():
        if p.type == "identifier":
            out.append((text(p), ""))
        elif p.type in ("optional_parameter", "keyword_parameter"):
            out.append((text(p.child_by_field_name("name")), ""))
        elif p.type in ("splat_parameter", "hash_splat_parameter", "block_parameter"):
            name = p.child_by_field_name("name")
            if name is not None:
                out.append(("*" + text(name), ""))
    return tuple(out)


def _definitions(f: _File, defs) -> None:
    stack: list[tuple[int, str]] = []
    intervals = []
    for construct, caps in sorted(defs, key=lambda d: d[1][d[0]].start_byte):
        node = caps[construct]
        while stack and stack[-1][0] <= node.start_byte:
            stack.pop()
        parent = stack[-1][1] if stack else ""
        if parent and f.facts.extra["modifiers"].get(parent) == "def":
            continue  # a definition inside a method body: dynamic, not named here
        prefix = f"{parent}." if parent else ""
        if construct in ("definition.module", "definition.class"):
            dotted = const_chain(caps["name"])
            if not dotted:
                continue
            local = f.names.unique(prefix + dotted)
            kind = "module" if construct == "definition.module" else "class"
            f.add(node, local, kind, dotted.rpartition(".")[2])
            sup = node.child_by_field_name("superclass")
            base = (
                const_chain(sup.named_children[0]) if sup is not None and sup.named_children else ""
            )
            if base:
                f.facts.heritage.append(HeritageFact(local, base, line(sup), "extends"))
            stack.append((node.end_byte, local))
            intervals.append((node.start_byte, node.end_byte, local))
            continue
        name = text(caps["name"])
        local = f.names.unique(prefix + name)
        kind = "method" if parent else "function"
        params = _params(node.child_by_field_name("parameters"))
        body = node.child_by_field_name("body")
        is_test = name.startswith("test_")
        f.add(node, local, kind, name, body.start_byte if body else None, params, is_test)
        f.facts.extra["modifiers"][local] = "def"
        if construct == "definition.function":
            f.facts.extra["modifiers"][local] = "def static"
        stack.append((node.end_byte, local))
        intervals.append((node.start_byte, node.end_byte, local))
    f.scopes = Scopes(intervals)


def _args(node: ts.Node) -> list[ts.Node]:
    args = node.child_by_field_name("arguments")
    return list(args.named_children) if args is not None else []


def _on_call(f: _File, caps) -> None:
    node = caps["reference.call"]
    method = text(caps["callee"])
    recv = node.child_by_field_name("receiver")
    scope = f.scopes.at(node.start_byte)
    args = _args(node)
    if recv is None and method in _REQUIRES and args and args[0].type == "string":
        path = "".join(text(c) for c in args[0].named_children if c.type == "string_content")
        if path:
            f.facts.imports.append(ImportFact(scope, path, _REQUIRES[method], "", "", line(node)))
        return
    if recv is None and method in _ATTRS and f.kind_of(scope) in ("class", "module"):
        for a in args:  # `attr_reader :repo`: the field repo, read and written by name
            if a.type == "simple_symbol":
                f.field(a, scope, text(a).lstrip(":"))
    if recv is None and method in _MIXINS:
        owner = scope if scope and f.facts.extra["modifiers"].get(scope) != "def" else ""
        for a in args:
            base = const_chain(a)
            if base and owner:
                f.facts.heritage.append(HeritageFact(owner, base, line(a), "implements"))
        return
    if method == "super":
        return  # `super(...)`: the (super) node inside it is the call (_on_super)
    if recv is None and method == "new":  # `new(...)` in a class method: the class's own
        owner = scope.rpartition(".")[0] if f.facts.extra["modifiers"].get(scope) else ""
        if owner:
            cls = owner.rpartition(".")[2]
            f.calls.append(
                (node.start_byte, CallFact(scope, cls, line(node), "new", ()), len(args))
            )
            return
    if recv is not None and method == "new":
        tc = const_chain(recv)
        if tc:
            f.calls.append((node.start_byte, CallFact(scope, tc, line(node), "new", ()), len(args)))
            return
    head = chain(recv) if recv is not None else ""
    callee = f"{head}.{method}" if head else (method if head == "" else f"?.{method}")
    plain = tuple((i, text(a)) for i, a in enumerate(args) if a.type == "identifier")
    f.calls.append((node.start_byte, CallFact(scope, callee, line(node), "call", plain), len(args)))


def _on_super(f: _File, caps) -> None:
    node = caps["reference.constructor"]
    scope = f.scopes.at(node.start_byte)
    method = scope.rpartition(".")[2].partition("#")[0]
    if not method:
        return
    callee = "super.<init>" if method == "initialize" else f"super.{method}"
    f.calls.append((node.start_byte, CallFact(scope, callee, line(node), "call", ()), 0))


def _on_assignment(f: _File, caps) -> None:
    node = caps["assignment"]
    left, right = caps["left"], caps["right"]
    scope = f.scopes.at(node.start_byte)
    if left.type == "instance_variable" and f.kind_of(scope) == "method":
        # `@repo = Repo.new` in a method: the class's field repo holds what it is given first
        owner, name = scope.rpartition(".")[0], text(left)[1:]
        local = f.field(left, owner, name)
        value = chain(right)
        if local is None or not value or local in f.typed:
            return
        f.typed.add(local)
        if value.endswith("{}"):
            f.facts.extra["types"][local] = value[:-2]
        else:
            bind_chain(f.facts, owner, name, value, line(node))
        return
    if left.type != "identifier" or not scope:
        return
    name = text(left)
    value = chain(right)
    bind_chain(f.facts, scope, name, value, line(node))


_ATTRS = frozenset({"attr_reader", "attr_accessor", "attr_writer"})

_USES = {
    "reference.call": _on_call,
    "reference.constructor": _on_super,
    "assignment": _on_assignment,
}


def extract(source: bytes) -> FileFacts:
    return model_extract(NAME, __package__, source, _File, _definitions, _USES)


def is_test_path(path: str) -> bool:
    """Minitest and RSpec layouts: test/ and spec/ folders, `test_x.rb`, `x_test.rb`, `x_spec.rb`."""
    parts = path.split("/")
    if any(p in _TEST_DIRS for p in parts[:-1]):
        return True
    name = parts[-1]
    return name.startswith("test_") or name.endswith(("_test.rb", "_spec.rb"))
