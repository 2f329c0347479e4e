"""Java's value and type expressions in the chain form (lang/syntax_common.py): what a type
expression names, the chain of a value expression, the callee of a method invocation."""

from __future__ import annotations

import tree_sitter as ts

from codeimpact.indexer.lang.syntax_common import ChainForm, chain_of, text


def type_chain(node: ts.Node | None) -> str:
    """The class a type expression names (type arguments dropped); "" for arrays, primitives."""
    while node is not None:
        t = node.type
        if t in ("type_identifier", "identifier"):
            name = text(node)
            return "" if name == "var" else name
        if t in ("scoped_type_identifier", "scoped_identifier"):
            parts = [type_chain(c) for c in node.named_children if c.type != "annotation"]
            return ".".join(parts) if all(parts) else ""
        if t == "generic_type" and node.named_children:
            node = node.named_children[0]
        elif t == "annotated_type" and node.named_children:
            node = node.named_children[-1]
        else:
            return ""
    return ""


# Java's value expressions in the chain form (syntax_common.ChainForm)
CHAIN = ChainForm(
    type_chain,
    names=frozenset({"identifier", "this", "super"}),
    fixed={"string_literal": "String{}", "class_literal": "Class{}"},
    members={"field_access": ("object", "field")},
    member_calls={"method_invocation": ("object", "name")},
    constructions={"object_creation_expression": "type", "cast_expression": "type"},
    # `(x = expr).m()` calls m on the assigned value
    inner={"parenthesized_expression": 0, "assignment_expression": "right"},
    types=frozenset({"scoped_identifier"}),
)


def chain(node: ts.Node | None) -> str | None:
    """The chain of a value expression; None when it has no such form."""
    return chain_of(CHAIN, node)


def callee_chain(node: ts.Node) -> str:
    """`a.b.m` of a method_invocation; `?.m` when the receiver has no chain form."""
    name = text(node.child_by_field_name("name"))
    obj = node.child_by_field_name("object")
    if obj is None:
        return name
    head = chain(obj)
    return f"{head}.{name}" if head else f"?.{name}"
