"""Dart: tree-sitter queries (queries.scm) -> FileFacts in the Java model's shape.

Locals are lexical in the library file: classes `Cart`, mixins `Logger` (kind mixin),
extensions `CartX` (kind extension; an unnamed one `<extension on T>`; the type they extend
in extra["on"]), enums `Color` (constants kind variable), methods `Cart.add`, constructors
(kind constructor) `Cart.<init>` (the unnamed one, factory or not) and `Cart.empty` (a named
one: `Cart.empty()` calls it as a member of Cart), fields `Cart.items` and getters/setters
(kind property), top-level functions `helper` and variables (kind variable), local functions
`run.inner`, and the blocks of package:test `test('adds', ...)` / `group(...)` (kind
function, is_test, named by their description: `main.cart.adds`, a `.` in it written `_`).

Heritage: `extends` is "extends"; `with` mixins, `implements` and a mixin's `on` types are
"implements". Calls: `x.m()` is the chain `x.m` (`this`, `super` as is), `m()` is `m`,
`Cart()` a call whose callee is a type (a construction), `new Cart()` / `const Cart()` kind
"new", `Cart.empty()` / `new Cart.empty()` a call of the member `empty`; `list..add(x)`
calls `list.add`; a constructor's `: super(x)` calls `super.<init>`. `var c = Cart()` is a
BindingFact, `Cart c` types c Cart; `List<Cart>` (Iterable, Set) is the engine's container
`[]Cart`, and `for (final c in carts)` binds c to an element (`carts[i]`); `await f()` is
f's value (a Future<T> result is declared T). Chains and types are read by syntax.py.

Directives: imports are ImportFacts with the URI as written (`package:shop/cart.dart`,
`src/util.dart`, `dart:async`) as module, `*` or each `show` name as name and the `as`
prefix as alias; extra["exports"] holds (uri, shown names, line), extra["parts"] (uri, line),
extra["part_of"] the `part of` URI or library name, extra["library"] the `library` name.
The resolver (resolve.py) turns URIs into libraries with pubspec.yaml.
"""

from __future__ import annotations

import tree_sitter as ts

from codeimpact.indexer.lang.api import CallFact, FileFacts, HeritageFact, ImportFact
from codeimpact.indexer.lang.dart.syntax import (
    MEMBER_SELECTORS,
    argv,
    child,
    declared_type,
    receiver_start,
    result_type,
    seq_chain,
    string_value,
    toplevel_type,
)
from codeimpact.indexer.lang.grammars import get_parser
from codeimpact.indexer.lang.java.model import ModelFile, bind_chain, run_model
from codeimpact.indexer.lang.queries import query_runner
from codeimpact.indexer.lang.syntax_common import Scopes, line, text

NAME = "dart"
EXTRACTOR_VERSION = 3
# package:test and flutter_test: a call of these with a description and a closure is a test
# (or a group of tests) the runner names by its description
TEST_CALLS = frozenset({"test", "group", "testWidgets"})
_TYPES = {"definition.class": "class", "definition.mixin": "mixin",
          "definition.extension": "extension", "definition.enum": "enum"}  # fmt: skip
_BODIES = ("class_body", "extension_body", "enum_body")


class _File(ModelFile):
    def __init__(self, source: bytes, root: ts.Node):
        super().__init__(NAME, source, root)
        ex = self.facts.extra
        ex["on"] = {}  # extension local -> the type it extends
        ex["exports"] = []  # (uri, shown names)
        ex["parts"] = []
        ex["library"] = ""
        ex["part_of"] = ""

    def define(self, start, end, local, kind, name, sig_end=None, params=(), is_test=False,
               mods=""):  # fmt: skip
        """A definition from `start` to `end` (a signature and the body beside it)."""
        self.add(start, local, kind, name, sig_end, params, is_test, mods)
        s = self.facts.symbols[-1]
        if end is not start:
            s = s._replace(end_line=end.end_point[0] + 1, end_byte=end.end_byte)
        if local.rpartition(".")[2].startswith("_"):  # library-private
            s = s._replace(exported=False)
        self.facts.symbols[-1] = s


