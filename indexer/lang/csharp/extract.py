"""C#: tree-sitter queries (queries.scm) -> FileFacts in the Java model's shape.

Locals are lexical below the namespace: `OrderService`, `OrderService.Place` (overloads
`Place#2`), constructors `OrderService.<init>` (the name the typed engine's constructions
look for), fields and properties `OrderService.Count`, nested types `Outer.Inner`. The
namespace is the file's package (`extra.package`; the first one a file declares, block or
file-scoped). Kinds: class (records too), interface, struct, enum, method (constructors
too), property, variable (fields, enum members).

`using N;` is an on-demand import of namespace N (Java's `import n.*`); `using static T;`
imports T's members; `using A = N.T;` imports N.T. Base types are "extends" HeritageFacts,
"implements" when the name follows the interface convention (`IDisposable`) or the type
is a struct or record: the resolver makes a repository interface IMPLEMENTS whatever the
fact says. `this.M()` and `base.M()` are the chains `this.M` / `super.M`; `: base(x)` and
`: this(x)` call `super.<init>` / `this.<init>`. A method marked `[Test]`, `[Fact]`,
`[Theory]`, `[TestMethod]` or `[TestCase]` is a test.

Extra facts as Java's (resolve.py reads them through Java's resolver): package, results,
types, modifiers, tparams, locals, argc (one per CallFact), static (indexes of static
imports).
"""

from __future__ import annotations

import re

import tree_sitter as ts

from codeimpact.indexer.lang.api import BindingFact, CallFact, FileFacts, HeritageFact, ImportFact
from codeimpact.indexer.lang.java.model import ModelFile, bind_chain, model_extract
from codeimpact.indexer.lang.syntax_common import ChainForm, Child, Scopes, chain_of, line, text

NAME = "csharp"
EXTRACTOR_VERSION = 2

_TEST_ATTRIBUTES = frozenset({"Test", "Fact", "Theory", "TestMethod", "TestCase", "DataTestMethod"})
_INTERFACE_NAME = re.compile(r"^I[A-Z]")
_TYPE_KINDS = {
    "definition.class": "class",
    "definition.interface": "interface",
    "definition.struct": "struct",
    "definition.record": "class",
    "definition.enum": "enum",
}
_MEMBER_KINDS = {
    "definition.method": "method",
    "definition.constructor": "method",
    "definition.property": "property",
    "definition.field": "variable",
    "definition.enum_member": "variable",
}


def type_chain(node: ts.Node | None) -> str:
    """The named type a type expression denotes (generics, nullability, arrays dropped)."""
    while node is not None:
        t = node.type
        if t == "identifier":
            return text(node)
        if t == "qualified_name":
            q = type_chain(node.child_by_field_name("qualifier"))
            n = type_chain(node.child_by_field_name("name"))
            return f"{q}.{n}" if q and n else n
        if t == "generic_name":
            node = next((c for c in node.named_children if c.type == "identifier"), None)
        elif (
            t in ("nullable_type", "array_type", "pointer_type", "ref_type") and node.named_children
        ):
            node = node.named_children[0]
        else:
            return ""
    return ""


# C#'s value expressions in the chain form (syntax_common.ChainForm)
_CHAIN = ChainForm(
    type_chain,
    names=frozenset({"identifier"}),
    fixed={"this_expression": "this", "base_expression": "super"},
    texts={"this": "this", "base": "super"},  # the grammar's anonymous `this`/`base` keywords
    members={"member_access_expression": ("expression", "name")},
    member_names={"generic_name": Child("identifier")},  # `x.M<int>`
    calls={"invocation_expression": "function"},
    constructions={"object_creation_expression": "type", "cast_expression": "type"},
    inner={"parenthesized_expression": 0},
    types=frozenset({"generic_name"}),
)


def chain(node: ts.Node | None) -> str | None:
    """The chain of a value expression; None when it has no such form."""
    return chain_of(_CHAIN, node)


def _modifiers(node: ts.Node) -> str:
    return " ".join(text(c) for c in node.children if c.type == "modifier")


def _attributes(node: ts.Node) -> tuple[str, ...]:
    out = []
    for c in node.children:
        if c.type == "attribute_list":
            out += [type_chain(a.child_by_field_name("name")) for a in c.named_children]
    return tuple(a for a in out if a)


def _params(node: ts.Node | None) -> tuple[tuple[str, str], ...]:
    if node is None:
        return ()
    out = []
    for p in node.named_children:
        if p.type == "parameter":
            name = p.child_by_field_name("name")
            if name is not None:
                star = (
                    "*"
                    if any(c.type == "params" or text(c) == "params" for c in p.children)
                    else ""
                )
                out.append((star + text(name), type_chain(p.child_by_field_name("type"))))
    return tuple(out)


