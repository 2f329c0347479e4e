"""Dart syntax the extraction reads: chains of the flat expressions (a primary and the
selectors beside it in its parent), and types as declarations write them (the grammar
writes a type's pieces as siblings of the declared names)."""

from __future__ import annotations

import tree_sitter as ts

from codeimpact.indexer.lang.syntax_common import child, text

MEMBER_SELECTORS = ("unconditional_assignable_selector", "conditional_assignable_selector")
_CONTAINERS = frozenset({"List", "Iterable", "Set"})


def string_value(node: ts.Node | None) -> str:
    """The text of a string literal without its quotes (interpolations as written)."""
    s = text(node).lstrip("r")
    for q in ('"""', "'''", '"', "'"):
        if s.startswith(q) and s.endswith(q) and len(s) >= 2 * len(q):
            return s[len(q) : -len(q)]
    return s


def _primary(node: ts.Node) -> str | None:
    t = node.type
    if t == "identifier":
        return text(node)
    if t in ("this", "super"):
        return t
    if t in ("new_expression", "const_object_expression"):
        tn = child(node, "type_identifier")
        return f"{text(tn)}{{}}" if tn is not None else None
    if t == "parenthesized_expression" and node.named_children:
        inner = node.named_children[0]
        if inner.type == "type_cast_expression":
            tn = child(child(inner, "type_cast"), "type_identifier")
            return f"{text(tn)}{{}}" if tn is not None else None
        return seq_chain(node.named_children)
    if t in ("unary_expression", "await_expression") and node.named_children:
        inner = node.named_children
        if t == "unary_expression":  # `await f()`: the value the future completes with
            inner = inner[0].named_children if inner[0].type == "await_expression" else []
        return seq_chain(inner)
    if t == "string_literal":
        return "String{}"
    if t == "list_literal":
        return "List{}"
    if t == "set_or_map_literal":  # `{}` is a Map unless it holds single values
        return "Map{}" if not node.named_children or ":" in text(node) else "Set{}"
    return None


def _step(node: ts.Node) -> str | None:
    """What a selector adds to a chain ("" for `!`, a cascade returns its receiver)."""
    t = node.type
    if t in MEMBER_SELECTORS:
        name = child(node, "identifier")
        return f".{text(name)}" if name is not None else None
    if t == "cascade_section":
        return ""
    if t == "selector":
        if not node.named_children:
            return ""  # `x!`
        inner = node.named_children[0]
        if inner.type == "argument_part":
            return "()"
        return _step(inner)
    return None


def seq_chain(nodes: list[ts.Node]) -> str | None:
    """The chain of an expression the grammar writes flat: a primary and its selectors."""
    if not nodes:
        return None
    head = _primary(nodes[0])
    for n in nodes[1:]:
        if head is None:
            return None
        step = _step(n)
        if step is None:
            return None
        head += step
    return head


def receiver_start(siblings: list[ts.Node], i: int, kinds: tuple[str, ...]) -> int:
    """Index of the primary whose selectors run up to siblings[i] (exclusive)."""
    j = i - 1
    while j > 0 and siblings[j].type in kinds:
        j -= 1
    return j


def argv(arguments: ts.Node | None) -> list[ts.Node]:
    if arguments is None:
        return []
    out = []
    for a in arguments.named_children:
        if a.type == "argument" and a.named_children:
            out.append(a.named_children[0])
        elif a.type == "named_argument" and a.named_children:
            out.append(a.named_children[-1])
    return out


# ---------------------------------------------------------------- definitions


def type_text(node: ts.Node | None) -> str:
    """A type as written: `Cart`, or `p.Cart` through an import prefix (the grammar writes
    the two names as siblings)."""
    if node is None:
        return ""
    dot = node.next_sibling
    after = dot.next_sibling if dot is not None and dot.type == "." else None
    if after is not None and after.type == "type_identifier":
        return f"{text(node)}.{text(after)}"
    return text(node)


def _type_at(node: ts.Node) -> str:
    """The type a type_identifier starts: `[]Cart` for a List, Iterable or Set of Cart (the
    engine's container: its elements are typed), else the name (`p.Cart`, `Map`)."""
    if text(node) in _CONTAINERS:
        args = node.next_named_sibling
        inner = child(args, "type_identifier") if args and args.type == "type_arguments" else None
        if inner is not None and inner == args.named_children[0]:
            element = _type_at(inner)
            return f"[]{element}" if element and not element.startswith("[]") else ""
    return type_text(node)


def declared_type(nodes) -> str:
    """The type a declaration writes before its names (`final Cart c`, `List<Cart>? xs`)."""
    for n in nodes:
        if n.type == "type_identifier":
            return _type_at(n)
        if n.type in ("identifier", "initialized_identifier_list", "static_final_declaration_list"):
            return ""
    return ""


def result_type(signature: ts.Node) -> str:
    """A function's declared result; a Future's (FutureOr's) value type, which `await` gives."""
    res = declared_type(signature.named_children)
    if res in ("Future", "FutureOr"):
        inner = child(child(signature, "type_arguments"), "type_identifier")
        return _type_at(inner) if inner is not None else ""
    return res


def toplevel_type(lst: ts.Node) -> str:
    """A top-level declaration's type: the siblings before its list (the grammar is flat)."""
    prev, found = lst.prev_sibling, ""
    while prev is not None and prev.type in ("type_identifier", "type_arguments",
                                             "nullable_type", "final_builtin", "const_builtin",
                                             "late", "inferred_type"):  # fmt: skip
        if prev.type == "type_identifier":
            found = type_text(prev)
        prev = prev.prev_sibling
    return found