def _span(node: ts.Node) -> tuple[ts.Node, ts.Node]:
    """(first, last) node of a member: its signature's holder and the body beside it."""
    holder = node
    if node.parent is not None and node.parent.type in ("method_signature", "declaration"):
        holder = node.parent
    if node.parent is not None and node.parent.type == "lambda_expression":
        return node.parent, node.parent
    body = holder.next_named_sibling
    return holder, body if body is not None and body.type == "function_body" else holder


def _annotations(holder: ts.Node) -> list[str]:
    out = []
    prev = holder.prev_named_sibling
    while prev is not None and prev.type == "annotation":
        out.append(text(prev.child_by_field_name("name")))
        prev = prev.prev_named_sibling
    return out


def _params(plist: ts.Node | None) -> tuple[tuple[str, str], ...]:
    out = []
    for p in plist.named_children if plist is not None else ():
        if p.type == "optional_formal_parameters":
            out.extend(_params(p))
            continue
        if p.type != "formal_parameter":
            continue
        name = p.child_by_field_name("name")
        ctor = child(p, "constructor_param", "super_formal_parameter")
        if name is None and ctor is not None:
            name = child(ctor, "identifier")
        if name is not None:
            out.append((text(name), declared_type(p.named_children)))
    return tuple(out)


class _Definitions:
    def __init__(self, f: _File):
        self.f = f
        self.stack: list[tuple[int, str]] = []  # (end byte, local) of enclosing definitions
        self.intervals: list[tuple[int, int, str]] = []
        self.kinds: dict[str, str] = {"": "module"}

    def owner(self, start: int) -> str:
        while self.stack and self.stack[-1][0] <= start:
            self.stack.pop()
        return self.stack[-1][1] if self.stack else ""

    def open(self, first, last, local, kind, code_start: int | None = None) -> None:
        """A definition whose own code runs from `code_start` (its start) to its end."""
        self.stack.append((last.end_byte, local))
        start = first.start_byte if code_start is None else code_start
        self.intervals.append((start, last.end_byte, local))
        self.kinds[local] = kind

    def in_type(self, parent: str) -> bool:
        return self.kinds.get(parent) in _TYPES.values()

    def run(self, defs) -> None:
        items = []
        for construct, caps in defs:
            node = caps[construct]
            first, last = _span(node) if construct.startswith("definition.") else (node, node)
            if construct == "reference.call":
                first = node.prev_named_sibling
            items.append((first.start_byte, -last.end_byte, construct, node, first, last))
        for _s, _e, construct, node, first, last in sorted(items, key=lambda x: x[:2]):
            parent = self.owner(first.start_byte)
            handler = getattr(self, construct.replace(".", "_"))
            handler(node, first, last, parent)
        self.f.scopes = Scopes(self.intervals)

    def package(self, node, first, last, parent) -> None:
        ex = self.f.facts.extra
        if node.type == "library_name":
            ex["library"] = text(child(node, "dotted_identifier_list"))
        else:
            uri = child(node, "uri")
            ex["part_of"] = string_value(child(uri, "string_literal")) if uri else text(
                child(node, "dotted_identifier_list"))  # fmt: skip

    def _type(self, node, first, last, parent, kind) -> None:
        f = self.f
        on = node.child_by_field_name("class")
        name = text(node.child_by_field_name("name") or child(node, "identifier"))
        if not name:
            if kind != "extension" or on is None:
                return
            name = f"<extension on {text(on)}>"
        prefix = f"{parent}." if parent else ""
        local = f.names.unique(prefix + name)
        body = node.child_by_field_name("body") or child(node, *_BODIES)
        mods = " ".join(c.type for c in node.children if c.type in (
            "abstract", "sealed", "interface", "base", "final"))  # fmt: skip
        f.define(node, node, local, kind, name, body.start_byte if body else None, mods=mods)
        if on is not None:
            f.facts.extra["on"][local] = text(on)
        self._heritage(node, local)
        self.open(node, node, local, kind)

    def _heritage(self, node, local) -> None:
        f = self.f
        after_on = False
        for c in node.children:
            if c.type == "superclass":
                base = child(c, "type_identifier")
                if base is not None:
                    f.facts.heritage.append(HeritageFact(local, text(base), line(c), "extends"))
                for m in child(c, "mixins").named_children if child(c, "mixins") else ():
                    if m.type == "type_identifier":
                        f.facts.heritage.append(HeritageFact(local, text(m), line(m), "implements"))
            elif c.type in ("interfaces", "mixins"):
                for m in c.named_children:
                    if m.type == "type_identifier":
                        f.facts.heritage.append(HeritageFact(local, text(m), line(m), "implements"))
            elif c.type == "on":
                after_on = True
            elif after_on and c.type == "type_identifier" and node.type == "mixin_declaration":
                f.facts.heritage.append(HeritageFact(local, text(c), line(c), "implements"))

    def definition_class(self, node, first, last, parent) -> None:
        self._type(node, first, last, parent, "class")

    def definition_mixin(self, node, first, last, parent) -> None:
        self._type(node, first, last, parent, "mixin")

    def definition_extension(self, node, first, last, parent) -> None:
        self._type(node, first, last, parent, "extension")

    def definition_enum(self, node, first, last, parent) -> None:
        self._type(node, first, last, parent, "enum")

    def definition_enum_member(self, node, first, last, parent) -> None:
        name = text(node.child_by_field_name("name"))
        if name and parent:
            local = self.f.names.unique(f"{parent}.{name}")
            self.f.define(node, node, local, "variable", name)
            self.f.facts.extra["types"][local] = parent.rpartition(".")[2]

    def definition_function(self, node, first, last, parent) -> None:
        holder = node.parent.type if node.parent is not None else ""
        if holder not in ("program", "method_signature", "declaration", "lambda_expression"):
            return  # a function-typed parameter
        name = text(node.child_by_field_name("name"))
        if not name:
            return
        f = self.f
        kind = "method" if self.in_type(parent) else "function"
        local = f.names.unique(f"{parent}.{name}" if parent else name)
        mods = " ".join(c.type for c in first.children if c.type in ("static", "external"))
        if first.type == "declaration" and last is first and self.in_type(parent):
            mods = (mods + " abstract").strip()  # declared without a body
        annotations = _annotations(first)
        is_test = "isTest" in annotations or "Test" in annotations
        plist = child(node, "formal_parameter_list")
        f.define(first, last, local, kind, name, last.start_byte if last is not first else None,
                 _params(plist), is_test, mods)  # fmt: skip
        res = result_type(node)
        if res:
            f.facts.extra["results"][local] = res
        self.open(first, last, local, kind)

    def definition_property(self, node, first, last, parent) -> None:
        name = text(node.child_by_field_name("name"))
        if not name:
            return
        f = self.f
        local = f.names.unique(f"{parent}.{name}" if parent else name)
        mods = " ".join(c.type for c in first.children if c.type == "static")
        sig_end = last.start_byte if last is not first else None
        f.define(first, last, local, "property", name, sig_end,
                 _params(child(node, "formal_parameter_list")), mods=mods)  # fmt: skip
        if node.type == "getter_signature":
            typ = declared_type(node.named_children)
            if typ:
                f.facts.extra["types"][local] = typ
        self.open(first, last, local, "property")

    def definition_constructor(self, node, first, last, parent) -> None:
        if not self.in_type(parent):
            return
        f = self.f
        names = [c for c in node.children_by_field_name("name") if c.type == "identifier"] or [
            c for c in node.named_children if c.type == "identifier"
        ]
        named = text(names[1]) if len(names) > 1 else ""
        local = f.names.unique(f"{parent}.{named or '<init>'}")
        plist = child(node, "formal_parameter_list")
        sig_end = last.start_byte if last is not first else None
        f.define(first, last, local, "constructor", named or "<init>", sig_end, _params(plist),
                 mods="static")  # fmt: skip
        f.facts.extra["results"][local] = parent.rpartition(".")[2]
        self.open(first, last, local, "constructor")
        if node.type == "redirecting_factory_constructor_signature":
            target = [text(c) for c in node.named_children[len(names) + 1 :]
                      if c.type in ("type_identifier", "identifier")]  # fmt: skip
            if target:
                callee, kind = ".".join(target), "call" if len(target) > 1 else "new"
                f.calls.append((node.start_byte, CallFact(local, callee, line(node), kind, ()), 0))
        for entry in (child(first, "initializers") or node).named_children:
            self._initializer(entry, local)
        redirection = child(first, "redirection")
        if redirection is not None:
            self._initializer(redirection, local)

    def _initializer(self, entry, local) -> None:
        """`: super(x)`, `: super.named(x)`, `: this.other(x)` call another constructor."""
        if entry.type not in ("initializer_list_entry", "redirection"):
            return
        kids = entry.named_children
        if not kids or kids[0].type not in ("super", "this"):
            return
        member = child(entry, "identifier")
        callee = f"{kids[0].type}.{text(member) if member is not None else '<init>'}"
        args = child(entry, "arguments")
        self.f.calls.append(
            (entry.start_byte, CallFact(local, callee, line(entry), "call", ()), len(argv(args)))
        )

    def definition_field(self, node, first, last, parent) -> None:
        lst = node.parent
        holder = lst.parent if lst is not None else None
        if holder is None or lst.type not in (
            "initialized_identifier_list", "static_final_declaration_list"):  # fmt: skip
            return
        f = self.f
        if holder.type == "program":
            kind, typ, mods = "variable", toplevel_type(lst), ""
        elif holder.type == "declaration" and self.in_type(parent):
            kind, typ = "property", declared_type(holder.named_children)
            mods = " ".join(c.type for c in holder.children if c.type == "static")
        else:
            return
        ident = child(node, "identifier")
        if ident is None:
            return
        name = text(ident)
        local = f.names.unique(f"{parent}.{name}" if parent else name)
        f.define(node, node, local, kind, name, mods=mods)
        if typ:
            f.facts.extra["types"][local] = typ
            return
        value = [c for c in node.named_children if c is not ident]
        if value:
            bind_chain(f.facts, parent, name, seq_chain(value), line(node))

    def reference_call(self, node, first, last, parent) -> None:
        """A package:test block: `test('adds', () {...})` defines a test named 'adds'."""
        args = argv(child(child(node, "argument_part"), "arguments"))
        if len(args) < 2 or args[0].type != "string_literal":
            return
        body = next((a for a in args[1:] if a.type == "function_expression"), None)
        if body is None:
            return
        desc = string_value(args[0])
        safe = desc.replace(".", "_") or "_"
        local = self.f.names.unique(f"{parent}.{safe}" if parent else safe)
        self.f.define(first, last, local, "function", desc, body.start_byte, is_test=True)
        # the call itself and its description run in the enclosing code, the closure is the test
        self.open(first, last, local, "function", body.start_byte)