def _extended(plist: ts.Node | None) -> str:
    """The type an extension method extends: its first parameter's, when marked `this`."""
    first = (
        next((p for p in plist.named_children if p.type == "parameter"), None) if plist else None
    )
    if first is None or not any(c.type == "modifier" and text(c) == "this" for c in first.children):
        return ""
    return type_chain(first.child_by_field_name("type"))


class _File(ModelFile):
    def __init__(self, source: bytes, root: ts.Node):
        super().__init__(NAME, source, root)
        self.kind_of: dict[str, str] = {"": "module"}

    def exported(self, local: str, kind: str, mods: str) -> bool:
        """`public`, an interface's members and an enum's constants."""
        parent_kind = self.kind_of.get(local.rpartition(".")[0] if "." in local else "", "")
        return (
            "public" in mods.split()
            or parent_kind == "interface"
            or kind == "variable"
            and parent_kind == "enum"
        )

    def add(self, node, local, kind, name, sig_end=None, params=(), is_test=False, mods=""):
        super().add(node, local, kind, name, sig_end, params, is_test, mods)
        self.kind_of[local] = kind


def _definitions(f: _File, defs) -> None:
    """Names every definition by its enclosing types (a stack over the sorted spans)."""
    stack: list[tuple[int, str]] = []  # (end byte, local) of the enclosing types
    intervals = []
    ns_ends: list[int] = []
    for construct, caps in sorted(defs, key=lambda d: d[1][d[0]].start_byte):
        node = caps[construct]
        while stack and stack[-1][0] <= node.start_byte:
            stack.pop()
        if construct in ("definition.namespace", "package"):
            if not f.facts.extra["package"]:
                f.facts.extra["package"] = type_chain(caps["name"])
            ns_ends.append(node.end_byte)
            continue
        parent = stack[-1][1] if stack else ""
        prefix = f"{parent}." if parent else ""
        mods = _modifiers(node)
        if construct in _TYPE_KINDS:
            name = text(caps["name"])
            local = f.names.unique(prefix + name)
            kind = _TYPE_KINDS[construct]
            body = caps.get("body")
            f.add(node, local, kind, name, body.start_byte if body else None, mods=mods)
            _bases(f, node, local, kind)
            if construct == "definition.record":  # positional parameters are properties
                plist = next((c for c in node.named_children if c.type == "parameter_list"), None)
                for pname, ptype in _params(plist):
                    plocal = f.names.unique(f"{local}.{pname}")
                    f.add(plist, plocal, "property", pname, mods="public")
                    if ptype:
                        f.facts.extra["types"][plocal] = ptype
            stack.append((node.end_byte, local))
            intervals.append((node.start_byte, node.end_byte, local))
            continue
        if not parent:
            continue
        kind = _MEMBER_KINDS[construct]
        if construct == "definition.field":
            decl = next((c for c in node.named_children if c.type == "variable_declaration"), None)
            if decl is None:
                continue
            typ = type_chain(decl.child_by_field_name("type"))
            for v in decl.named_children:
                if v.type == "variable_declarator":
                    nm = text(v.child_by_field_name("name"))
                    local = f.names.unique(prefix + nm)
                    f.add(node, local, "variable", nm, mods=mods)
                    if typ:
                        f.facts.extra["types"][local] = typ
            continue
        name = text(caps["name"])
        ctor = construct == "definition.constructor"
        local = f.names.unique(prefix + ("<init>" if ctor else name))
        body = node.child_by_field_name("body")
        params = _params(node.child_by_field_name("parameters"))
        receiver = _extended(node.child_by_field_name("parameters"))
        if receiver and kind == "method":  # `static int Total(this Cart c)`: Cart's member too
            f.facts.extra.setdefault("extends", {})[local] = receiver
        is_test = bool(set(_attributes(node)) & _TEST_ATTRIBUTES)
        f.add(node, local, kind, "<init>" if ctor else name, body.start_byte if body else None,
              params, is_test, mods)  # fmt: skip
        typ = type_chain(node.child_by_field_name("returns") or node.child_by_field_name("type"))
        if typ and kind == "method":
            f.facts.extra["results"][local] = typ
        elif typ:
            f.facts.extra["types"][local] = typ
        if kind == "variable" and parent and f.kind_of.get(parent) == "enum":
            f.facts.extra["types"][local] = parent.rpartition(".")[2]
        if kind == "method":
            intervals.append((node.start_byte, node.end_byte, local))
    f.scopes = Scopes(intervals)


