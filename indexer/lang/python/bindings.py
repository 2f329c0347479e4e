"""What Python statements bind: module variables, assignments, annotated names, `for` and
`with` targets, and the names local to comprehensions and lambdas (`_LocalScopes`).

Each binding is a BindingFact whose value is a chain (`enter:`/`aenter:`/`iter:` prefixed
for a `with` item and an iteration item, `ann:` for a declared type).
"""

from __future__ import annotations

import bisect
import re

import tree_sitter as ts

from codeimpact.indexer.lang.api import (
    BindingFact,
    FileFacts,
    ReferenceFact,
    SymbolFact,
)
from codeimpact.indexer.lang.python.chains import (
    _chain,
    _named,
    callee_chain,
    type_text,
)
from codeimpact.indexer.lang.python.items import ITERATED_LITERALS, literal_facts

_HEAD = re.compile(r"[A-Za-z_]\w*")  # the first name of a chain


def _module_var(name: str, node: ts.Node, source: bytes, facts: FileFacts, seen: set[str]) -> None:
    if name in seen:
        return
    seen.add(name)
    stmt = (
        node.parent
        if node.parent is not None and node.parent.type == "expression_statement"
        else node
    )
    first_line = source[stmt.start_byte : stmt.end_byte].split(b"\n", 1)[0]
    facts.symbols.append(
        SymbolFact(
            name,
            "variable",
            name,
            stmt.start_point[0] + 1,
            stmt.end_point[0] + 1,
            stmt.start_byte,
            stmt.end_byte,
            first_line.decode(errors="replace").strip()[:300],
            not name.startswith("_"),
            False,
            (),
            (),
        )
    )


def _target_name(lhs: ts.Node, source: bytes) -> str | None:
    """`x` or `self.x` as a binding name; `cls.x` (in a classmethod: unittest's setUpClass)
    sets the same attribute, which instances read as `self.x`, and is named so; other
    targets bind nothing we follow."""
    # native/facts_bind.c (target_name) computes the same for the native path
    if lhs.type == "identifier":
        return lhs.text.decode()
    if lhs.type == "attribute":
        name = _chain(source[lhs.start_byte : lhs.end_byte])
        if name and name.startswith("self.") and name.count(".") == 1:
            return name
        if name and name.startswith("cls.") and name.count(".") == 1:
            return "self." + name[4:]
    return None


def _bind_value(scope: str, name: str, rhs: ts.Node, node: ts.Node, source: bytes, facts) -> None:
    # native/facts_bind.c (bind_value) binds the same: change both
    line = node.start_point[0] + 1
    while rhs.type == "boolean_operator":  # `a or b`: a when it is true (`params or []`)
        op, left = rhs.child_by_field_name("operator"), rhs.child_by_field_name("left")
        if op is None or op.type != "or" or left is None:
            break
        rhs = left
    if rhs.type == "call":
        fn = rhs.child_by_field_name("function")
        chain = callee_chain(source[fn.start_byte : fn.end_byte]) if fn else None
        if chain:
            facts.bindings.append(BindingFact(scope, name, chain, True, line))
    elif rhs.type in ("identifier", "attribute"):
        chain = _chain(source[rhs.start_byte : rhs.end_byte])
        if chain:
            facts.bindings.append(BindingFact(scope, name, chain, False, line))
            facts.references.append(ReferenceFact(scope, chain, line, "value"))


def _assignment(scope, lhs, rhs, node, source, facts, module_vars) -> None:
    if lhs.type in ("pattern_list", "tuple_pattern"):
        if scope == "":
            for t in _named(lhs):
                if t.type == "identifier":
                    _module_var(t.text.decode(), node, source, facts, module_vars)
        return  # unpacking: no single value to bind
    name = _target_name(lhs, source)
    if name is None:
        return
    if scope == "" and lhs.type == "identifier":
        _module_var(name, node, source, facts, module_vars)
        if name == "__all__" and rhs.type in ("list", "tuple"):
            _exports(facts, rhs, source)
    if rhs.type == "assignment":  # a = b = value: bind the innermost value
        while rhs.type == "assignment" and rhs.child_by_field_name("right") is not None:
            rhs = rhs.child_by_field_name("right")
    _bind_value(scope, name, rhs, node, source, facts)


def _all_value(rhs: ts.Node, source: bytes) -> tuple | None:
    """What `from m import *` binds, from the list or tuple assigned to `__all__`; kept only
    when every item is a plain string."""
    items = [c for c in _named(rhs) if c.type != "comment"]
    names = [_string_value(c, source) for c in items]
    if all(n is not None for n in names):
        return tuple(names)
    return None


def _string_value(node: ts.Node, source: bytes) -> str | None:
    if node.type != "string":
        return None
    text = source[node.start_byte : node.end_byte]
    if text[:1] in (b'"', b"'") and text[-1:] == text[:1] and len(text) >= 2:
        inner = text[1:-1]
        if b"\\" not in inner and b'"' not in inner and b"'" not in inner:
            return inner.decode(errors="replace")
    return None


