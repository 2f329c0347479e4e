"""PHP: tree-sitter queries (queries.scm) -> FileFacts in the Java model's shape.

Locals are lexical below the namespace: `UserService`, `UserService.greet`, properties
`UserService.current` (kind variable, typed by their declaration), functions `helper` (kind
function); the namespace (`App\\Services` -> App.Services) is the file's package. Kinds:
class, interface, trait, enum, method, function, variable. `__construct` is the
constructor (the resolver makes it the `<init>` that constructions run).

`use A\\B\\C [as D]` is a single-type ImportFact (module A.B, name C, alias D). `extends` is
an "extends" HeritageFact, `implements` and a class's `use Trait` are "implements" ones.
Calls: `$x->m()` is the chain `x.m` (`$this` is `this`), `A::m()` is `A.m` (`self::` and
`static::` are `this`, `parent::` is `super`), `f()` is `f`, `new A(...)` a construction of
A. A variable assigned from `new A` is typed A; from a call, a BindingFact. Argument counts
are in extra["argc"], one per CallFact, as Java's.
"""

from __future__ import annotations

import re

import tree_sitter as ts

from codeimpact.indexer.lang.api import CallFact, FileFacts, HeritageFact, ImportFact
from codeimpact.indexer.lang.java.model import ModelFile, bind_chain, model_extract
from codeimpact.indexer.lang.syntax_common import Scopes, line, text

NAME = "php"
EXTRACTOR_VERSION = 3

_TYPE_KINDS = {
    "definition.class": "class",
    "definition.interface": "interface",
    "definition.trait": "trait",
    "definition.enum": "enum",
}
_RELATIVE = {"self": "this", "static": "this", "parent": "super"}


def type_chain(node: ts.Node | None) -> str:
    """`App\\Models\\User` -> App.Models.User; a name -> itself; "" otherwise."""
    if node is None:
        return ""
    t = node.type
    if t == "name":
        return text(node)
    if t in ("qualified_name", "namespace_name"):
        return ".".join(text(n) for n in _names_in(node))
    if t in ("named_type", "optional_type") and node.named_children:
        return type_chain(node.named_children[0])
    return ""


def _names_in(node: ts.Node):
    for c in node.named_children:
        if c.type == "name":
            yield c
        elif c.type in ("namespace_name", "namespace_name_as_prefix"):
            yield from _names_in(c)


_DOC_TAG = re.compile(r"@(var|param|return)\s+([^\s*]+)(?:\s+\$(\w+))?")
_NOT_CLASSES = frozenset(
    "null false true mixed void never array string int float bool callable iterable object "
    "self static resource".split()
)


def doc_types(node: ts.Node) -> dict[tuple[str, str], str]:
    """The class types a docblock before a declaration gives (`@var Logger`, `@param
    Handler $h`, `@return Formatter`), keyed (tag, variable): for code written before PHP
    had declared types, the docblock is where they are."""
    prev = node.prev_named_sibling
    if prev is None or prev.type != "comment" or not text(prev).startswith("/**"):
        return {}
    out: dict[tuple[str, str], str] = {}
    for tag, written, var in _DOC_TAG.findall(text(prev)):
        for part in written.split("|"):
            t = part.lstrip("?\\")
            many = t.endswith("[]")  # `Handler[]`: an array of them (the engine's `[]T`)
            t = t[:-2] if many else t
            if t.lower() not in _NOT_CLASSES and re.fullmatch(r"[A-Za-z_][\w\\]*", t):
                typ = ("[]" if many else "") + t.replace("\\", ".")
                out.setdefault((tag, "" if tag == "var" else var), typ)
                break
    return out


def _var(node: ts.Node) -> str:
    return text(node).lstrip("$")


