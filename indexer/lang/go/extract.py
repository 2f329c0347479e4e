"""Go: tree-sitter queries (go.scm) -> FileFacts.

Locals: functions `F`, methods `T.M` (named by their receiver type, wherever the
type is declared), types `T`, struct fields and interface methods `T.f`, local
types `F.T`, package-level vars and consts `V`; a second `init` is `init#2`.
Kinds: struct, interface, type_alias (both `type A = B` and defined types such
as `type N int`), function, method, variable (vars, consts, fields).

Language-specific facts in `extra` (all plain values, read by resolve.py):
  package: the package clause            recv:    method local -> receiver name
  results: local -> result type (a tuple for several)
  types:   field / package var local -> declared type; `type Ts []T` -> `[]T`
  aliases: local -> target of `type A = B` tparams: local -> type parameter names
  arity:   method local -> (parameters, results), for method sets
  locals:  [(scope, name, type, line)] for function-local names ("" = type not evident);
           values assigned from calls or names are BindingFacts instead.
Types are chains; `[]T` is a slice, array, map or channel whose elements are T. In value chains
`x[i]` is an element of x, and a call binding `f#1` is the second result of f.
Embedded fields and embedded interfaces are HeritageFacts ("extends"). `x.Name` where `x` is
not a local name (a package member, mostly) is a "value" ReferenceFact, so that what a file
uses through an import is written in its facts. A blank import records `init` as its name:
the package is imported for its init functions.
"""

from __future__ import annotations

import tree_sitter as ts
from tree_sitter_language_pack import get_parser

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
from codeimpact.indexer.lang.syntax_common import (
    Names,
    Scopes,
    count_lines,
    line,
    mark_errors,
    module_symbol,
    signature,
    text,
)
from codeimpact.native.runner import QueryRunner

NAME = "go"
EXTRACTOR_VERSION = 2

BUILTIN_TYPES = frozenset(
    "any bool byte comparable complex64 complex128 error float32 float64 int int8 int16 int32"
    " int64 rune string uint uint8 uint16 uint32 uint64 uintptr".split()
)
BUILTIN_FUNCS = frozenset(
    "append cap clear close complex copy delete imag len make max min new panic print println"
    " real recover".split()
)
_TEST_PREFIXES = ("Test", "Benchmark", "Fuzz", "Example")


def _runner() -> QueryRunner:
    return query_runner(NAME, __package__, "queries.scm")


# ---------------------------------------------------------------- expressions


def type_chain(node: ts.Node | None) -> str:
    """The named type a type expression denotes (pointers, type arguments dropped); "" if none."""
    while node is not None:
        t = node.type
        if t in ("type_identifier", "identifier"):
            return text(node)
        if t == "qualified_type":
            return f"{text(node.child_by_field_name('package'))}.{text(node.child_by_field_name('name'))}"
        if t == "generic_type":
            node = node.child_by_field_name("type")
        elif t in ("pointer_type", "parenthesized_type") and node.named_children:
            node = node.named_children[0]
        else:
            return ""
    return ""


def decl_chain(node: ts.Node | None) -> str:
    """type_chain, or `[]T` for a slice, array, map (of values) or channel of a named T."""
    tc = type_chain(node)
    if tc or node is None:
        return tc
    if node.type in ("slice_type", "array_type"):
        inner = node.child_by_field_name("element")
    elif node.type in ("map_type", "channel_type"):
        inner = node.child_by_field_name("value")
    else:
        return ""
    it = type_chain(inner)
    return f"[]{it}" if it else ""


