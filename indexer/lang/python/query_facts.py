"""Python facts from the query path's matches (`query_facts`: the reference the native fact
engine, native/facts.c, is compared with) and the rarer constructs handed to `_other`
(annotations, typed, for, comprehension, with and walrus bindings, member assignments,
parametrize values, yields; the native path makes the for, comprehension, with and member
assignment ones in C, native/facts_flow.c, and hands it the rest); items.py for assignments
into or out of containers; a member read as a value (`read` references) and returned
values."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from operator import itemgetter

import tree_sitter as ts

from codeimpact.indexer.lang.api import CallFact, FileFacts, ReferenceFact, ReturnFact
from codeimpact.indexer.lang.python.bindings import (
    _annotated,
    _assignment,
    _bind_value,
    _callback_binding,
    _except_binding,
    _for_binding,
    _LocalScopes,
    _member_assignment,
    _with_binding,
)
from codeimpact.indexer.lang.python.chains import _chain, callee_chain
from codeimpact.indexer.lang.python.items import (
    RETURNED_LITERALS,
    Known,
    holds_items,
    item_facts,
    literal_facts,
)

_ANNOT_NAME = re.compile(r"[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*")

# queries.scm's definition constructs -> the kind of their symbols (a function in a class is
# a method)
_DEFINITIONS = {"definition.class": "class", "definition.function": "function"}


def query_facts(matches: Iterable[tuple[str, dict]], source: bytes, facts: FileFacts) -> None:
    """The facts after the module symbol, from the query's matches. The native fact engine
    (native/facts.c) makes the same by the same rules, object for object."""
    defs: list[tuple[ts.Node, ts.Node, ts.Node, str]] = []  # (def, name, body, kind)
    others: list[tuple[str, dict]] = []
    decorator_nodes: list[ts.Node] = []
    local_matches: list[tuple[str, dict]] = []  # comprehensions and lambdas
    for construct, caps in matches:
        if construct in _DEFINITIONS:
            node = caps[construct]  # (its name and body fields, as native/facts.c reads them)
            name, body = node.child_by_field_name("name"), node.child_by_field_name("body")
            if name is not None and body is not None:
                defs.append((node, name, body, _DEFINITIONS[construct]))
        elif construct == "decorator":
            decorator_nodes.append(caps[construct])
        elif construct == "scope.lambda":
            local_matches.append((construct, caps))
        else:
            others.append((construct, caps))
            if construct == "binding.comprehension":
                local_matches.append((construct, caps))
    defs.sort(key=lambda d: d[0].start_byte)
    # (here: the native path, an edit's run among them, never runs this function, and these
    # modules were ~0.6 ms of its start-up)
    from codeimpact.indexer.lang.python.definitions import definitions
    from codeimpact.indexer.lang.python.sites import _args, _imports

    d = definitions(defs, source, facts)
    kind_of, local_at_start = d.kind_of, d.local_at_start
    scopes, sig_scopes = d.scopes, d.sig_scopes

    # Decorators, and the calls in their arguments, count for the decorated definition
    # (kind "decorator": the resolver looks their names up where the definition stands).
    dec_iv: list[tuple[int, int, str]] = []  # (start, end, decorated local), disjoint
    module_vars: set[str] = set()
    for dec in decorator_nodes:
        target = dec.parent.child_by_field_name("definition") if dec.parent else None
        scope = local_at_start.get(target.start_byte, "") if target else scopes.at(dec.start_byte)
        expr = dec.named_child(0)
        if expr is None:
            continue
        dec_iv.append((dec.start_byte, dec.end_byte, scope))
        if expr.type != "call":
            chain = callee_chain(source[expr.start_byte : expr.end_byte])
            if chain:
                line = expr.start_point[0] + 1
                facts.calls.append(CallFact(scope, chain, line, "decorator", (), ()))
    dec_iv.sort()
    dec_starts = [d[0] for d in dec_iv]
    local_scopes = _LocalScopes(local_matches)

    def call_fact(start: int, end: int, line: int, args: tuple, literals: tuple) -> CallFact:
        """The call whose callee spans source[start:end] (the call starts there too), on
        `line`."""
        kind = "call"
        scope = None
        if dec_iv:
            i = bisect.bisect_right(dec_starts, start) - 1
            if i >= 0 and start < dec_iv[i][1]:
                scope, kind = dec_iv[i][2], "decorator"
        if scope is None:
            scope = scopes.at(start)
        text = source[start:end]
        chain = callee_chain(text)
        if chain is not None and local_scopes:
            chain = local_scopes.rename(chain, start)
        if chain is None:
            # keep the name so the site is counted as unresolved, never guessed
            m = re.search(rb"([A-Za-z_]\w*)\s*$", text)
            chain = "?." + m.group(1).decode() if m else "?"
        return CallFact(scope, chain, line, kind, args, literals)

    # the calls first, as native/facts.c (the_rest) makes them: the literal collections
    # they pass are bound before any other binding
    held: list[tuple[str, ts.Node]] = []
    known = Known(defs, others)
    for fn, arguments in _call_parts(others):
        args, literals = _args(arguments, source, held, known)
        line = fn.start_point[0] + 1
        call = call_fact(fn.start_byte, fn.end_byte, line, args, literals)
        facts.calls.append(call)
        for name, lit in held:  # bound at the call's line, where the callee reads it
            literal_facts(call.scope, name, lit, line, source, facts)
        held.clear()
    member = (-1, -1)  # the last member read examined (native/facts_bind.c member_read)
    literal_returns: dict[str, int] = {}  # function -> its returned literals so far
    for construct, caps in others:
        node = caps[construct]
        if construct == "reference.call":
            continue
        elif construct in ("import", "import.from"):
            _imports(node, construct, scopes.at(node.start_byte), source, facts)
        elif construct == "assignment":
            scope = scopes.at(node.start_byte)
            lhs, rhs = caps["left"], caps["right"]
            _assignment(scope, lhs, rhs, node, source, facts, module_vars)
            if holds_items(lhs, rhs):
                item_facts(scope, lhs, rhs, node, source, facts)
        elif construct == "return":
            node = caps["value"]
            scope = scopes.at(node.start_byte)
            if kind_of.get(scope) in ("function", "method"):
                if node.type in RETURNED_LITERALS:
                    _returned_literal(scope, node, literal_returns, source, facts)
                else:
                    _returned(scope, node, "", source, facts)
        elif construct == "reference.member":
            # a member at the start of the one before it is inside its chain, which reads it
            if node.start_byte == member[0] and node.end_byte < member[1]:
                continue
            member = node.start_byte, node.end_byte
            if not _read_elsewhere(node):
                _member_read(node, source, scopes.at(node.start_byte), local_scopes, facts)
        else:
            # a type in a signature belongs to the definition it is written in
            iv = sig_scopes if construct == "reference.type" else scopes
            _other(
                facts, source, module_vars, local_scopes, construct, caps, iv.at(node.start_byte)
            )


def _call_parts(others: list[tuple[str, dict]]) -> list[tuple[ts.Node, ts.Node]]:
    """(callee, arguments) of the calls, which are matched alone (their parts are their
    `function` and `arguments` fields), in their arguments' order: that of the matches of a
    pattern that captures them, which the facts keep (native/facts.c sort_calls)."""
    out = []
    for construct, caps in others:
        if construct == "reference.call":
            node = caps[construct]
            fn, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
            if fn is not None and args is not None:  # (none but in a broken tree)
                out.append((args.start_byte, fn, args))
    out.sort(key=itemgetter(0))
    return [(fn, args) for _, fn, args in out]


# Roles of the parents under which a member is read by another fact (or not read): the
# operand of a longer chain, an argument, a decorator, a type.
_READ_BY_PARENT = frozenset(("attribute", "argument_list", "keyword_argument", "decorator", "type"))


def _read_elsewhere(node: ts.Node) -> bool:
    """Whether a member read as a value is read by no fact but its own `read` reference:
    not inside a longer chain, a call's callee (the call's chain reads it), an assignment's
    target (a setter runs) or the value a name is bound to (the binding's reference reads
    it), an argument (read with the call's), a decorator or a type."""
    # native/facts_bind.c (read_elsewhere) decides the same for the native path
    parent = node.parent
    if parent is None or parent.type in _READ_BY_PARENT:
        return True
    if parent.type == "call":
        return parent.child_by_field_name("function") == node
    if parent.type == "assignment":
        if parent.child_by_field_name("right") != node:
            return True
        left = parent.child_by_field_name("left")
        return left is not None and left.type == "identifier"
    return False


def _member_read(node: ts.Node, source: bytes, scope: str, local_scopes: _LocalScopes,
                 facts: FileFacts) -> None:  # fmt: skip
    """A member read as a value (`if obj.p:`, `f"{obj.p}"`, `obj.p + 1`): a `read`
    reference to its chain, renamed where a comprehension binds its head."""
    chain = callee_chain(source[node.start_byte : node.end_byte])
    if chain and local_scopes:
        chain = local_scopes.rename(chain, node.start_byte)
    if chain:
        facts.references.append(ReferenceFact(scope, chain, node.start_point[0] + 1, "read"))


def _returned_literal(scope: str, node: ts.Node, counts: dict[str, int], source: bytes,
                      facts: FileFacts) -> None:  # fmt: skip
    """`return f, g`, `return {"go": f}`: the literal is bound to a name no identifier can
    spell, `ret$K` for the function's K-th returned literal (not its position: an edit above
    it leaves the function's export view as it was), and returned by that name; the
    resolver reads its items as an assigned literal's."""
    # native/facts_bind.c (return_fact) makes the same for the native path
    k = counts.get(scope, 0)
    counts[scope] = k + 1
    name = f"ret${k}"
    line = node.start_point[0] + 1
    literal_facts(scope, name, node, line, source, facts)
    facts.returns.append(ReturnFact(scope, name, False, line))


def _returned(scope: str, node: ts.Node, prefix: str, source: bytes, facts: FileFacts) -> None:
    """The ReturnFact of a returned (or, `prefix` "yield:", a yielded) value: a call's callee
    chain with is_call, or the chain of a name; nothing for any other expression."""
    # native/facts_bind.c (return_fact) makes the same for a return on the native path
    line = node.start_point[0] + 1
    if node.type == "call":
        fn = node.child_by_field_name("function")
        chain = callee_chain(source[fn.start_byte : fn.end_byte]) if fn else None
        if chain:
            facts.returns.append(ReturnFact(scope, prefix + chain if prefix else chain, True, line))
    else:
        chain = _chain(source[node.start_byte : node.end_byte])
        if chain:
            facts.returns.append(
                ReturnFact(scope, prefix + chain if prefix else chain, False, line)
            )


def _other(facts: FileFacts, source: bytes, module_vars: set[str], local_scopes: _LocalScopes,
           construct: str, caps: dict, scope: str) -> None:  # fmt: skip
    """The facts of a match of one of the rarer constructs (annotations, annotated
    assignments, for, comprehension, with and walrus bindings) in `scope`, the native
    path's too."""
    node = caps[construct]
    if construct == "binding.typed":
        _annotated(scope, caps["left"], caps["type"], node, source, facts, module_vars)
    elif construct == "reference.type":
        if node.parent is not None and node.parent.type in _NESTED_TYPE_PARENTS:
            return  # the outermost annotation already names these
        text = source[node.start_byte : node.end_byte].decode(errors="replace")
        line = node.start_point[0] + 1
        for name in _ANNOT_NAME.findall(text):
            if name not in _ANNOTATION_NOISE:
                facts.references.append(ReferenceFact(scope, name, line, "annotation"))
    elif construct == "binding.iteration":
        _for_binding(scope, caps["left"], caps["right"], source, facts)
    elif construct == "binding.comprehension":
        suffix = f"${node.parent.start_byte}" if node.parent is not None else ""
        _for_binding(scope, caps["left"], caps["right"], source, facts, suffix, local_scopes)
    elif construct == "binding.context":
        _with_binding(scope, caps["value"], node, source, facts)
    elif construct == "binding.catch":
        _except_binding(scope, caps["value"], node, source, facts)
    elif construct == "binding.callback":
        _callback_binding(scope, node, source, facts, local_scopes)
    elif construct == "assignment.member":
        _member_assignment(scope, caps["left"], node, source, facts)
    elif construct == "assignment.expression":
        _bind_value(scope, caps["left"].text.decode(), caps["right"], node, source, facts)
    elif construct == "binding.parameter":
        from codeimpact.indexer.lang.python.parametrize import parametrize_facts  # (rare)

        parametrize_facts(scope, caps, source, facts)
    elif construct == "yield":
        # `yield from g()` hands on g's items, not g's result: not read yet
        if scope and node.child_count == 2:
            _returned(scope, caps["value"], "yield:", source, facts)


_NESTED_TYPE_PARENTS = frozenset(("type", "type_parameter", "union_type"))

# Names in annotations that never name a repository definition.
_ANNOTATION_NOISE = frozenset(
    """None int str bytes float bool complex object list dict set tuple frozenset type Any
    Optional Union List Dict Set Tuple Type Callable Iterable Iterator Sequence Mapping typing
    Literal ClassVar Final""".split()  # noqa: SIM905 - a word list
)
