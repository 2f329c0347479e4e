"""Java's value and type expressions in the chain form (lang/syntax_common.py): what a type
expression names, the chain of a value expression, the callee of a method invocation."""

from __future__ import annotations

import tree_sitter as ts

from codeimpact.indexer.lang.syntax_common import text


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


def chain(node: ts.Node | None) -> str | None:
    """The chain of a value expression (see lang/syntax_common.py); None when it has no such form."""
    if node is None:
        return None
    t = node.type
    if t in ("identifier", "this", "super"):
        return text(node)
    if t == "field_access":
        obj = chain(node.child_by_field_name("object"))
        return f"{obj}.{text(node.child_by_field_name('field'))}" if obj else None
    if t == "method_invocation":
        head = callee_chain(node)
        return f"{head}()" if head and not head.startswith("?") else None
    if t in ("object_creation_expression", "cast_expression"):
        tc = type_chain(node.child_by_field_name("type"))
        return f"{tc}{{}}" if tc else None
    if t == "parenthesized_expression" and node.named_children:
        return chain(node.named_children[0])
    if t == "string_literal":
        return "String{}"
    if t == "class_literal":
        return "Class{}"
    if t == "assignment_expression":  # `(x = expr).m()` calls m on the assigned value
        return chain(node.child_by_field_name("right"))
    if t == "scoped_identifier":
        return type_chain(node) or None
    return None


def callee_chain(node: ts.Node) -> str:
    """`a.b.m` of a method_invocation; `?.m` when the receiver has no chain form."""
    name = text(node.child_by_field_name("name"))
    obj = node.child_by_field_name("object")
    if obj is None:
        return name
    head = chain(obj)
    return f"{head}.{name}" if head else f"?.{name}"