def chain(node: ts.Node | None) -> str | None:
    """The chain of a value expression (see lang/syntax_common.py); None when it has no such form."""
    if node is None:
        return None
    t = node.type
    if t == "identifier":
        return text(node)
    if t == "selector_expression":
        op = chain(node.child_by_field_name("operand"))
        return f"{op}.{text(node.child_by_field_name('field'))}" if op else None
    if t == "call_expression":
        fn = callee_chain(node.child_by_field_name("function"))
        return f"{fn}()" if fn else None
    if t in ("composite_literal", "type_assertion_expression", "type_conversion_expression"):
        tc = type_chain(node.child_by_field_name("type"))
        return f"{tc}{{}}" if tc else None
    if t == "unary_expression" and node.children and node.children[0].type in ("&", "*"):
        return chain(node.child_by_field_name("operand"))
    if t == "parenthesized_expression" and node.named_children:
        return chain(node.named_children[0])
    if t == "index_expression":  # an element of a slice, array or map
        op = chain(node.child_by_field_name("operand"))
        return f"{op}[i]" if op else None
    return None


def callee_chain(node: ts.Node | None) -> str | None:
    # `F[int](x)`: an instantiated generic (or an element of a map/slice of funcs); the resolver
    # tells the two apart by what `F` is, so keep the mark.
    if node is not None and node.type == "index_expression":
        op = chain(node.child_by_field_name("operand"))
        return f"{op}[]" if op else None
    return chain(node)


def _last_name(node: ts.Node) -> str:
    if node.type == "selector_expression":
        return "?." + text(node.child_by_field_name("field"))
    return "?"


# ---------------------------------------------------------------- context


class _File:
    """What the handlers share while walking one file's matches."""

    def __init__(self, source: bytes, root: ts.Node):
        self.source = source
        self.facts = FileFacts(language=NAME, lines=count_lines(source))
        self.facts.symbols.append(module_symbol(root, source))
        self.names = Names()
        self.func_iv: list[tuple[int, int, str]] = []  # functions and methods
        self.type_iv: list[tuple[int, int, str]] = []
        self.func_scopes = Scopes([])
        self.scopes = Scopes([])
        self.receivers: list[tuple[int, int]] = []
        self.tparams: dict[str, list[str]] = {}
        self.seen_refs: set[tuple[str, str]] = set()
        self.selectors: list[tuple[str, str, str, int]] = []
        ex = self.facts.extra
        for key in ("recv", "results", "types", "aliases", "tparams", "arity"):
            ex[key] = {}
        ex["locals"] = []
        ex["package"] = ""

    def symbol(self, node, local, kind, name, sig_end=None, params=(), is_test=False):
        end = node.end_byte if sig_end is None else sig_end
        first_nl = self.source.find(b"\n", node.start_byte, end)
        if first_nl >= 0 and sig_end is None:
            end = first_nl
        self.facts.symbols.append(
            SymbolFact(
                local,
                kind,
                name,
                line(node),
                node.end_point[0] + 1,
                node.start_byte,
                node.end_byte,
                signature(self.source, node.start_byte, end),
                name[:1].isupper(),
                is_test,
                params,
                (),
            )
        )

    def local_name(self, scope: str, name: str, lineno: int, typ: str) -> None:
        if name and name != "_":
            self.facts.extra["locals"].append((scope, name, typ, lineno))

    def type_params(self, node: ts.Node, local: str) -> None:
        tp = node.child_by_field_name("type_parameters")
        if tp is None:
            return
        names = [text(n) for decl in tp.named_children for n in decl.children_by_field_name("name")]
        if names:
            self.tparams[local] = names
            self.facts.extra["tparams"][local] = names

    def is_tparam(self, scope: str, name: str) -> bool:
        while True:
            if name in self.tparams.get(scope, ()):
                return True
            if not scope:
                return False
            scope = scope.rpartition(".")[0]


def _names(node: ts.Node) -> list[ts.Node]:
    # the grammar files the commas of `a, b int` under the `name` field too
    return [n for n in node.children_by_field_name("name") if n.is_named]


def _params(node: ts.Node | None) -> list[tuple[str, str]]:
    out = []
    if node is None:
        return out
    for p in node.named_children:
        typ = decl_chain(p.child_by_field_name("type"))
        if p.type == "variadic_parameter_declaration" and typ:
            typ = typ if typ.startswith("[]") else f"[]{typ}"  # `xs ...T` is a []T
        for n in _names(p):
            out.append((text(n), typ))
    return out