# ---------------------------------------------------------------- uses


def _on_import(f: _File, caps) -> None:
    node = caps["import"]
    ex = f.facts.extra
    if node.type == "part_directive":
        ex["parts"].append((string_value(child(child(node, "uri"), "string_literal")), line(node)))
        return
    spec = child(node, "library_import", "library_export")
    if spec is not None and spec.type == "library_import":
        spec = child(spec, "import_specification")
    if spec is None:
        return
    uri = string_value(child(child(child(spec, "configurable_uri"), "uri"), "string_literal"))
    shown = tuple(
        text(i)
        for c in spec.named_children
        if c.type == "combinator" and c.children and c.children[0].type == "show"
        for i in c.named_children
        if i.type == "identifier"
    )
    if node.named_children[0].type == "library_export":
        ex["exports"].append((uri, shown, line(node)))
        return
    prefix = next((text(c) for c in spec.named_children if c.type == "identifier"), "")
    for name in shown or ("*",):
        f.facts.imports.append(ImportFact("", uri, 0, name, prefix, line(node)))


def _on_call(f: _File, caps) -> None:
    node = caps["reference.call"]
    parent = node.parent
    if parent is None:
        return
    siblings = parent.named_children
    i = next(k for k, s in enumerate(siblings) if s.id == node.id)
    values = argv(child(child(node, "argument_part"), "arguments"))
    if node.type == "cascade_section":
        sel = child(node, "cascade_selector")
        if sel is None or child(node, "argument_part") is None:
            return
        j = receiver_start(siblings, i, ("selector", "cascade_section", *MEMBER_SELECTORS))
        k = next((m for m in range(j, i + 1) if siblings[m].type == "cascade_section"), i)
        recv = seq_chain(siblings[j:k])
        callee = f"{recv or '?'}.{text(child(sel, 'identifier'))}"
    else:
        j = receiver_start(siblings, i, ("selector", *MEMBER_SELECTORS))
        callee = seq_chain(siblings[j:i])
        if callee is None:
            last = siblings[i - 1] if i > 0 else None
            name = child(last, "identifier") if last is not None else None
            member = last is not None and (
                last.type in MEMBER_SELECTORS or child(last, *MEMBER_SELECTORS) is not None
            )
            if not member:
                return
            callee = f"?.{text(name or child(child(last, *MEMBER_SELECTORS), 'identifier'))}"
    plain = tuple(
        (n, text(a))
        for n, a in enumerate(values)
        if a.type == "identifier" and a.next_named_sibling is None
    )
    scope = f.scopes.at(node.start_byte)
    f.calls.append(
        (node.start_byte, CallFact(scope, callee, line(node), "call", plain), len(values))
    )