def _annotated(scope, lhs, vartype, node, source, facts, module_vars) -> None:
    """`x: T [= v]`: the declared type binds after the value, so it is tried first."""
    name = _target_name(lhs, source)
    if name is None:
        return
    if scope == "" and lhs.type == "identifier":
        _module_var(name, node, source, facts, module_vars)
    t = type_text(source[vartype.start_byte : vartype.end_byte])
    if t:
        facts.bindings.append(BindingFact(scope, name, "ann:" + t, False, node.start_point[0] + 1))


def _for_binding(
    scope: str,
    lhs: ts.Node,
    rhs: ts.Node,
    source: bytes,
    facts: FileFacts,
    suffix: str = "",
    local_scopes: _LocalScopes | None = None,
) -> None:
    """`for x in chain` binds x; a comprehension's variables are renamed `x$<start>`. A
    literal iterated (`for f in (load, save)`) is bound to `it$<start byte>` (a name no
    identifier spells), which x iterates."""
    # native/facts_flow.c (iteration_binding) makes the same, object for object: change both
    chain = callee_chain(source[rhs.start_byte : rhs.end_byte])
    if chain and local_scopes:  # `for y in x.children` after `for x in ...`
        chain = local_scopes.rename(chain, rhs.start_byte)
    line = lhs.start_point[0] + 1
    if not chain and rhs.type in ITERATED_LITERALS:
        chain = f"it${rhs.start_byte}"
        literal_facts(scope, chain, rhs, line, source, facts)
    if not chain:
        return
    if lhs.type == "identifier":
        name = lhs.text.decode() + suffix
        facts.bindings.append(BindingFact(scope, name, f"iter:-1:{chain}", False, line))
    elif lhs.type in ("pattern_list", "tuple_pattern"):
        for i, t in enumerate(_named(lhs)):
            if t.type == "identifier":
                name = t.text.decode() + suffix
                facts.bindings.append(BindingFact(scope, name, f"iter:{i}:{chain}", False, line))


class _LocalScopes:
    """Names local to a comprehension or a lambda, which must not bind outside of it.

    A call whose chain starts with a comprehension variable is renamed to that
    comprehension's own binding (`x` -> `x$<start byte>`, bound by its for-clause), and so
    is one that starts with a parameter of a lambda passed as a positional argument
    (`x$<start byte of the lambda>`, bound by `_callback_binding`); one that starts with
    another lambda's parameter cannot be known and is left unresolved.
    """

    def __init__(self, matches: list[tuple[str, dict]]):
        found: list[tuple[int, int, frozenset[str], str]] = []  # (start, end, names, suffix)
        comps: dict[int, tuple[int, set[str]]] = {}
        for construct, caps in matches:
            if construct == "binding.comprehension":
                comp = caps[construct].parent
                if comp is None:
                    continue
                entry = comps.setdefault(comp.start_byte, (comp.end_byte, set()))
                entry[1].update(_pattern_names(caps["left"]))
            elif construct == "scope.lambda":
                node, params = caps[construct], caps["parameters"]
                names = _lambda_params(params)
                if names:
                    # a lambda passed to a call binds its parameters (`_callback_binding`)
                    bound = callback_position(node) is not None
                    suffix = f"${node.start_byte}" if bound else ""
                    found.append((node.start_byte, node.end_byte, frozenset(names), suffix))
        for start, (end, names) in comps.items():
            found.append((start, end, frozenset(names), f"${start}"))
        found.sort()
        self.found = found
        self.starts = [f[0] for f in found]
        self.names = frozenset().union(*(f[2] for f in found))

    def __bool__(self) -> bool:
        return bool(self.found)

    def rename(self, chain: str, pos: int) -> str | None:
        head = _HEAD.match(chain).group()
        if head not in self.names:
            return chain
        i = bisect.bisect_right(self.starts, pos) - 1
        # the innermost enclosing scope that binds the name decides
        while i >= 0:
            start, end, names, suffix = self.found[i]
            if start <= pos < end and head in names:
                if not suffix:
                    return None  # a lambda parameter
                return head + suffix + chain[len(head) :]
            i -= 1
        return chain


def _pattern_names(node: ts.Node) -> list[str]:
    if node.type == "identifier":
        return [node.text.decode()]
    return [c.text.decode() for c in _named(node) if c.type == "identifier"]


def _lambda_params(params: ts.Node) -> list[str]:
    out = []
    for p in _named(params):
        if p.type == "identifier":
            out.append(p.text.decode())
        elif p.type in ("default_parameter", "typed_default_parameter"):
            name = p.child_by_field_name("name")
            if name is not None:
                out.append(name.text.decode())
        elif p.type in ("list_splat_pattern", "dictionary_splat_pattern"):
            inner = p.named_child(0)
            if inner is not None:
                out.append(inner.text.decode())
    return out


# what may stand before a positional argument whose position is known
_POSITIONAL = frozenset(("comment",))
_NOT_POSITIONAL = frozenset(("keyword_argument", "list_splat", "dictionary_splat"))