def _count(node: ts.Node | None) -> int:
    """How many values a parameter or result list declares (`a, b int` is two, `int` one)."""
    if node is None:
        return 0
    if node.type != "parameter_list":
        return 1
    return sum(max(1, len(_names(p))) for p in node.named_children)


def _arity(f: _File, node: ts.Node, local: str) -> None:
    # a method set is compared by name and arity: Go's identical signatures have equal arities
    params = _count(node.child_by_field_name("parameters"))
    f.facts.extra["arity"][local] = (params, _count(node.child_by_field_name("result")))


def _walk(node: ts.Node | None):
    stack = [node] if node is not None else []
    while stack:
        n = stack.pop()
        yield n
        stack.extend(n.named_children)


def _results(node: ts.Node | None):
    """The declared result types: a chain, or a tuple of them for several results."""
    if node is None:
        return ""
    if node.type != "parameter_list":
        return decl_chain(node)
    out = []
    for p in node.named_children:
        typ = decl_chain(p.child_by_field_name("type"))
        out += [typ] * max(1, len(_names(p)))
    if len(out) == 1:
        return out[0]
    return tuple(out) if any(out) else ""


# ---------------------------------------------------------------- definitions


def _on_package(f: _File, caps) -> None:
    f.facts.extra["package"] = text(caps["name"])


def _function_like(f: _File, node, local, name, kind, is_test) -> None:
    params = _params(node.child_by_field_name("parameters"))
    body = node.child_by_field_name("body")
    f.symbol(node, local, kind, name, body.start_byte if body else None, tuple(params), is_test)
    f.func_iv.append((node.start_byte, node.end_byte, local))
    f.type_params(node, local)
    result = node.child_by_field_name("result")
    res = _results(result)
    if res:
        f.facts.extra["results"][local] = res
    if result is not None and result.type == "parameter_list":  # named results are locals
        for n, typ in _params(result):
            f.local_name(local, n, line(node), typ)


def _on_function(f: _File, caps) -> None:
    node = caps["definition.function"]
    name = text(caps["name"])
    is_test = name.startswith(_TEST_PREFIXES) and not _lower_after_prefix(name)
    _function_like(f, node, f.names.unique(name), name, "function", is_test)


def _lower_after_prefix(name: str) -> bool:
    for p in _TEST_PREFIXES:
        if name.startswith(p):
            rest = name[len(p) :]
            return bool(rest) and rest[0].islower()
    return True


def _on_method(f: _File, caps) -> None:
    node = caps["definition.method"]
    name = text(caps["name"])
    recv = caps["receiver"]
    decl = recv.named_children[0] if recv.named_children else None
    typ = type_chain(decl.child_by_field_name("type")) if decl is not None else ""
    if not typ:
        return
    local = f.names.unique(f"{typ}.{name}")
    f.receivers.append((recv.start_byte, recv.end_byte))
    _function_like(f, node, local, name, "method", False)
    _arity(f, node, local)
    # `func (l *List[T]) Push(v T)`: the receiver's type arguments are the method's parameters
    rtype = decl.child_by_field_name("type")
    targs = [
        text(n)
        for n in _walk(rtype)
        if n.type == "type_identifier" and n.parent is not None and n.parent.type == "type_elem"
    ]
    if targs:
        f.tparams[local] = f.tparams.get(local, []) + targs
        f.facts.extra["tparams"][local] = f.tparams[local]
    rname = decl.child_by_field_name("name")
    if rname is not None and text(rname) != "_":
        f.facts.extra["recv"][local] = text(rname)


_TYPE_KIND = {"struct_type": "struct", "interface_type": "interface"}


