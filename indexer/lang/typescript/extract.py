"""TypeScript / JavaScript extraction: tree-sitter query matches -> FileFacts.

One query per grammar, composed from the .scm files beside this module
(javascript.scm for what all ECMAScript grammars share, typescript.scm,
javascript_fields.scm, javascript_jsx.scm). The outermost capture of each
pattern names its handler; definitions are placed by a stack over their
start-sorted nodes, other facts find their scope by binary search over body
intervals (no parent walks).

Conventions of these facts, beyond lang/api.py (resolve.py reads them):
- ImportFact.module is the specifier as written. level 0 is an import: name
  is "default" for a default import, "" for a namespace import, `require()`,
  `import x = require()` or a side-effect import; alias is the bound name.
  level 1 is a re-export, which binds no local name (kept among the imports
  so the incremental plan sees what it depends on): name "*" is
  `export * from`, "" a namespace (`export * as ns from`,
  `exports.ns = require()`; alias is the exported name), "=" is
  `module.exports = require()`, else `export { name as alias } from`.
- CallFact.kind is "call", "new", "jsx" (a rendered component) or "decorator".
  Chains use `this` / `super`; `f().g` marks a call result, as for Python.
- BindingFact.value ":T" (and ReturnFact.value ":T") means "a value of type T":
  an annotation, `as T`, or a declared return type (Promise<T> unwrapped).
  `this.x` bindings come from assignments, typed fields, constructor
  parameter properties and interface property signatures.
- extra["exports"]: [exported name, local name] pairs; "default" is the
  default export, "=" `export =` / `module.exports =`.
- extra["unbound"]: top-level definitions that bind no name in the module
  scope (`exports.f = function () {}`, an anonymous `export default`).
"""

from __future__ import annotations

from functools import cache
from operator import itemgetter

import tree_sitter as ts

from codeimpact.indexer.lang.api import (
    BindingFact,
    CallFact,
    FileFacts,
    ImportFact,
    ReferenceFact,
    ReturnFact,
    count_lines,
)
from codeimpact.indexer.lang.grammars import get_language, get_parser
from codeimpact.indexer.lang.queries import query_runner
from codeimpact.indexer.lang.typescript.definitions import DEF_KIND, Definitions
from codeimpact.indexer.lang.typescript.syntax import (
    WS,
    _plain_seen,
    chain,
    chains_next_file,
    node_text,
    object_pairs,
    object_pattern_pairs,
    require_spec,
    specifier,
    string_value,
    type_chain,
    value_binding,
)
from codeimpact.native.runner import QueryRunner, native_syntax

_QUERY_FILES = {
    "typescript": ("javascript.scm", "typescript.scm"),
    "tsx": ("javascript.scm", "typescript.scm", "javascript_jsx.scm"),
    "javascript": ("javascript.scm", "javascript_fields.scm", "javascript_jsx.scm"),
}

_FUNCTION_VALUES = frozenset(
    ["arrow_function", "function_expression", "generator_function", "function", "class"]
)
# parents whose `name` child is a declaration, not a use of a type
_TYPE_DECLS = frozenset(
    [
        "class_declaration",
        "abstract_class_declaration",
        "class",
        "interface_declaration",
        "type_alias_declaration",
        "type_parameter",
        "enum_declaration",
    ]
)
_HERITAGE_NODES = frozenset(["implements_clause", "extends_type_clause", "extends_clause"])
_PLAIN_TYPES = frozenset(["identifier", "member_expression"])  # arguments kept by their chain


def _read_call(fn: ts.Node, args: ts.Node | None) -> tuple[str | None, tuple]:
    """A call's callee chain and its plain arguments as ((index, chain), ...): what
    native/call_sites.c reads for every site of a file at once (the reference)."""
    c = chain(fn)
    out = []
    if args is not None and args.type == "arguments":
        for i, a in enumerate(args.named_children):
            if a.type in _PLAIN_TYPES:
                ac = chain(a)
                if ac:
                    out.append((i, ac))
    return c, tuple(out)