def _bases(f: _File, node: ts.Node, local: str, kind: str) -> None:
    blist = next((c for c in node.named_children if c.type == "base_list"), None)
    for i, b in enumerate(blist.named_children if blist is not None else ()):
        base = type_chain(b if b.type != "primary_constructor_base_type" else b.named_children[0])
        if not base:
            continue
        last = base.rpartition(".")[2]
        implements = kind in ("struct",) or (
            kind != "interface" and (i > 0 or _INTERFACE_NAME.match(last))
        )
        f.facts.heritage.append(
            HeritageFact(local, base, line(b), "implements" if implements else "extends")
        )


def _on_import(f: _File, caps) -> None:
    node = caps["import"]
    names = [c for c in node.named_children if c.type in ("identifier", "qualified_name")]
    if not names:
        return
    static = any(text(c) == "static" for c in node.children)
    target = type_chain(names[-1])
    if any(c.type == "=" for c in node.children) or len(names) > 1:  # `using A = N.T;`
        module, _, name = target.rpartition(".")
        alias = text(names[0]) if len(names) > 1 else ""
        f.facts.imports.append(ImportFact("", module, 0, name, alias, line(node)))
        return
    if static:
        f.facts.extra["static"].append(len(f.facts.imports))
    f.facts.imports.append(ImportFact("", target, 0, "*", "", line(node)))


def _call(f: _File, node: ts.Node, callee: str, kind: str, args: ts.Node | None) -> None:
    plain = []
    for i, a in enumerate(args.named_children if args is not None else ()):
        inner = a.named_children[0] if a.type == "argument" and a.named_children else a
        if inner.type in ("identifier", "member_access_expression"):
            c = chain(inner)
            if c:
                plain.append((i, c))
    scope = f.scopes.at(node.start_byte)
    fact = CallFact(scope, callee, line(node), kind, tuple(plain))
    f.calls.append((node.start_byte, fact, args.named_child_count if args is not None else 0))


def _on_call(f: _File, caps) -> None:
    node = caps["reference.call"]
    fn = caps["callee"]
    c = chain(fn)
    if c is None:
        name = fn.child_by_field_name("name") if fn.type == "member_access_expression" else None
        c = f"?.{type_chain(name)}" if name is not None else "?"
    _call(f, node, c, "call", caps["arguments"])


def _on_new(f: _File, caps) -> None:
    node = caps["reference.new"]
    tc = type_chain(caps["type"])
    if tc:
        _call(f, node, tc, "new", node.child_by_field_name("arguments"))


def _on_ctor_init(f: _File, caps) -> None:
    node = caps["reference.constructor"]
    head = "super" if any(text(c) == "base" for c in node.children) else "this"
    args = next((c for c in node.named_children if c.type == "argument_list"), None)
    _call(f, node, f"{head}.<init>", "call", args)


def _on_local(f: _File, caps) -> None:
    node = caps["binding.local"]
    scope = f.scopes.at(node.start_byte)
    decl = next((c for c in node.named_children if c.type == "variable_declaration"), None)
    if decl is None or not scope:
        return
    tnode = decl.child_by_field_name("type")
    typ = type_chain(tnode)
    for v in decl.named_children:
        if v.type != "variable_declarator":
            continue
        name = text(v.child_by_field_name("name"))
        value = next((c for c in v.named_children if c != v.child_by_field_name("name")), None)
        if typ:
            f.facts.extra["locals"].append((scope, name, typ, line(node)))
        elif value is not None and value.type == "invocation_expression":
            fn = chain(value.child_by_field_name("function"))
            if fn:
                f.facts.bindings.append(BindingFact(scope, name, fn, True, line(node)))
        else:
            bind_chain(
                f.facts, scope, name, chain(value) if value is not None else None, line(node)
            )


_USES = {
    "import": _on_import,
    "reference.call": _on_call,
    "reference.new": _on_new,
    "reference.constructor": _on_ctor_init,
    "binding.local": _on_local,
}


def extract(source: bytes) -> FileFacts:
    return model_extract(NAME, __package__, source, _File, _definitions, _USES)


def is_test_path(path: str) -> bool:
    """Files of a test project (`Foo.Tests/`, `tests/`) or named `*Tests.cs` / `*Test.cs`."""
    parts = path.split("/")
    if any(
        p.lower() in ("test", "tests") or p.endswith((".Tests", ".Test", ".UnitTests"))
        for p in parts[:-1]
    ):
        return True
    return parts[-1].endswith(("Tests.cs", "Test.cs"))