def _on_type_spec(f: _File, caps, alias: bool = False) -> None:
    spec = caps["definition.type_alias" if alias else "definition.type"]
    name = text(caps["name"])
    typ = caps["type"]
    parent = f.func_scopes.at(spec.start_byte)
    local = f.names.unique(f"{parent}.{name}" if parent else name)
    decl = spec.parent
    node = (
        decl
        if decl is not None and decl.type == "type_declaration" and decl.named_child_count == 1
        else spec
    )
    kind = "type_alias" if alias else _TYPE_KIND.get(typ.type, "type_alias")
    f.symbol(node, local, kind, name)
    f.type_iv.append((node.start_byte, node.end_byte, local))
    f.type_params(spec, local)
    if alias:
        target = type_chain(typ)
        if target:
            f.facts.extra["aliases"][local] = target
    elif kind == "type_alias" and decl_chain(typ).startswith("[]"):
        f.facts.extra["types"][local] = decl_chain(typ)  # `type Commands []*Command`
    elif typ.type == "struct_type":
        _struct_fields(f, typ, local)
    elif typ.type == "interface_type":
        _interface_elems(f, typ, local)


def _on_type_alias(f: _File, caps) -> None:
    _on_type_spec(f, caps, alias=True)


def _struct_fields(f: _File, struct: ts.Node, owner: str) -> None:
    for lst in struct.named_children:
        if lst.type != "field_declaration_list":
            continue
        for fd in lst.named_children:
            if fd.type != "field_declaration":
                continue
            ftype = fd.child_by_field_name("type")
            typ = decl_chain(ftype)
            names = _names(fd)
            if not names:  # embedded: its fields and methods are promoted
                typ = type_chain(ftype)
                if typ:
                    f.facts.heritage.append(HeritageFact(owner, typ, line(fd), "extends"))
                continue
            for n in names:
                local = f.names.unique(f"{owner}.{text(n)}")
                f.symbol(fd, local, "variable", text(n))
                if typ:
                    f.facts.extra["types"][local] = typ


def _interface_elems(f: _File, iface: ts.Node, owner: str) -> None:
    for el in iface.named_children:
        if el.type == "method_elem":
            name = text(el.child_by_field_name("name"))
            local = f.names.unique(f"{owner}.{name}")
            params = _params(el.child_by_field_name("parameters"))
            f.symbol(el, local, "method", name, params=tuple(params))
            _arity(f, el, local)
            res = _results(el.child_by_field_name("result"))
            if res:
                f.facts.extra["results"][local] = res
        elif el.type == "type_elem" and el.named_child_count == 1:
            # an embedded interface; unions and `~T` approximations constrain, they embed nothing
            typ = type_chain(el.named_children[0])
            if typ:
                f.facts.heritage.append(HeritageFact(owner, typ, line(el), "extends"))


def _on_var_spec(f: _File, caps, key: str = "definition.variable") -> None:
    spec = caps[key]
    scope = f.func_scopes.at(spec.start_byte)
    names = _names(spec)
    typ = decl_chain(spec.child_by_field_name("type"))
    value = spec.child_by_field_name("value")
    values = value.named_children if value is not None else []
    lineno = line(spec)
    keyword = "var " if key == "definition.variable" else "const "
    for i, n in enumerate(names):
        name = text(n)
        if name == "_":
            continue
        if scope:
            if typ:
                f.local_name(scope, name, lineno, typ)
            else:
                _bind(f, scope, name, _paired(values, len(names), i), lineno, index=i)
            continue
        local = f.names.unique(name)
        sig = keyword + signature(f.source, spec.start_byte, spec.end_byte).split("\n")[0]
        f.facts.symbols.append(
            SymbolFact(
                local,
                "variable",
                name,
                lineno,
                spec.end_point[0] + 1,
                spec.start_byte,
                spec.end_byte,
                sig[:300],
                name[:1].isupper(),
                False,
                (),
                (),
            )
        )
        if typ:
            f.facts.extra["types"][local] = typ
        else:
            val = _paired(values, len(names), i)
            if val is not None:
                _bind(f, "", name, val, lineno, declare=False)


def _on_const_spec(f: _File, caps) -> None:
    _on_var_spec(f, caps, "definition.constant")