@cache
def _call_sites(grammar: str):
    """The native reader of the grammar's call sites (native/call_sites.c)."""
    ext = native_syntax()
    if ext is None:
        return None
    # the rules of `call_site` and `_add_call`, as data: a called function literal is no site,
    # `import(...)` and `require(...)` go to `_Extraction.required`, a callee without a chain
    # keeps its member
    return ext.CallSites(get_language(grammar), tuple(sorted(_PLAIN_TYPES)), "arguments",
                         "arguments", literal_types=tuple(sorted(_FUNCTION_VALUES)),
                         wrapper_types=("parenthesized_expression",),
                         member_types=("member_expression",), member_field="property",
                         hooked_types=("import",), name_types=("identifier",),
                         hooked_names=("require",), callee_field="function")  # fmt: skip


def _runner(grammar: str, native: bool = True) -> QueryRunner:
    return query_runner(grammar, __package__, *_QUERY_FILES[grammar], native=native)


# constructs -> the handlers' keys, where one construct is one key
_KEY_OF = {
    "definition.interface": "interface",
    "definition.enum": "enum",
    "definition.type_alias": "type_alias",
    "definition.namespace": "namespace",
    "definition.field": "field",
    "definition.property": "property_sig",
    "binding.local": "declarator",
    "assignment": "assign",
    "reference.call": "call",
    "reference.new": "new",
    "reference.render": "jsx",
    "reference.type": "type_ref",
    "decorator": "decorator",
    "import": "import",
    "export": "export",
    "return": "return",
    "error": "error",
}


def _key_of(construct: str, node: ts.Node, caps: dict) -> str:
    """The handlers' key of a match: a definition construct covers several forms, told apart
    by the defining node (a declarator binds a function or class value to a name; a field
    holds a function; a signature has no body) and by where the value sits."""
    if construct == "definition.class":
        return "var_class" if node.type == "variable_declarator" else "class"
    if construct == "definition.function":
        if node.type == "variable_declarator":
            value = caps["value"].parent
            return (
                "var_wrapped" if value is not None and value.type == "arguments" else "var_function"
            )
        return "function_sig" if node.type == "function_signature" else "function"
    if construct == "definition.method":
        if node.type in ("method_signature", "abstract_method_signature"):
            return "method_sig"
        if node.type in ("public_field_definition", "field_definition"):
            return "field_function"
        return "method"
    if construct == "definition.value":
        return "assign_def" if node.type == "assignment_expression" else "default_def"
    return _KEY_OF[construct]


