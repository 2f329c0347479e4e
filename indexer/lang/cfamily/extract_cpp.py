"""C++: tree-sitter queries (c.scm + cpp.scm) -> FileFacts, on top of the C extraction.

Locals are dotted paths through namespaces and classes: `ns.A` (a class), `ns.A.m` (a
method defined in the class, or declared there and defined outside), `ns.A.A` (a
constructor: kind `constructor`), `ns.A.~A`, `ns.f`. A definition written outside its class
(`int A::m() {...}` in a .cpp) is `A.m` in that file, prefixed by the namespaces open
around it; the resolver joins it to the class. A namespace opened twice in a file is one
`namespace` symbol; an anonymous namespace adds nothing to the names (its contents are
file-local, as `static` ones: not exported). Templates define what they wrap (a class or a
function), with their kind.

Extra facts beside C's: `bases` are HeritageFacts ("extends"); `declared`: method locals
declared in a class without a body (their body is elsewhere); `using`: [(scope, namespace)]
of `using namespace` directives; `arity`: callable local -> its parameter count (overloads
are picked by it). Constructions are CallFacts of kind `new` on the type: `new A(1)`,
`A a(1)`, `A{1}`; `A(1)` is a call whose callee is a type (the resolver makes it one).
"""

from __future__ import annotations

import tree_sitter as ts

from codeimpact.indexer.lang.api import BindingFact, CallFact, FileFacts, HeritageFact
from codeimpact.indexer.lang.cfamily import extract as c
from codeimpact.indexer.lang.cfamily.decorations import blank_decorations
from codeimpact.indexer.lang.grammars import get_parser
from codeimpact.indexer.lang.queries import query_runner
from codeimpact.indexer.lang.syntax_common import Scopes, line, text

_CLASS_KINDS = {"class_specifier": "class", "struct_specifier": "struct",
                "union_specifier": "union", "enum_specifier": "enum"}  # fmt: skip


def name_parts(node: ts.Node | None) -> list[str]:
    """`ns::A::m` -> [ns, A, m]; `~A` -> [~A]; `operator==` -> [operator==]."""
    if node is None:
        return []
    t = node.type
    if t == "qualified_identifier":
        scope = node.child_by_field_name("scope")
        head = name_parts(scope) if scope is not None else []
        return head + name_parts(node.child_by_field_name("name"))
    if t in ("template_function", "template_type"):
        return name_parts(node.child_by_field_name("name"))
    if t in ("destructor_name", "operator_name"):
        return [text(node).replace(" ", "")]
    return [text(node)] if text(node) else []


class CppFile(c.CFile):
    language = "cpp"

    def __init__(self, source: bytes, root: ts.Node):
        super().__init__(source, root)
        self.containers: list[tuple[int, int, str]] = []  # namespaces and classes
        self.cont = Scopes([])
        self.class_locals: set[str] = set()
        self.namespaces: set[str] = set()
        self.anonymous: list[tuple[int, int]] = []
        ex = self.facts.extra
        ex["declared"] = []
        ex["using"] = []
        ex["arity"] = {}

    def container_at(self, pos: int) -> str:
        return self.cont.at(pos)

    def file_local(self, pos: int) -> bool:
        return any(a <= pos < b for a, b in self.anonymous)


# ---------------------------------------------------------------- containers


def _on_namespace(f: CppFile, caps) -> None:
    node = caps["definition.namespace"]
    name = node.child_by_field_name("name")
    parent = f.container_at(node.start_byte)
    body = caps["body"]
    if name is None:
        f.anonymous.append((node.start_byte, node.end_byte))
        f.containers.append((body.start_byte, body.end_byte, parent))
        f.cont = Scopes(f.containers)
        return
    dotted = ".".join(name_parts(name)) if name.type != "namespace_identifier" else text(name)
    dotted = dotted.replace("::", ".")
    local = f"{parent}.{dotted}" if parent else dotted
    if local not in f.namespaces:
        f.namespaces.add(local)
        f.symbol(node, local, "namespace", dotted.rpartition(".")[2])
    f.containers.append((body.start_byte, body.end_byte, local))
    f.cont = Scopes(f.containers)


def _on_class(f: CppFile, caps, key: str) -> None:
    node = caps[key]
    name, span = c._tag_owner(node)
    if not name or f.func_scopes.at(node.start_byte):
        if node.type == "enum_specifier" and not name:
            c._enumerators(f, node, f.container_at(node.start_byte))
        return
    parent = f.container_at(node.start_byte)
    local = f.names.unique(f"{parent}.{name}" if parent else name)
    kind = _CLASS_KINDS.get(node.type, "class")
    f.symbol(span, local, kind, name, not f.file_local(node.start_byte))
    body = caps["body"]
    if kind == "enum":
        c._enumerators(f, node, local)
        return
    f.class_locals.add(local)
    f.containers.append((body.start_byte, body.end_byte, local))
    f.cont = Scopes(f.containers)
    for child in node.named_children:
        if child.type == "base_class_clause":
            for base in child.named_children:
                chain = c.type_chain(base)
                if chain:
                    f.facts.heritage.append(HeritageFact(local, chain, line(base), "extends"))
    _members(f, body, local, name)


