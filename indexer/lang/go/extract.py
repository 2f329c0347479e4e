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

from codeimpact.indexer.lang.api import (
    FileFacts,
    HeritageFact,
)
from codeimpact.indexer.lang.go.syntax import (
    decl_chain,
    decl_names,
    params_of,
    results_of,
    type_chain,
    value_count,
    walk,
)
from codeimpact.indexer.lang.go.uses import (
    bind_value,
    on_call,
    on_func_literal,
    on_import,
    on_range,
    on_selector,
    on_short_var,
    on_typeref,
    on_untyped_names,
    paired,
    selector_references,
)
from codeimpact.indexer.lang.grammars import get_parser
from codeimpact.indexer.lang.queries import query_runner
from codeimpact.indexer.lang.syntax_common import (
    Names,
    Scopes,
    count_lines,
    line,
    mark_errors,
    module_symbol,
    signature,
    symbol_fact,
    text,
)
from codeimpact.native.runner import QueryRunner

NAME = "go"
EXTRACTOR_VERSION = 2

_TEST_PREFIXES = ("Test", "Benchmark", "Fuzz", "Example")


def _runner() -> QueryRunner:
    return query_runner(NAME, __package__, "queries.scm")


# ---------------------------------------------------------------- context


class GoFile:
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
        self.facts.symbols.append(
            symbol_fact(
                self.source,
                node,
                local,
                kind,
                name,
                exported=name[:1].isupper(),
                sig_end=sig_end,
                params=params,
                is_test=is_test,
            )  # fmt: skip
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


def _arity(f: GoFile, node: ts.Node, local: str) -> None:
    # a method set is compared by name and arity: Go's identical signatures have equal arities
    params = value_count(node.child_by_field_name("parameters"))
    f.facts.extra["arity"][local] = (params, value_count(node.child_by_field_name("result")))


# ---------------------------------------------------------------- definitions


def _on_package(f: GoFile, caps) -> None:
    f.facts.extra["package"] = text(caps["name"])


def _function_like(f: GoFile, node, local, name, kind, is_test) -> None:
    params = params_of(node.child_by_field_name("parameters"))
    body = node.child_by_field_name("body")
    f.symbol(node, local, kind, name, body.start_byte if body else None, tuple(params), is_test)
    f.func_iv.append((node.start_byte, node.end_byte, local))
    f.type_params(node, local)
    result = node.child_by_field_name("result")
    res = results_of(result)
    if res:
        f.facts.extra["results"][local] = res
    if result is not None and result.type == "parameter_list":  # named results are locals
        for n, typ in params_of(result):
            f.local_name(local, n, line(node), typ)


def _on_function(f: GoFile, caps) -> None:
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


def _on_method(f: GoFile, caps) -> None:
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
        for n in walk(rtype)
        if n.type == "type_identifier" and n.parent is not None and n.parent.type == "type_elem"
    ]
    if targs:
        f.tparams[local] = f.tparams.get(local, []) + targs
        f.facts.extra["tparams"][local] = f.tparams[local]
    rname = decl.child_by_field_name("name")
    if rname is not None and text(rname) != "_":
        f.facts.extra["recv"][local] = text(rname)


_TYPE_KIND = {"struct_type": "struct", "interface_type": "interface"}


def _on_type_spec(f: GoFile, caps, alias: bool = False) -> None:
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


def _on_type_alias(f: GoFile, caps) -> None:
    _on_type_spec(f, caps, alias=True)


def _struct_fields(f: GoFile, struct: ts.Node, owner: str) -> None:
    for lst in struct.named_children:
        if lst.type != "field_declaration_list":
            continue
        for fd in lst.named_children:
            if fd.type != "field_declaration":
                continue
            ftype = fd.child_by_field_name("type")
            typ = decl_chain(ftype)
            names = decl_names(fd)
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


def _interface_elems(f: GoFile, iface: ts.Node, owner: str) -> None:
    for el in iface.named_children:
        if el.type == "method_elem":
            name = text(el.child_by_field_name("name"))
            local = f.names.unique(f"{owner}.{name}")
            params = params_of(el.child_by_field_name("parameters"))
            f.symbol(el, local, "method", name, params=tuple(params))
            _arity(f, el, local)
            res = results_of(el.child_by_field_name("result"))
            if res:
                f.facts.extra["results"][local] = res
        elif el.type == "type_elem" and el.named_child_count == 1:
            # an embedded interface; unions and `~T` approximations constrain, they embed nothing
            typ = type_chain(el.named_children[0])
            if typ:
                f.facts.heritage.append(HeritageFact(owner, typ, line(el), "extends"))


def _on_var_spec(f: GoFile, caps, key: str = "definition.variable") -> None:
    spec = caps[key]
    scope = f.func_scopes.at(spec.start_byte)
    names = decl_names(spec)
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
                bind_value(f, scope, name, paired(values, len(names), i), lineno, index=i)
            continue
        local = f.names.unique(name)
        sig = keyword + signature(f.source, spec.start_byte, spec.end_byte).split("\n")[0]
        f.facts.symbols.append(
            symbol_fact(
                f.source, spec, local, "variable", name, exported=name[:1].isupper(), sig=sig[:300]
            )  # fmt: skip
        )
        if typ:
            f.facts.extra["types"][local] = typ
        else:
            val = paired(values, len(names), i)
            if val is not None:
                bind_value(f, "", name, val, lineno, declare=False)


def _on_const_spec(f: GoFile, caps) -> None:
    _on_var_spec(f, caps, "definition.constant")


# Handlers run by phase: functions first (their spans are the scopes of everything else), then
# types (a type may be local to a function), then package-level names, then uses.
_PHASES: tuple[dict, ...] = (
    {"package": _on_package, "definition.function": _on_function, "definition.method": _on_method},
    {"definition.type": _on_type_spec, "definition.type_alias": _on_type_alias},
    {"definition.variable": _on_var_spec, "definition.constant": _on_const_spec},
    {
        "import": on_import,
        "reference.call": on_call,
        "reference.type": on_typeref,
        "reference.member": on_selector,
        "binding.local": on_short_var,
        "binding.iteration": on_range,
        "binding.pattern": on_untyped_names,
        "scope.lambda": on_func_literal,
    },
)
_HANDLERS = {name: h for phase in _PHASES for name, h in phase.items()}
_PHASE_OF = {h: i for i, phase in enumerate(_PHASES) for h in phase.values()}


def extract(source: bytes) -> FileFacts:
    root = get_parser(NAME).parse(source).root_node
    f = GoFile(source, root)
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
    selector_references(f)
    f.facts.symbols.sort(key=lambda s: (s.local != "", s.start_byte))
    mark_errors(root, NAME, f.facts)
    return f.facts


def is_test_path(path: str) -> bool:
    return path.endswith("_test.go")