class _Extraction(Definitions):
    """The state of one file's extraction; the handlers below fill `facts`."""

    def __init__(self, grammar: str, source: bytes):
        self.source = source
        tree = get_parser(grammar).parse(source)
        self.root = tree.root_node
        self.facts = FileFacts(
            language=grammar,
            lines=count_lines(source),
        )
        self.exports: list[list[str]] = []
        self.unbound: list[str] = []  # exports.f = function () {}: defines f, binds no name
        self.consumed: set[int] = set()  # require() calls already read as imports
        self.def_nodes: set[int] = set()  # start bytes of declarators that are definitions
        self.local_at: dict[int, str] = {}  # definition node start -> local
        self.kind_of: dict[str, str] = {"": "module"}
        self.add_call = self.facts.calls.append  # (FileFacts.calls is a descriptor: read once)
        self.has_error = self.root.has_error

    # ------------------------------------------------------------ other facts
    def decorators(self, decs: list[ts.Node]) -> dict[int, str]:
        """Decorator call start -> the decorated definition, whose scope the call counts in."""
        out: dict[int, str] = {}
        for dec in decs:
            target = dec.parent
            if target is not None and target.type == "class_body":
                target = dec.next_named_sibling
                while target is not None and target.type == "decorator":
                    target = target.next_named_sibling
            elif target is not None and target.type == "export_statement":
                target = target.child_by_field_name("declaration")
            scope = self.local_at.get(target.start_byte) if target is not None else None
            if scope is None:
                scope = self.scopes.at(dec.start_byte)
            expr = dec.named_children[0] if dec.named_children else None
            if expr is None:
                continue
            if expr.type == "call_expression":
                out[expr.start_byte] = scope
            else:
                c = chain(expr)
                if c:
                    self.facts.calls.append(
                        CallFact(scope, c, expr.start_point[0] + 1, "decorator", ())
                    )
        return out

    def declarator(self, node: ts.Node, name: ts.Node) -> None:
        if node.start_byte in self.def_nodes:
            return
        value = node.child_by_field_name("value")
        req = require_spec(value)
        if req is None and value is not None and value.type == "member_expression":
            # const x = require("m").x
            inner = require_spec(value.child_by_field_name("object"))
            prop = value.child_by_field_name("property")
            if inner is not None and prop is not None:
                self.consumed.add(inner[1].start_byte)
                bound = node_text(name) if name.type == "identifier" else ""
                if bound:
                    scope, line = self.scopes.at(node.start_byte), node.start_point[0] + 1
                    member = node_text(prop)
                    self.facts.imports.append(
                        ImportFact(
                            scope, inner[0], 0, member, "" if bound == member else bound, line
                        )
                    )
                return
        if req is not None:
            spec, call = req
            self.consumed.add(call.start_byte)
            scope, line = self.scopes.at(node.start_byte), node.start_point[0] + 1
            if name.type == "identifier":
                self.facts.imports.append(ImportFact(scope, spec, 0, "", node_text(name), line))
            elif name.type == "object_pattern":
                for imported, bound in object_pattern_pairs(name):
                    self.facts.imports.append(
                        ImportFact(
                            scope, spec, 0, imported, "" if bound == imported else bound, line
                        )
                    )
            else:
                self.facts.imports.append(ImportFact(scope, spec, 0, "", "", line))
            return
        if name.type != "identifier" or (value is not None and value.type in _FUNCTION_VALUES):
            return
        v = value
        while v is not None and v.type == "assignment_expression":
            if chain(v.child_by_field_name("left")) == "module.exports":
                # var app = exports = module.exports = {}: the module's value is `app`
                self.exports[:] = [e for e in self.exports if e[0] != "="]
                self.exports.append(["=", node_text(name)])
                return
            v = v.child_by_field_name("right")
        typ = type_chain(node.child_by_field_name("type"))
        vb = (":" + typ, False) if typ else value_binding(value)
        if vb is not None:
            scope, line = self.scopes.at(node.start_byte), node.start_point[0] + 1
            self.facts.bindings.append(BindingFact(scope, node_text(name), vb[0], vb[1], line))

    def assign(self, node: ts.Node, lhs: ts.Node, rhs: ts.Node) -> None:
        target = chain(lhs)
        if target is None or "()" in target:
            return
        is_exports = target == "module.exports"
        member = ""
        if target.startswith("exports.") and target.count(".") == 1:
            member = target[8:]
        elif target.startswith("module.exports.") and target.count(".") == 2:
            member = target[15:]
        if is_exports or member:
            req = require_spec(rhs)
            if req is not None:
                self.consumed.add(req[1].start_byte)
                self._reexport(req[0], "=" if is_exports else "", member, node.start_point[0] + 1)
            elif rhs.type in ("identifier", "member_expression"):
                c = chain(rhs)
                if c:
                    self.exports.append(["=" if is_exports else member, c])
            elif is_exports and rhs.type == "object":
                for key, val in object_pairs(rhs):
                    self.exports.append([key, val])
            return
        if rhs.type in _FUNCTION_VALUES:
            return
        if target.count(".") == 0 or (target.startswith("this.") and target.count(".") == 1):
            vb = value_binding(rhs)
            if vb is not None:
                scope, line = self.scopes.at(node.start_byte), node.start_point[0] + 1
                self.facts.bindings.append(BindingFact(scope, target, vb[0], vb[1], line))

    def field(self, node: ts.Node, name_node: ts.Node) -> None:
        name = node_text(name_node)
        scope = self.scopes.at(node.start_byte)
        line = node.start_point[0] + 1
        typ = type_chain(node.child_by_field_name("type"))
        if typ:
            vb = (":" + typ, False)
        else:
            vb = value_binding(node.child_by_field_name("value"))
        if vb is not None and name and not name.startswith(("'", '"', "[")):
            self.facts.bindings.append(BindingFact(scope, "this." + name, vb[0], vb[1], line))

    def call(
        self, node: ts.Node, fn: ts.Node, args: ts.Node | None, decorator_scope: dict[int, str]
    ) -> None:
        c, out = _read_call(fn, args)
        self.call_site(node, fn, node.start_byte, node.start_point[0] + 1, c, out, decorator_scope)

    def call_site(
        self,
        node: ts.Node,
        fn: ts.Node,
        start: int,
        line: int,
        c: str | None,
        out: tuple,
        decorator_scope: dict[int, str],
    ) -> None:
        """A call whose callee chain `c` and plain arguments `out` are read (`_read_call`, or
        native/call_sites.c for every site of the file at once)."""
        fn_type = fn.type
        if (fn_type == "import" or (fn_type == "identifier" and c == "require")) and self.required(
            node, fn, start, line
        ):
            return
        inner, inner_type = fn, fn_type
        while inner_type == "parenthesized_expression" and inner.named_children:
            inner = inner.named_children[0]
            inner_type = inner.type
        if inner_type in _FUNCTION_VALUES:
            return  # an immediately invoked function literal: its body is already in scope
        scope = decorator_scope.get(start) if decorator_scope else None
        kind = "call" if scope is None else "decorator"
        if scope is None:
            scope = self.scopes.at(start)
        self._add_call(scope, fn, line, kind, c, out)

    def required(self, node: ts.Node, fn: ts.Node, start: int, line: int) -> bool:
        """A call of `import` or `require`: the import of a string specifier (once: a
        declarator may have read it), and whether it is no call site (an `import(x)` never is;
        `require(x)` of no string is called like any function). native/call_sites.c calls it
        for those sites too."""
        req = require_spec(node)
        if req is not None and start not in self.consumed:
            scope = self.scopes.at(start)
            self.facts.imports.append(ImportFact(scope, req[0], 0, "", "", line))
        return fn.type == "import" or req is not None

    def new(self, node: ts.Node, callee: ts.Node) -> None:
        c, out = _read_call(callee, node.child_by_field_name("arguments"))
        self.new_site(node, callee, node.start_byte, node.start_point[0] + 1, c, out)

    def new_site(
        self, node: ts.Node, callee: ts.Node, start: int, line: int, c: str | None, out: tuple
    ) -> None:
        self._add_call(self.scopes.at(start), callee, line, "new", c, out)

    def jsx(self, node: ts.Node, name: ts.Node) -> None:
        c = chain(name)
        # lower-case tags are intrinsic elements (<div>), not components
        if c and c[:1].isupper() or (c and "." in c):
            line = node.start_point[0] + 1
            self.facts.calls.append(CallFact(self.scopes.at(node.start_byte), c, line, "jsx", ()))

    def _add_call(
        self, scope: str, fn: ts.Node, line: int, kind: str, c: str | None, out: tuple
    ) -> None:
        if c is None:
            # keep the name so the site is counted as unresolved, never guessed
            prop = fn.child_by_field_name("property") if fn.type == "member_expression" else None
            c = "?." + node_text(prop) if prop is not None else "?"
        self.add_call(CallFact(scope, c, line, kind, out))

    def import_statement(self, node: ts.Node) -> None:
        scope = self.scopes.at(node.start_byte)
        line = node.start_point[0] + 1
        spec = string_value(node.child_by_field_name("source"))
        imports = self.facts.imports
        for child in node.named_children:
            if child.type == "import_require_clause":  # import x = require("m")
                ident = next((c for c in child.named_children if c.type == "identifier"), None)
                src = string_value(child.child_by_field_name("source"))
                if ident is not None and src:
                    imports.append(ImportFact(scope, src, 0, "", node_text(ident), line))
                return
        if not spec:
            return
        clause = next((c for c in node.named_children if c.type == "import_clause"), None)
        if clause is None:
            imports.append(ImportFact(scope, spec, 0, "", "", line))  # side effects only
            return
        for c in clause.named_children:
            if c.type == "identifier":
                imports.append(ImportFact(scope, spec, 0, "default", node_text(c), line))
            elif c.type == "namespace_import":
                ident = next((x for x in c.named_children if x.type == "identifier"), None)
                imports.append(ImportFact(scope, spec, 0, "", node_text(ident), line))
            elif c.type == "named_imports":
                for s in c.named_children:
                    if s.type == "import_specifier":
                        name, alias = specifier(node_text(s))
                        imports.append(ImportFact(scope, spec, 0, name, alias, line))

    def _reexport(self, spec: str, name: str, alias: str, line: int) -> None:
        self.facts.imports.append(ImportFact("", spec, 1, name, alias, line))

    def export_statement(self, node: ts.Node) -> None:
        line = node.start_point[0] + 1
        spec = string_value(node.child_by_field_name("source"))
        clause = next((c for c in node.named_children if c.type == "export_clause"), None)
        if spec:
            ns = next((c for c in node.named_children if c.type == "namespace_export"), None)
            if ns is not None:
                self._reexport(spec, "", node_text(ns.named_children[-1]), line)
            elif clause is not None:
                for s in clause.named_children:
                    if s.type == "export_specifier":
                        name, alias = specifier(node_text(s))
                        self._reexport(spec, name, alias, line)
            else:
                self._reexport(spec, "*", "", line)
            return
        if clause is not None:
            for s in clause.named_children:
                if s.type == "export_specifier":
                    name, alias = specifier(node_text(s))
                    self.exports.append([alias or name, name])
            return
        value = node.child_by_field_name("value")
        if value is not None and value.type in ("identifier", "member_expression"):
            c = chain(value)
            if c:
                self.exports.append(["default", c])
            return
        if any(c.type == "=" for c in node.children):  # export = X
            target = next((c for c in node.named_children if c.type == "identifier"), None)
            if target is not None:
                self.exports.append(["=", node_text(target)])

    def returns(self, node: ts.Node, value: ts.Node) -> None:
        scope = self.scopes.at(node.start_byte)
        if self.kind_of.get(scope) not in ("function", "method"):
            return
        vb = value_binding(value)
        if vb is not None:
            self.facts.returns.append(ReturnFact(scope, vb[0], vb[1], node.start_point[0] + 1))

    def type_refs(self, nodes: list[ts.Node]) -> None:
        seen: set[tuple[str, str]] = set()
        for node in nodes:
            parent = node.parent
            if parent is None or parent.type == "nested_type_identifier":
                continue
            if parent.type in _TYPE_DECLS and parent.child_by_field_name("name") == node:
                continue
            if parent.type in _HERITAGE_NODES or (
                parent.type == "generic_type"
                and parent.parent is not None
                and parent.parent.type in _HERITAGE_NODES
            ):
                continue  # heritage has its own edges
            target = WS.sub("", node_text(node))
            scope = self.sig_scopes.at(node.start_byte)
            if (scope, target) in seen:
                continue
            seen.add((scope, target))
            self.facts.references.append(
                ReferenceFact(scope, target, node.start_point[0] + 1, "annotation")
            )


