"""Python definitions: the symbols of one file's classes and functions (locals `A.f`, `f#2` for
a redefinition, a function in a class is a method), their parameters, decorators, heritage
and return annotations, and the scopes they make (a definition's body; its whole span,
signature included), from the query path's definition matches in start order. The native
fact engine (native/facts.c) makes the same for the native path."""

from __future__ import annotations

import tree_sitter as ts

from codeimpact.indexer.lang.api import FileFacts, HeritageFact, ReturnFact
from codeimpact.indexer.lang.python.chains import _chain, _named, type_text
from codeimpact.indexer.lang.syntax_common import NestedScopes, symbol_fact
from codeimpact.native.record import Hashed

DECORATED = "decorated_definition"


class Definitions(Hashed):
    """What the other facts of a file read of its definitions."""

    kind_of: dict[str, str]  # local -> kind ("" is the module)
    scopes: NestedScopes  # the innermost definition whose body holds an offset
    sig_scopes: NestedScopes  # the innermost definition (signature included) holding an offset
    local_at_start: dict[int, str]  # a definition's start byte -> its local
    __slots__ = ("kind_of", "scopes", "sig_scopes", "local_at_start")

    def __init__(
        self,
        kind_of: dict[str, str],
        scopes: NestedScopes,
        sig_scopes: NestedScopes,
        local_at_start: dict[int, str],
    ) -> None:
        self.kind_of = kind_of
        self.scopes = scopes
        self.sig_scopes = sig_scopes
        self.local_at_start = local_at_start


def definitions(
    defs: list[tuple[ts.Node, ts.Node, ts.Node, str]], source: bytes, facts: FileFacts
) -> Definitions:
    """The symbols (and heritage, return annotations) of `defs`, (definition, name, body,
    kind) in start order, appended to `facts`."""
    kind_of: dict[str, str] = {"": "module"}
    body_iv: list[tuple[int, int, str, int]] = []
    full_iv: list[tuple[int, int, str, int]] = []
    stack: list[tuple[int, str, int]] = []  # (full end, local, interval index)
    seen: dict[str, int] = {}
    local_at_start: dict[int, str] = {}
    for node, name_node, body, kind in defs:
        start = node.start_byte
        while stack and stack[-1][0] <= start:
            stack.pop()
        parent_local = stack[-1][1] if stack else ""
        parent_idx = stack[-1][2] if stack else -1
        name = name_node.text.decode()
        local = f"{parent_local}.{name}" if parent_local else name
        n = seen.get(local, 0) + 1
        seen[local] = n
        if n > 1:
            local = f"{local}#{n}"
        if kind == "function" and kind_of.get(parent_local) == "class":
            kind = "method"
        kind_of[local] = kind
        local_at_start[start] = local
        idx = len(body_iv)
        body_iv.append((body.start_byte, body.end_byte, local, parent_idx))
        full_iv.append((start, node.end_byte, local, parent_idx))
        stack.append((node.end_byte, local, idx))
        params = _params(node, source) if kind != "class" else ()
        # the span of a decorated definition includes its decorators (editing one edits it)
        parent = node.parent
        outer = parent if parent is not None and parent.type == DECORATED else node
        decorators = _decorators(outer, source) if outer is not node else ()
        signature = (
            b" ".join(source[start : body.start_byte].split())  # runs of \s as one space
            .decode(errors="replace")
            .strip()
            .rstrip(":")
            .strip()[:300]
        )
        exported = not name.startswith("_") or (name.startswith("__") and name.endswith("__"))
        facts.symbols.append(
            symbol_fact(
                source,
                node,
                local,
                kind,
                name,
                exported=exported,
                params=params,
                is_test=_is_test_name(kind, name),
                sig=signature,
                start=outer,
                decorators=decorators,
            )
        )
        if kind == "class":
            _heritage(node, local, source, facts)
        else:
            rtype = node.child_by_field_name("return_type")
            if rtype is not None:
                t = type_text(source[rtype.start_byte : rtype.end_byte])
                if t and t != "None":
                    facts.returns.append(
                        ReturnFact(local, "ann:" + t, False, rtype.start_point[0] + 1)
                    )
    # body_iv is in start order already (defs sorted, bodies start after their def)
    return Definitions(kind_of, NestedScopes(body_iv), NestedScopes(full_iv), local_at_start)


def _is_test_name(kind: str, name: str) -> bool:
    if kind in ("function", "method"):
        return name.startswith("test")
    if kind == "class":
        return name.startswith("Test")
    return False


def _params(node: ts.Node, source: bytes) -> tuple:
    params = node.child_by_field_name("parameters")
    out = []
    if params is None:
        return ()
    for p in _named(params):
        t = p.type
        if t == "identifier":
            out.append((p.text.decode(), ""))
        elif t in ("typed_parameter", "typed_default_parameter", "default_parameter"):
            name = p.child_by_field_name("name")
            if name is None:
                name = next((c for c in _named(p) if c.type == "identifier"), None)
            typ = p.child_by_field_name("type")
            ann = type_text(source[typ.start_byte : typ.end_byte]) if typ is not None else ""
            if name is not None and name.type == "identifier":
                out.append((name.text.decode(), ann))
            elif name is not None and name.type in (
                "list_splat_pattern",
                "dictionary_splat_pattern",
            ):
                inner = name.named_child(0)
                if inner is not None:
                    out.append(("*" + inner.text.decode(), ""))
        elif t in ("list_splat_pattern", "dictionary_splat_pattern"):
            inner = p.named_child(0)
            if inner is not None and inner.type == "identifier":
                out.append(("*" + inner.text.decode(), ""))
    return tuple(out)


def _decorators(decorated: ts.Node, source: bytes) -> tuple:
    """The chains of a decorated_definition's decorators, a call's marked with the `()` step
    (`@app.route(...)` -> `app.route()`: what the call returns is applied to the definition)."""
    out = []
    for dec in _named(decorated):
        expr = dec.named_child(0) if dec.type == "decorator" else None
        if expr is not None:
            called = expr.type == "call"
            if called:
                expr = expr.child_by_field_name("function") or expr
            chain = _chain(source[expr.start_byte : expr.end_byte])
            if chain:
                out.append(chain + "()" if called and expr.type != "call" else chain)
    return tuple(out)


def _heritage(node: ts.Node, local: str, source: bytes, facts: FileFacts) -> None:
    supers = node.child_by_field_name("superclasses")
    if supers is None:
        return
    for arg in _named(supers):
        if arg.type == "keyword_argument":
            continue
        if arg.type == "subscript":  # Generic[T], Base[int]
            arg = arg.child_by_field_name("value") or arg
        chain = _chain(source[arg.start_byte : arg.end_byte])
        if chain:
            facts.heritage.append(HeritageFact(local, chain, arg.start_point[0] + 1, "extends"))