def _paired(values: list, n_names: int, i: int):
    if len(values) == n_names:
        return values[i]
    if len(values) == 1:  # `a, err := f()`: the results of one call
        return values[0]
    return None


def _bind(f, scope, name, value, lineno, declare: bool = True, index: int = 0) -> None:
    """Record what a declared name holds: an evident type, a call result or another name.

    `a, err := f()` binds err to `f#1`, the second result of f.
    """
    typ = ""
    if index and (value is None or value.type != "call_expression"):
        value = None  # `v, ok := m[k]`, `v, ok := x.(T)`: the second value is a bool
    if value is not None:
        t = value.type
        if t == "call_expression":
            fn = value.child_by_field_name("function")
            args = value.child_by_field_name("arguments")
            if fn is not None and text(fn) == "new" and args is not None and args.named_children:
                typ = type_chain(args.named_children[0])  # new(T) is a *T
            else:
                c = callee_chain(fn)
                if c:
                    c = f"{c}#{index}" if index else c
                    f.facts.bindings.append(BindingFact(scope, name, c, True, lineno))
                    return
        elif t in ("identifier", "selector_expression"):
            c = chain(value)
            if c:
                f.facts.bindings.append(BindingFact(scope, name, c, False, lineno))
                return
        else:
            c = chain(value)
            if c and c.endswith("{}"):
                typ = c[:-2]
    if declare:
        f.local_name(scope, name, lineno, typ)
    elif typ:
        f.facts.extra["types"].setdefault(name, typ)


# ---------------------------------------------------------------- uses


def _on_import(f: _File, caps) -> None:
    node = caps["import"]
    path = text(caps["path"]).strip('"`')
    alias = text(node.child_by_field_name("name"))
    name = "init" if alias == "_" else ""
    f.facts.imports.append(ImportFact("", path, 0, name, alias, line(node)))


def _on_call(f: _File, caps) -> None:
    call = caps["reference.call"]
    fn = caps["callee"]
    if fn.type == "func_literal":
        return  # an immediately called closure: its body is already part of this scope
    scope = f.scopes.at(call.start_byte)
    c = callee_chain(fn) or _last_name(fn)
    args = []
    for i, a in enumerate(caps["arguments"].named_children):
        if a.type in ("identifier", "selector_expression"):
            ac = chain(a)
            if ac:
                args.append((i, ac))
    f.facts.calls.append(CallFact(scope, c, line(call), "call", tuple(args)))


def _reference(f: _File, node: ts.Node, target: str) -> None:
    for start, end in f.receivers:
        if start <= node.start_byte < end:
            return  # a method's receiver type is its container, not a use
    scope = f.scopes.at(node.start_byte)
    if f.is_tparam(scope, target.partition(".")[0]):
        return
    key = (scope, target)
    if key not in f.seen_refs:
        f.seen_refs.add(key)
        f.facts.references.append(ReferenceFact(scope, target, line(node), "annotation"))


def _on_typeref(f: _File, caps) -> None:
    node = caps["reference.type"]
    if node.type == "qualified_type":
        _reference(f, node, type_chain(node))
        return
    parent = node.parent
    if parent is not None:
        if parent.type == "qualified_type":
            return
        if parent.type in ("type_spec", "type_alias") and node == parent.child_by_field_name(
            "name"
        ):
            return
    name = text(node)
    if name not in BUILTIN_TYPES:
        _reference(f, node, name)


def _on_selector(f: _File, caps) -> None:
    node = caps["reference.member"]
    parent = node.parent
    if parent is not None and parent.type == "call_expression":
        if parent.child_by_field_name("function") == node:
            return  # a call: already a CallFact
    scope = f.scopes.at(node.start_byte)
    f.selectors.append((scope, text(caps["receiver"]), text(caps["name"]), line(node)))


