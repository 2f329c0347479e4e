"""The values pytest binds to a test's (or a fixture's) parameters, as facts (extraction).

`@pytest.mark.parametrize("method", ["get", "post"])` binds the parameter `method` to each
value in turn; `@pytest.fixture(params=[A, B])` binds a fixture's `request.param` likewise.
Each value the facts can name is a BindingFact in the scope enclosing the decorated
definition, on the decorator's line (the definition's lines start with its decorators, which
is how the resolver finds them: fixtures.py `parametrized`):

    name  "@method" (or "@request.param")
    value "param:str:get"  a string literal that is a name (quoted by one character)
          "param:val:A"    a name or dotted name
          "param:val:A()"  a call: what the callee returns (a class: an instance of it)
          "param:?"        any other value (a number, a dict): the name is bound all the same

Rows of several names are tuples (`("obj, expect", [(A(), 1), pytest.param(B(), 2)])`): item
j binds name j. Each (name, value) is one fact. Both extraction
paths reach this through `_other` (queries.scm: `binding.parameter`).
"""

from __future__ import annotations

import tree_sitter as ts

from codeimpact.indexer.lang.api import BindingFact, FileFacts
from codeimpact.indexer.lang.python.chains import _chain, _named

PREFIX = "param:"
REQUEST_PARAM = "request.param"
UNKNOWN = "?"  # a value that is no fact (a number, a dict): the name is bound all the same
_MAX_VALUES = 256  # values past this many in one decorator are data, not types
# The last names of the decorator callees read (the native fact engine skips the others
# without calling in: its `parameter_callees` option, extract.py).
CALLEES = ("parametrize", "fixture")


def parametrize_facts(scope: str, caps: dict, source: bytes, facts: FileFacts) -> None:
    """The bindings of one decorator call `@callee(arguments)` when it is pytest's
    parametrize mark or a fixture with `params=`."""
    callee = _chain(_text(caps["callee"], source))
    last = callee.rpartition(".")[2] if callee else ""
    if last not in CALLEES:
        return
    positional, keywords = _arguments(caps["arguments"])
    if last == "parametrize":
        names_node = keywords.get("argnames", positional[0] if positional else None)
        rows = keywords.get("argvalues", positional[1] if len(positional) > 1 else None)
        names = _argnames(names_node, source) if names_node is not None else []
    else:
        rows = keywords.get("params")
        names = [REQUEST_PARAM]
    if not names:
        return
    line = caps["binding.parameter"].start_point[0] + 1
    if rows is None or rows.type not in ("list", "tuple"):  # `range(3)`, a module constant
        for name in names:
            facts.bindings.append(BindingFact(scope, "@" + name, PREFIX + UNKNOWN, False, line))
        return
    seen: set[tuple[str, str]] = set()
    for row in _named(rows)[:_MAX_VALUES]:
        items = [row] if len(names) == 1 else _row_items(row, source)
        if len(names) == 1 and _is_param_call(row, source):
            items = _row_items(row, source)[:1]
        items += [None] * (len(names) - len(items))
        for name, item in zip(names, items, strict=False):
            value = _value(item, source) if item is not None else None
            if (name, value or UNKNOWN) not in seen:
                seen.add((name, value or UNKNOWN))
                facts.bindings.append(
                    BindingFact(scope, "@" + name, PREFIX + (value or UNKNOWN), False, line)
                )


def _text(node: ts.Node, source: bytes) -> bytes:
    return source[node.start_byte : node.end_byte]


def _arguments(args: ts.Node) -> tuple[list[ts.Node], dict[str, ts.Node]]:
    positional: list[ts.Node] = []
    keywords: dict[str, ts.Node] = {}
    for a in _named(args):
        if a.type == "keyword_argument":
            name, value = a.child_by_field_name("name"), a.child_by_field_name("value")
            if name is not None and value is not None:
                keywords[name.text.decode()] = value
        elif a.type not in ("list_splat", "dictionary_splat", "comment"):
            positional.append(a)
    return positional, keywords


def _string(node: ts.Node, source: bytes) -> str | None:
    """The content of a string quoted by one character each side, else None."""
    parts = node.children
    if node.type != "string" or len(parts) != 3:
        return None
    if parts[0].end_byte - parts[0].start_byte != 1:
        return None
    return _text(parts[1], source).decode(errors="replace")


def _argnames(node: ts.Node, source: bytes) -> list[str]:
    """`"a, b"`, `("a", "b")`, `["a", "b"]` -> ["a", "b"]."""
    text = _string(node, source)
    if text is not None:
        names = [n.strip() for n in text.split(",")]
    elif node.type in ("list", "tuple"):
        names = [_string(n, source) or "" for n in _named(node)]
    else:
        return []
    return names if all(n.isidentifier() for n in names) else []


def _is_param_call(node: ts.Node, source: bytes) -> bool:
    if node.type != "call":
        return False
    fn = node.child_by_field_name("function")
    chain = _chain(_text(fn, source)) if fn is not None else None
    return bool(chain) and chain.rpartition(".")[2] == "param"


def _row_items(row: ts.Node, source: bytes) -> list[ts.Node]:
    """The items of one row: a tuple's or list's, or `pytest.param(...)`'s positional
    arguments."""
    if row.type in ("tuple", "list"):
        return [n for n in _named(row) if n.type != "comment"]
    if _is_param_call(row, source):
        args = row.child_by_field_name("arguments")
        return _arguments(args)[0] if args is not None else []
    return []


def _value(node: ts.Node, source: bytes) -> str | None:
    while node.type == "parenthesized_expression" and node.named_child_count == 1:
        node = node.named_children[0]
    if node.type == "string":
        text = _string(node, source)
        return f"str:{text}" if text and text.isidentifier() else None
    if node.type in ("identifier", "attribute"):
        chain = _chain(_text(node, source))
        return f"val:{chain}" if chain else None
    if node.type == "call":
        fn = node.child_by_field_name("function")
        if fn is not None and fn.type in ("identifier", "attribute"):
            chain = _chain(_text(fn, source))
            return f"val:{chain}()" if chain else None
    return None