def chain(node: ts.Node | None) -> str | None:
    """The chain of a value expression (lang/syntax_common.py); None when it has no such form."""
    if node is None:
        return None
    t = node.type
    if t == "variable_name":
        name = _var(node)
        return "this" if name == "this" else name
    if t in ("name", "qualified_name"):
        return type_chain(node) or None
    if t == "relative_scope":
        return _RELATIVE.get(text(node))
    if t in ("member_access_expression", "nullsafe_member_access_expression"):
        op = chain(node.child_by_field_name("object"))
        return f"{op}.{text(node.child_by_field_name('name'))}" if op else None
    if t in ("member_call_expression", "nullsafe_member_call_expression", "scoped_call_expression"):
        op = chain(node.child_by_field_name("object") or node.child_by_field_name("scope"))
        return f"{op}.{text(node.child_by_field_name('name'))}()" if op else None
    if t == "function_call_expression":
        fn = chain(node.child_by_field_name("function"))
        return f"{fn}()" if fn else None
    if t == "object_creation_expression":
        tc = next(
            (type_chain(c) for c in node.named_children if c.type in ("name", "qualified_name")), ""
        )
        return f"{tc}{{}}" if tc else None
    if t == "parenthesized_expression" and node.named_children:
        return chain(node.named_children[0])
    return None


class _File(ModelFile):
    def __init__(self, source: bytes, root: ts.Node):
        super().__init__(NAME, source, root)


def _mods(node: ts.Node) -> str:
    return " ".join(text(c) for c in node.children if c.type.endswith("_modifier"))


def _params(node: ts.Node | None) -> tuple[tuple[str, str], ...]:
    out = []
    for p in node.named_children if node is not None else ():
        name = p.child_by_field_name("name")
        if name is not None:
            star = "*" if p.type == "variadic_parameter" else ""
            out.append((star + _var(name), type_chain(p.child_by_field_name("type"))))
    return tuple(out)


def _definitions(f: _File, defs) -> None:
    stack: list[tuple[int, str]] = []
    intervals = []
    for construct, caps in sorted(defs, key=lambda d: d[1][d[0]].start_byte):
        node = caps[construct]
        while stack and stack[-1][0] <= node.start_byte:
            stack.pop()
        if construct == "package":
            if not f.facts.extra["package"]:
                f.facts.extra["package"] = type_chain(caps["name"])
            continue
        parent = stack[-1][1] if stack else ""
        prefix = f"{parent}." if parent else ""
        mods = _mods(node)
        if construct in _TYPE_KINDS:
            name = text(caps["name"])
            local = f.names.unique(prefix + name)
            kind = _TYPE_KINDS[construct]
            f.add(node, local, kind, name, caps["body"].start_byte, mods=mods or "public")
            _bases(f, node, local, caps["body"])
            stack.append((node.end_byte, local))
            intervals.append((node.start_byte, node.end_byte, local))
            continue
        if construct == "definition.field":
            if not parent:
                continue
            typ = type_chain(node.child_by_field_name("type")) or doc_types(node).get(
                ("var", ""), ""
            )
            for el in node.named_children:
                if el.type == "property_element":
                    nm = _var(el.child_by_field_name("name"))
                    local = f.names.unique(prefix + nm)
                    f.add(node, local, "variable", nm, mods=mods)
                    if typ:
                        f.facts.extra["types"][local] = typ
            continue
        name = text(caps["name"])
        kind = "method" if parent else "function"
        local = f.names.unique(prefix + name)
        doc = doc_types(node)
        params = tuple(
            (pn, pt or doc.get(("param", pn.lstrip("*")), ""))
            for pn, pt in _params(node.child_by_field_name("parameters"))
        )
        body = node.child_by_field_name("body")
        is_test = name.startswith("test")
        f.add(node, local, kind, name, body.start_byte if body else None, params, is_test,
              mods or "public")  # fmt: skip
        res = type_chain(node.child_by_field_name("return_type")) or doc.get(("return", ""), "")
        if res in ("self", "static") and parent:  # `: static` returns the class itself
            res = parent.rpartition(".")[2]
        if res:
            f.facts.extra["results"][local] = res
        if name == "__construct":  # promoted parameters are properties
            for p in (node.child_by_field_name("parameters") or node).named_children:
                if p.type == "property_promotion_parameter":
                    nm = _var(p.child_by_field_name("name"))
                    plocal = f.names.unique(prefix + nm)
                    f.add(p, plocal, "variable", nm, mods=_mods(p))
                    ptype = type_chain(p.child_by_field_name("type"))
                    if ptype:
                        f.facts.extra["types"][plocal] = ptype
        stack.append((node.end_byte, local))
        intervals.append((node.start_byte, node.end_byte, local))
    f.scopes = Scopes(intervals)