# handler key -> the captures its handler reads after the construct's node (definitions read
# theirs from a dict: DEF_KIND)
_PARTS = {
    "declarator": ("name",),
    "assign": ("left", "right"),
    "field": ("name",),
    "property_sig": ("name",),
    "call": (),  # (its parts are its fields: _call_parts)
    "new": ("callee",),
    "jsx": ("callee",),
    "return": ("value",),
    "decorator": (),
    "import": (),
    "export": (),
    "type_ref": (),
    "error": (),
}


def _call_parts(calls: list[ts.Node]) -> list[tuple[ts.Node, ts.Node, ts.Node]]:
    """(call, callee, arguments) of the call nodes whose arguments are an argument list (not
    a tagged template), in their arguments' order: that of the matches of a pattern that
    captures them, which the facts keep (native/call_sites.c reads them so)."""
    out = []
    for node in calls:
        fn, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
        if fn is not None and args is not None and args.type == "arguments":
            out.append((node, fn, args))
    out.sort(key=lambda site: site[2].start_byte)
    return out


@cache
def _plans(runner: QueryRunner) -> list:
    """Per pattern of a runner's query, (handler key, reader of its parts), made at the
    pattern's first match: a pattern's key is fixed by the pattern (its root's node type, and
    where its @value sits), so _key_of runs once per pattern, not per match."""
    return [None] * runner.pattern_count