def _members(f: CppFile, body: ts.Node, owner: str, cls: str) -> None:
    """Fields and the methods declared (not defined) in a class body."""
    for fd in body.named_children:
        if fd.type not in ("field_declaration", "declaration"):
            continue
        typ = c.type_chain(fd.child_by_field_name("type"))
        for d in fd.children_by_field_name("declarator"):
            name, fn = c.declarator_name(d)
            if name is None:
                continue
            nm = "".join(name_parts(name))
            if fn is not None:
                kind = "constructor" if nm == cls else "method"
                local = f.names.unique(f"{owner}.{nm}")
                params = c._params(fn)
                f.symbol(fd, local, kind, nm, params=params)
                f.facts.extra["declared"].append(local)
                f.facts.extra["arity"][local] = len(params)
                if typ and kind == "method":
                    f.facts.extra["results"][local] = typ
                continue
            local = f.names.unique(f"{owner}.{nm}")
            f.symbol(fd, local, "variable", nm)
            if typ:
                f.facts.extra["types"][local] = typ


def _on_class_def(f: CppFile, caps) -> None:
    _on_class(f, caps, "definition.class")


def _on_struct_def(f: CppFile, caps) -> None:
    _on_class(f, caps, "definition.struct")


def _on_enum_def(f: CppFile, caps) -> None:
    _on_class(f, caps, "definition.enum")


# ---------------------------------------------------------------- functions


def _on_function(f: CppFile, caps) -> None:
    node = caps["definition.function"]
    name, fn = c.declarator_name(node.child_by_field_name("declarator"))
    if name is None or fn is None:
        return
    parts = name_parts(name) or []
    params = c._params(fn)
    named = _macro_named(fn, parts)
    if named:  # `NODE_METHOD(JS_new) { ... }`: the macro declares JS_new
        parts, params = named.split("."), []
    if not parts:
        return
    container = f.container_at(node.start_byte)
    outer = f.func_scopes.at(node.start_byte)  # a local class's method: inside a function
    prefix = outer or container
    local = _declared_local(f, ".".join([prefix, *parts]) if prefix else ".".join(parts), params)
    owner = local.rpartition(".")[0]
    cls = (parts[-2] if len(parts) > 1 else owner.rpartition(".")[2]) if owner else ""
    in_class = owner in f.class_locals or len(parts) > 1
    kind = "constructor" if cls and parts[-1] == cls else "method" if in_class else "function"
    exported = not c._is_static(node) and not f.file_local(node.start_byte)
    f.symbol(node, local, kind, parts[-1], exported, caps["body"].start_byte, params)
    f.func_iv.append((node.start_byte, node.end_byte, local))
    f.defined.add(parts[-1])
    f.facts.extra["arity"][local] = len(params)
    res = c.type_chain(node.child_by_field_name("type"))
    if res:
        f.facts.extra["results"][local] = res
    for init in node.named_children:  # `A::A(int x) : Base(x), f_(x)`: base constructors run
        if init.type == "field_initializer_list":
            for fi in init.named_children:
                target = fi.named_children[0] if fi.named_children else None
                tc = c.type_chain(target) if target is not None else ""
                if tc and target.type != "field_identifier":
                    f.facts.calls.append(CallFact(local, tc, line(fi), "new", ()))


def _macro_named(fn: ts.Node, parts: list[str]) -> str:
    """The name a definition macro gives its function (`NODE_METHOD(JS_new)`): an all-caps
    callee whose one parameter is a bare name, no declared type."""
    if len(parts) != 1 or not parts[0].isupper():
        return ""
    plist = fn.child_by_field_name("parameters")
    kids = plist.named_children if plist is not None else []
    if len(kids) != 1 or kids[0].type != "parameter_declaration":
        return ""
    p = kids[0]
    t = p.child_by_field_name("type")
    if p.child_by_field_name("declarator") is None and t is not None:
        if t.type in ("type_identifier", "qualified_identifier"):
            return ".".join(name_parts(t))  # `NODE_METHOD(Database::JS_new)`
    return ""


def _declared_local(f: CppFile, base: str, params) -> str:
    """The local of a definition: that of its declaration in this file's class when there is
    one of that arity (the declaration gives way to the definition), else a new one."""
    declared = f.facts.extra["declared"]
    for local in declared:
        if local.partition("#")[0] == base and f.facts.extra["arity"].get(local) == len(params):
            declared.remove(local)
            f.facts.symbols[:] = [s for s in f.facts.symbols if s.local != local]
            return local
    return f.names.unique(base)


# ---------------------------------------------------------------- declarations and uses