def _bases(f: _File, node: ts.Node, local: str, body: ts.Node) -> None:
    for c in node.named_children:
        if c.type in ("base_clause", "class_interface_clause"):
            kind = "extends" if c.type == "base_clause" else "implements"
            for b in c.named_children:
                if type_chain(b):
                    f.facts.heritage.append(HeritageFact(local, type_chain(b), line(b), kind))
    for c in body.named_children:
        if c.type == "use_declaration":  # `use Logs;` in a class: the trait's methods are ours
            for b in c.named_children:
                if type_chain(b):
                    f.facts.heritage.append(
                        HeritageFact(local, type_chain(b), line(b), "implements")
                    )


def _on_import(f: _File, caps) -> None:
    node = caps["import"]
    target = next((c for c in node.named_children if c.type in ("qualified_name", "name")), None)
    dotted = type_chain(target)
    if not dotted:
        return
    alias = node.child_by_field_name("alias")
    module, _, name = dotted.rpartition(".")
    f.facts.imports.append(
        ImportFact("", module, 0, name, text(alias) if alias else "", line(node))
    )


def _call(f: _File, node: ts.Node, callee: str, kind: str) -> None:
    args = node.child_by_field_name("arguments")
    if args is None:
        args = next((c for c in node.named_children if c.type == "arguments"), None)
    argv = list(args.named_children) if args is not None else []
    plain = []
    for i, a in enumerate(argv):
        inner = a.named_children[0] if a.type == "argument" and a.named_children else a
        if inner.type == "variable_name":
            plain.append((i, _var(inner)))
    fact = CallFact(f.scopes.at(node.start_byte), callee, line(node), kind, tuple(plain))
    f.calls.append((node.start_byte, fact, len(argv)))


def _on_call(f: _File, caps) -> None:
    node = caps["reference.call"]
    if "callee" in caps:
        # `$fn(...)` calls the value a variable holds, not a function of that name
        c = chain(caps["callee"]) if caps["callee"].type != "variable_name" else None
        _call(f, node, c or "?", "call")
        return
    recv = chain(caps["receiver"])
    name = text(caps["name"])
    _call(f, node, f"{recv}.{name}" if recv else f"?.{name}", "call")


def _on_new(f: _File, caps) -> None:
    node = caps["reference.new"]
    target = next((c for c in node.named_children if c.type in ("name", "qualified_name")), None)
    tc = type_chain(target)
    if tc in ("self", "static"):
        scope = f.scopes.at(node.start_byte)
        tc = scope.rpartition(".")[0].rpartition(".")[2] if "." in scope else ""
    if tc:
        _call(f, node, tc, "new")


def _on_assignment(f: _File, caps) -> None:
    node = caps["assignment"]
    scope = f.scopes.at(node.start_byte)
    if not scope:
        return
    name = _var(caps["left"])
    value = chain(caps["right"])
    bind_chain(f.facts, scope, name, value, line(node))


def _on_foreach(f: _File, caps) -> None:
    """`foreach ($handlers as $h)` (or `as $k => $h`): $h is an element of $handlers."""
    node = caps["binding.iteration"]
    kids = [c for c in node.named_children if c != node.child_by_field_name("body")]
    if len(kids) < 2:
        return
    target = kids[1].named_children[-1] if kids[1].type == "pair" else kids[1]
    scope = f.scopes.at(node.start_byte)
    if target.type != "variable_name" or not scope:
        return
    value = chain(kids[0])
    bind_chain(f.facts, scope, _var(target), f"{value}[i]" if value else None, line(node))


_USES = {
    "binding.iteration": _on_foreach,
    "import": _on_import,
    "reference.call": _on_call,
    "reference.new": _on_new,
    "assignment": _on_assignment,
}


def extract(source: bytes) -> FileFacts:
    return model_extract(NAME, __package__, source, _File, _definitions, _USES)


def is_test_path(path: str) -> bool:
    """PHPUnit's layout: a tests/ folder, or a `*Test.php` file."""
    parts = path.split("/")
    return any(p.lower() in ("test", "tests") for p in parts[:-1]) or parts[-1].endswith("Test.php")