def callback_position(lam: ts.Node) -> int | None:
    """The position of lambda `lam` among the arguments of the call it is passed to, or
    None: not an argument of a call, or after a `*args` (its position is unknown)."""
    parent = lam.parent
    if parent is None or parent.type != "argument_list":
        return None
    call = parent.parent
    if call is None or call.type != "call":
        return None
    position = 0
    for c in parent.named_children:
        if c.id == lam.id:
            return position
        if c.type in _NOT_POSITIONAL:
            return None
        if c.type not in _POSITIONAL:
            position += 1
    return None


def _callback_binding(
    scope: str, lam: ts.Node, source: bytes, facts: FileFacts, local_scopes: _LocalScopes
) -> None:
    """`f(lambda s: s.m())`: each parameter of the lambda (named `s$<start byte of the
    lambda>`, see _LocalScopes) holds what f calls it with, as f's declared callable type
    says: the value `callback:<argument position>:<parameter position>:<f's chain>`. Any
    other lambda binds nothing."""
    position = callback_position(lam)
    params = lam.child_by_field_name("parameters")
    if position is None or params is None:
        return
    callee = lam.parent.parent.child_by_field_name("function")  # (callback_position: a call)
    if callee is None:
        return
    chain = callee_chain(source[callee.start_byte : callee.end_byte])
    if chain and local_scopes:
        chain = local_scopes.rename(chain, callee.start_byte)
    if not chain:
        return
    line = callee.start_point[0] + 1
    for i, p in enumerate(_named(params)):
        if p.type not in ("identifier", "default_parameter"):
            break  # `*args` and what follows it: not passed by position
        if p.type == "identifier":  # (one with a default may be passed: not read)
            facts.bindings.append(
                BindingFact(scope, f"{p.text.decode()}${lam.start_byte}",
                            f"callback:{position}:{i}:{chain}", False, line)
            )  # fmt: skip


def _with_binding(
    scope: str, value: ts.Node, node: ts.Node, source: bytes, facts: FileFacts
) -> None:
    """`with EXPR as name`: name is what EXPR's __enter__ returns. Every item is a binding,
    the name "" when nothing plain is bound (`with lock:`, `with f() as (a, b):`): the
    resolver reads the managers entered from these (their __enter__ and __exit__ run)."""
    # native/facts_flow.c (context_binding) makes the same, object for object: change both
    name = ""
    if value.type == "as_pattern":
        target = value.child_by_field_name("alias")
        inner = target.named_child(0) if target is not None else None
        if inner is not None and inner.type == "identifier":
            name = inner.text.decode()
        value = value.named_child(0)
        if value is None:
            return
    stmt = node.parent.parent if node.parent is not None else None
    is_async = stmt is not None and stmt.child_count > 0 and stmt.children[0].type == "async"
    prefix = "aenter:" if is_async else "enter:"
    line = node.start_point[0] + 1
    if value.type == "call":
        fn = value.child_by_field_name("function")
        chain = callee_chain(source[fn.start_byte : fn.end_byte]) if fn else None
        if chain:
            facts.bindings.append(BindingFact(scope, name, prefix + chain, True, line))
    elif value.type in ("identifier", "attribute"):
        chain = _chain(source[value.start_byte : value.end_byte])
        if chain:
            facts.bindings.append(BindingFact(scope, name, prefix + chain, False, line))


def _except_binding(
    scope: str, value: ts.Node, node: ts.Node, source: bytes, facts: FileFacts
) -> None:
    """`except E as e`: e holds an instance of E, bound as the declared type `ann:E`
    (`ann:A|B` for `except (A, B) as e`: a union's first arm that resolves types it, so
    a call on e reaches that class's method and its overrides)."""
    target = value.child_by_field_name("alias")
    inner = target.named_child(0) if target is not None else None
    caught = value.named_child(0)
    if inner is None or inner.type != "identifier" or caught is None:
        return
    kinds = _named(caught) if caught.type == "tuple" else [caught]
    arms = []
    for k in kinds:
        if k.type not in ("identifier", "attribute"):
            return  # `except errors() as e`, a starred tuple: no declared type to read
        chain = _chain(source[k.start_byte : k.end_byte])
        if not chain:
            return
        arms.append(chain)
    if arms:
        facts.bindings.append(
            BindingFact(scope, inner.text.decode(), "ann:" + "|".join(arms), False,
                        node.start_point[0] + 1)
        )  # fmt: skip


def _member_assignment(
    scope: str, lhs: ts.Node, node: ts.Node, source: bytes, facts: FileFacts
) -> None:
    """`obj.attr = v`: a binding named "" whose value `set:obj.attr` says a member is
    written (the resolver finds the setter or descriptor that runs)."""
    # native/facts_flow.c (member_store) makes the same, object for object: change both
    chain = _chain(source[lhs.start_byte : lhs.end_byte])
    if chain and "." in chain:
        facts.bindings.append(
            BindingFact(scope, "", "set:" + chain, False, node.start_point[0] + 1)
        )


def _exports(facts: FileFacts, rhs: ts.Node, source: bytes) -> None:
    """`__all__ = [...]`: the names `from m import *` binds, when all are plain strings."""
    names = _all_value(rhs, source)
    if names is not None:
        facts.extra["all"] = names