def _on_declaration(f: CppFile, caps) -> None:
    node = caps["definition.variable"]
    parent = node.parent
    if parent is not None and parent.type == "field_declaration_list":
        return  # a class member: read with its class
    scope = f.func_scopes.at(node.start_byte)
    if not scope:
        ns = f.container_at(node.start_byte)
        before = len(f.facts.extra["protos"])
        c._on_declaration(f, caps)
        if ns:  # `namespace geo { double total(Shape &); }` declares geo.total
            protos = f.facts.extra["protos"]
            protos[before:] = [f"{ns}.{n}" for n in protos[before:]]
        return
    tnode = node.child_by_field_name("type")
    typ = c.type_chain(tnode)
    auto = tnode is not None and tnode.type == "placeholder_type_specifier"
    for d in node.children_by_field_name("declarator"):
        name, fn = c.declarator_name(d)
        if name is None or fn is not None:
            continue
        nm = text(name)
        value = d.child_by_field_name("value") if d.type == "init_declarator" else None
        if typ:
            f.facts.extra["locals"].append((scope, nm, typ, line(node)))
            if value is not None and value.type in ("argument_list", "initializer_list"):
                f.facts.calls.append(CallFact(scope, typ, line(node), "new", ()))  # `A a(1);`
        elif auto and value is not None:
            _bind(f, scope, nm, value, line(node))
        else:
            f.facts.extra["locals"].append((scope, nm, "", line(node)))


def _bind(f: CppFile, scope: str, name: str, value: ts.Node, lineno: int) -> None:
    """`auto x = ...`: typed by a construction, a call's declared result or another name."""
    if value.type == "new_expression":
        tc = c.type_chain(value.child_by_field_name("type"))
        if tc:
            f.facts.extra["locals"].append((scope, name, tc, lineno))
            return
    if value.type == "call_expression":
        callee = c.chain(value.child_by_field_name("function"))
        if callee:
            f.facts.bindings.append(BindingFact(scope, name, callee, True, lineno))
            return
    ch = c.chain(value)
    if ch:
        f.facts.bindings.append(BindingFact(scope, name, ch, False, lineno))
    else:
        f.facts.extra["locals"].append((scope, name, "", lineno))


def _on_new(f: CppFile, caps) -> None:
    node = caps["reference.new"]
    tc = c.type_chain(caps["type"])
    if tc:
        f.facts.calls.append(CallFact(f.scopes.at(node.start_byte), tc, line(node), "new", ()))


def _on_using(f: CppFile, caps) -> None:
    node = caps["import"]
    if text(node).split()[:2] == ["using", "namespace"]:
        ns = ".".join(p for n in node.named_children for p in name_parts(n))
        if ns:
            f.facts.extra["using"].append((f.scopes.at(node.start_byte), ns))


def _on_alias(f: CppFile, caps) -> None:
    node = caps["definition.type_alias"]
    if node.type != "alias_declaration":
        c._on_typedef(f, caps)
        return
    name = text(caps["name"])
    parent = f.container_at(node.start_byte)
    local = f.names.unique(f"{parent}.{name}" if parent else name)
    f.symbol(node, local, "type_alias", name)
    target = c.type_chain(caps["type"].child_by_field_name("type"))
    if target:
        f.facts.extra["aliases"][local] = target


def _on_lambda(f: CppFile, caps) -> None:
    node = caps["scope.lambda"]
    scope = f.scopes.at(node.start_byte)
    for name, typ in c._params(node.child_by_field_name("declarator")):
        f.facts.extra["locals"].append((scope, name, typ, line(node)))


PHASES: tuple[dict, ...] = (
    {
        "definition.namespace": _on_namespace,
        "definition.class": _on_class_def,
        "definition.struct": _on_struct_def,
        "definition.enum": _on_enum_def,
    },
    {"definition.function": _on_function},
    {
        "definition.type_alias": _on_alias,
        "definition.macro": c._on_macro,
        "definition.constant": c._on_alias_macro,
        "definition.variable": _on_declaration,
    },
    {
        "import": lambda f, caps: (
            _on_using(f, caps) if "path" not in caps else c._on_include(f, caps)
        ),
        "reference.call": c._on_call,
        "reference.new": _on_new,
        "reference.type": c._on_typeref,
        "assignment": c._on_assignment,
        "scope.lambda": _on_lambda,
    },
)


def extract_cpp(source: bytes) -> FileFacts:
    root = get_parser("cpp").parse(blank_decorations(source)).root_node
    f = CppFile(source, root)
    matches = query_runner("cpp", __package__, "c.scm", "cpp.scm").matches(root)
    # containers in document order: a namespace or class is named before what it holds
    matches = sorted(
        matches,
        key=lambda m: m[1][m[0]].start_byte if m[0] in PHASES[0] else 0,
    )
    return c.run_phases(f, root, matches, PHASES)
