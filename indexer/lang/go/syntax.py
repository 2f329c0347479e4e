"""Go's expressions in the chain form (lang/syntax_common.py) and the node helpers the
handlers share: what a type expression names, the chain of a value, the callee of a call,
declared names, parameters, results and their counts; the builtin names."""

from __future__ import annotations

import tree_sitter as ts

from codeimpact.indexer.lang.syntax_common import ChainForm, callee_of, chain_of, text

BUILTIN_TYPES = frozenset(
    "any bool byte comparable complex64 complex128 error float32 float64 int int8 int16 int32"
    " int64 rune string uint uint8 uint16 uint32 uint64 uintptr".split()
)
BUILTIN_FUNCS = frozenset(
    "append cap clear close complex copy delete imag len make max min new panic print println"
    " real recover".split()
)


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


# Go's value expressions in the chain form (syntax_common.ChainForm)
CHAIN = ChainForm(
    type_chain,
    names=frozenset({"identifier"}),
    members={"selector_expression": ("operand", "field")},
    calls={"call_expression": "function"},
    callee_index={"index_expression": "operand"},
    constructions={
        t: "type"
        for t in ("composite_literal", "type_assertion_expression", "type_conversion_expression")
    },
    inner={"unary_expression": "operand", "parenthesized_expression": 0},
    operators={"unary_expression": frozenset({"&", "*"})},  # `&x`, `*p`: not `-x`, `!ok`
    indexed={"index_expression": "operand"},  # an element of a slice, array or map
)


def chain(node: ts.Node | None) -> str | None:
    """The chain of a value expression; None when it has no such form."""
    return chain_of(CHAIN, node)


def callee_chain(node: ts.Node | None) -> str | None:
    """The chain of a callee; `F[]` for `F[int](x)` (see syntax_common.ChainForm)."""
    return callee_of(CHAIN, node)


def last_name(node: ts.Node) -> str:
    if node.type == "selector_expression":
        return "?." + text(node.child_by_field_name("field"))
    return "?"


def decl_names(node: ts.Node) -> list[ts.Node]:
    # the grammar files the commas of `a, b int` under the `name` field too
    return [n for n in node.children_by_field_name("name") if n.is_named]


def params_of(node: ts.Node | None) -> list[tuple[str, str]]:
    out = []
    if node is None:
        return out
    for p in node.named_children:
        typ = decl_chain(p.child_by_field_name("type"))
        if p.type == "variadic_parameter_declaration" and typ:
            typ = typ if typ.startswith("[]") else f"[]{typ}"  # `xs ...T` is a []T
        for n in decl_names(p):
            out.append((text(n), typ))
    return out


def value_count(node: ts.Node | None) -> int:
    """How many values a parameter or result list declares (`a, b int` is two, `int` one)."""
    if node is None:
        return 0
    if node.type != "parameter_list":
        return 1
    return sum(max(1, len(decl_names(p))) for p in node.named_children)


def walk(node: ts.Node | None):
    stack = [node] if node is not None else []
    while stack:
        n = stack.pop()
        yield n
        stack.extend(n.named_children)


def results_of(node: ts.Node | None):
    """The declared result types: a chain, or a tuple of them for several results."""
    if node is None:
        return ""
    if node.type != "parameter_list":
        return decl_chain(node)
    out = []
    for p in node.named_children:
        typ = decl_chain(p.child_by_field_name("type"))
        out += [typ] * max(1, len(decl_names(p)))
    if len(out) == 1:
        return out[0]
    return tuple(out) if any(out) else ""