def _plan(runner: QueryRunner, pattern: int, nodes: tuple) -> tuple:
    names = runner.names(pattern)
    construct = runner.construct(pattern)
    caps = dict(zip(names, nodes))
    key = _key_of(construct, caps[construct], caps)
    if key in DEF_KIND:
        return key, None
    at = [names.index(construct)] + [names.index(part) for part in _PARTS[key]]
    # a handler of no parts gets its node, the others a tuple (node, part, ...)
    return key, itemgetter(*at)


def extract(grammar: str, source: bytes) -> FileFacts:
    """Facts of one TS/TSX/JS file; bad syntax gives a `partial` result, never an exception."""
    return extract_with(_runner(grammar), grammar, source)


def extract_with(runner: QueryRunner, grammar: str, source: bytes) -> FileFacts:
    """`extract` over the grammar's query run by `runner` (the native walk or py-tree-sitter's
    QueryCursor: the tests compare the two)."""
    chains_next_file()
    ex = _Extraction(grammar, source)
    plans = _plans(runner)
    defs: list[tuple[str, ts.Node, dict]] = []
    by_key: dict[str, list] = {key: [] for key in _PARTS}
    for p, nodes in runner.tuples(ex.root):
        plan = plans[p]
        if plan is None:
            plan = plans[p] = _plan(runner, p, nodes)
        key, parts = plan
        if parts is None:
            names = runner.names(p)
            caps = dict(zip(names, nodes))
            defs.append((key, caps[runner.construct(p)], caps))
        else:
            by_key[key].append(parts(nodes))
    declarators = by_key["declarator"]
    ex.definitions(defs, declarators)
    decorator_scope = ex.decorators(by_key["decorator"])
    for node, name in declarators:
        ex.declarator(node, name)
    for node, lhs, rhs in by_key["assign"]:
        ex.assign(node, lhs, rhs)
    for key in ("field", "property_sig"):
        for node, name in by_key[key]:
            ex.field(node, name)
    calls, news = by_key["call"], by_key["new"]
    reader = _call_sites(grammar) if runner.native else None
    if reader is None:
        for node, fn, args in _call_parts(calls):
            ex.call(node, fn, args, decorator_scope)
        for node, callee in news:
            ex.new(node, callee)
    else:  # every site's fact made in one C call by the rules of call_site and new_site (the
        # chains are still `chain`'s: _plain_seen)
        out, items = ex.facts.calls, ex.scopes.items
        reader.facts(calls, source, _plain_seen, chain, items, out, CallFact, "call",
                     decorators=decorator_scope, decorated="decorator", hook=ex.required,
                     literals=True)  # fmt: skip
        reader.facts(news, source, _plain_seen, chain, items, out, CallFact, "new")
    for node, name in by_key["jsx"]:
        ex.jsx(node, name)
    for node in by_key["import"]:
        ex.import_statement(node)
    for node in by_key["export"]:
        ex.export_statement(node)
    for node, value in by_key["return"]:
        ex.returns(node, value)
    ex.type_refs(by_key["type_ref"])
    f = ex.facts
    exported = {local for name, local in ex.exports if name}
    for i, s in enumerate(f.symbols):
        if s.local in exported and not s.exported:
            f.symbols[i] = s._replace(exported=True)  # module.exports = {f}, exports.f = f
    f.calls.sort(key=lambda c: (c.line, c.scope))
    f.imports.sort(key=lambda i: i.line)
    if ex.exports:
        f.extra["exports"] = ex.exports
    if ex.unbound:
        f.extra["unbound"] = sorted(set(ex.unbound))
    if ex.has_error or by_key["error"]:
        f.status = "partial"
        err = [node.start_point[0] + 1 for node in by_key["error"]]
        f.error = f"syntax error at line {min(err)}" if err else "syntax error"
    return f