def _on_new(f: _File, caps) -> None:
    node = caps.get("reference.new")
    tn = child(node, "type_identifier")
    if tn is None:
        return
    member = child(node, "identifier")
    values = argv(child(node, "arguments"))
    scope = f.scopes.at(node.start_byte)
    if member is not None:
        call = CallFact(scope, f"{text(tn)}.{text(member)}", line(node), "call", ())
    else:
        call = CallFact(scope, text(tn), line(node), "new", ())
    f.calls.append((node.start_byte, call, len(values)))


def _bind(f: _File, node, name, typ: str, value: str | None) -> None:
    """A local: typed by its declaration, else by what it is given (lang/java bind_chain)."""
    scope = f.scopes.at(node.start_byte)
    if typ:
        f.facts.extra["locals"].append((scope, text(name), typ, line(node)))
    else:
        bind_chain(f.facts, scope, text(name), value, line(node))


def _on_local(f: _File, caps) -> None:
    node = caps["binding.local"]
    name = node.child_by_field_name("name")
    if name is not None:
        value = seq_chain(node.children_by_field_name("value"))
        _bind(f, node, name, declared_type(node.named_children), value)


def _on_loop(f: _File, caps) -> None:
    """`for (final o in orders)`: o is an element of orders (`for (Order o in ...)` types it)."""
    node = caps["binding.iteration"]
    name = node.child_by_field_name("name")
    if name is None:
        return
    typ = declared_type(c for c in node.named_children if c.start_byte < name.start_byte)
    value = seq_chain(node.children_by_field_name("value"))
    _bind(f, node, name, typ, f"{value}[i]" if value else None)


_USES = {"import": _on_import, "reference.call": _on_call, "reference.new": _on_new,
         "binding.local": _on_local, "binding.iteration": _on_loop}  # fmt: skip


def _is_test_call(construct: str, caps) -> bool:
    if construct != "reference.call":
        return False
    node = caps[construct]
    prev = node.prev_named_sibling
    return node.type == "selector" and prev is not None and prev.type == "identifier" and (
        text(prev) in TEST_CALLS)  # fmt: skip


def extract(source: bytes) -> FileFacts:
    root = get_parser(NAME).parse(source).root_node
    matches = query_runner(NAME, __package__, "queries.scm").matches(root)
    tests = [(c, caps) for c, caps in matches if _is_test_call(c, caps)]
    return run_model(
        _File(source, root), root, NAME, matches,
        lambda f, defs: _Definitions(f).run(defs + tests), _USES,
    )  # fmt: skip


def is_test_path(path: str) -> bool:
    """The package layout's test folders (test/, integration_test/, test_driver/) and
    `*_test.dart` files (what `dart test` and `flutter test` run)."""
    parts = path.split("/")
    if any(p in ("test", "integration_test", "test_driver") for p in parts[:-1]):
        return True
    return parts[-1].endswith("_test.dart")