def _selector_references(f: _File) -> None:
    """`x.Name` uses where `x` is no local name of the scope: package members, mostly."""
    local: dict[str, set[str]] = {}
    for scope, name, _typ, _line in f.facts.extra["locals"]:
        local.setdefault(scope, set()).add(name)
    for b in f.facts.bindings:
        local.setdefault(b.scope, set()).add(b.name)
    for s in f.facts.symbols:
        names = local.setdefault(s.local, set())
        names.update(n for n, _t in s.params)
    for m, r in f.facts.extra["recv"].items():
        local.setdefault(m, set()).add(r)
    for scope, op, fld, lineno in f.selectors:
        if op in local.get(scope, ()):
            continue
        target = f"{op}.{fld}"
        if (scope, target) not in f.seen_refs:
            f.seen_refs.add((scope, target))
            f.facts.references.append(ReferenceFact(scope, target, lineno, "value"))


def _on_short_var(f: _File, caps) -> None:
    node = caps["binding.local"]
    scope = f.scopes.at(node.start_byte)
    lhs = [n for n in caps["left"].named_children if n.type == "identifier"]
    rhs = caps["right"].named_children
    for i, n in enumerate(lhs):
        index = i if len(rhs) == 1 and len(lhs) > 1 else 0
        _bind(f, scope, text(n), _paired(rhs, len(lhs), i), line(node), index=index)


def _on_range(f: _File, caps) -> None:
    """`for i, v := range xs`: v is an element of xs; i (a key or an index) is not typed."""
    node = caps["binding.iteration"]
    scope = f.scopes.at(node.start_byte)
    names = [n for n in caps["left"].named_children if n.type == "identifier"]
    over = chain(node.child_by_field_name("right"))
    for i, n in enumerate(names):
        name = text(n)
        if i == 1 and over and name != "_":
            f.facts.bindings.append(BindingFact(scope, name, f"{over}[i]", False, line(node)))
        else:
            f.local_name(scope, name, line(node), "")


def _on_untyped_names(f: _File, caps) -> None:
    node = caps["left"]
    scope = f.scopes.at(node.start_byte)
    for n in node.named_children:
        if n.type == "identifier":
            f.local_name(scope, text(n), line(node), "")


def _on_func_literal(f: _File, caps) -> None:
    node = caps["scope.lambda"]
    scope = f.scopes.at(node.start_byte)
    for name, typ in _params(caps["parameters"]):
        f.local_name(scope, name, line(node), typ)


# Handlers run by phase: functions first (their spans are the scopes of everything else), then
# types (a type may be local to a function), then package-level names, then uses.
_PHASES: tuple[dict, ...] = (
    {"package": _on_package, "definition.function": _on_function, "definition.method": _on_method},
    {"definition.type": _on_type_spec, "definition.type_alias": _on_type_alias},
    {"definition.variable": _on_var_spec, "definition.constant": _on_const_spec},
    {
        "import": _on_import,
        "reference.call": _on_call,
        "reference.type": _on_typeref,
        "reference.member": _on_selector,
        "binding.local": _on_short_var,
        "binding.iteration": _on_range,
        "binding.pattern": _on_untyped_names,
        "scope.lambda": _on_func_literal,
    },
)
_HANDLERS = {name: h for phase in _PHASES for name, h in phase.items()}
_PHASE_OF = {h: i for i, phase in enumerate(_PHASES) for h in phase.values()}


def extract(source: bytes) -> FileFacts:
    root = get_parser(NAME).parse(source).root_node
    f = _File(source, root)
    by_phase: list[list] = [[] for _ in _PHASES]
    for construct, caps in _runner().matches(root):
        handler = _HANDLERS[construct]
        by_phase[_PHASE_OF[handler]].append((handler, caps))
    for i, matches in enumerate(by_phase):
        if i == 1:
            f.func_scopes = Scopes(f.func_iv)
        if i == 3:
            f.scopes = Scopes(f.func_iv + f.type_iv)
        for handler, caps in matches:
            handler(f, caps)
    _selector_references(f)
    f.facts.symbols.sort(key=lambda s: (s.local != "", s.start_byte))
    mark_errors(root, NAME, f.facts)
    return f.facts


def is_test_path(path: str) -> bool:
    return path.endswith("_test.go")
