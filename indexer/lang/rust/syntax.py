"""Rust syntax as text: paths, chains and encoded types of tree-sitter nodes, and attributes.

The encodings are the ones rust/extract.py's docstring describes (chains with Rust's own
separators, types as short strings: `dyn A+B`, `?X` for Option/Result, `[]X` for a
container); the resolver reads them back. Pure functions of a node.
"""

from __future__ import annotations

import re

import tree_sitter as ts


def words(text: str) -> frozenset[str]:
    """A table written as whitespace-separated words."""
    return frozenset(text.split())


# Pointers that methods see through (Deref), and wrappers a `?` / unwrap opens.
DEREF = words("Box Rc Arc Cow Pin RefCell Mutex RwLock ManuallyDrop Weak")
# Containers: indexing or iterating them gives their element (a map: its value).
SEQS = words("Vec VecDeque LinkedList BinaryHeap HashSet BTreeSet IndexSet SmallVec")
MAPS = words("HashMap BTreeMap IndexMap")
WRAP = frozenset(["Option"])  # and any path ending in Result (io::Result, anyhow::Result)
CFG_TEST = re.compile(r"\btest\b")
CFG_NOT_TEST = re.compile(r"\bnot\s*\(\s*test\s*\)")


def node_text(node: ts.Node) -> str:
    return node.text.decode(errors="replace")


# ---------------------------------------------------------------- chains and types
def path_of(node: ts.Node | None) -> str | None:
    """`a::b::C`, `S::<T>::new`, `<S as Tr>::m` -> the path without generics."""
    if node is None:
        return None
    t = node.type
    if t in ("identifier", "type_identifier", "self", "crate", "super", "primitive_type"):
        return node_text(node)
    if t in ("scoped_identifier", "scoped_type_identifier"):
        name = node.child_by_field_name("name")
        if name is None:
            return None
        path = node.child_by_field_name("path")
        if path is None:  # a leading `::`
            return node_text(name)
        head = path_of(path)
        return f"{head}::{node_text(name)}" if head else None
    if t == "generic_type":
        return path_of(node.child_by_field_name("type"))
    if t == "generic_function":
        return path_of(node.child_by_field_name("function"))
    if t == "bracketed_type":  # <S as Tr>::m -> S::m
        inner = node.named_children[0] if node.named_children else None
        if inner is not None and inner.type == "qualified_type":
            inner = inner.child_by_field_name("type")
        return path_of(inner)
    return None


def chain_of(node: ts.Node | None) -> str | None:
    """The chain of an expression (module docstring), or None when it is not one."""
    if node is None:
        return None
    t = node.type
    if t == "field_expression":
        value = chain_of(node.child_by_field_name("value"))
        field = node.child_by_field_name("field")
        return f"{value}.{node_text(field)}" if value and field is not None else None
    if t == "call_expression":
        fn = chain_of(node.child_by_field_name("function"))
        return f"{fn}()" if fn else None
    if t == "try_expression":
        inner = chain_of(node.named_children[0]) if node.named_children else None
        return f"{inner}?" if inner else None
    if t == "await_expression":  # an async fn's declared return type is what .await yields
        return chain_of(node.named_children[0]) if node.named_children else None
    if t == "generic_function":
        return chain_of(node.child_by_field_name("function"))
    if t == "reference_expression":
        return chain_of(node.child_by_field_name("value"))
    if t == "index_expression":  # an element of a container
        inner = chain_of(node.named_children[0]) if node.named_children else None
        return f"{inner}[]" if inner else None
    return path_of(node)


def generic_bounds(tparams: ts.Node | None, where: ts.Node | None, out: dict) -> None:
    """Type parameter -> encoded type: `dyn A+B` for its trait bounds, "" for none."""
    if tparams is not None:
        for p in tparams.named_children:
            if p.type == "type_parameter":
                name = p.child_by_field_name("name")
                if name is not None:
                    out[node_text(name)] = bounds_of(
                        p.child_by_field_name("bounds"), out.get(node_text(name))
                    )
    if where is not None:
        for pred in where.named_children:
            left = pred.child_by_field_name("left")
            if (
                pred.type == "where_predicate"
                and left is not None
                and left.type == "type_identifier"
            ):
                name = node_text(left)
                if name in out:
                    out[name] = bounds_of(pred.child_by_field_name("bounds"), out[name])


def bounds_of(bounds: ts.Node | None, prev: str | None) -> str:
    paths = [p for p in (prev[4:].split("+") if prev else []) if p]
    if bounds is not None:
        for b in bounds.named_children:
            p = path_of(b) if b.type != "function_type" else None
            if p and p not in paths:
                paths.append(p)
    return "dyn " + "+".join(paths) if paths else ""


def type_of(node: ts.Node | None, generics: dict) -> str:
    """The encoded type of a type node (module docstring)."""
    if node is None:
        return ""
    t = node.type
    if t in ("reference_type", "pointer_type"):
        return type_of(node.child_by_field_name("type"), generics)
    if t in ("type_identifier", "scoped_type_identifier"):
        name = path_of(node) or ""
        if name in generics:
            return generics[name]
        # `fmt::Result`: a Result alias whose value type is fixed and not written
        return "?" if name.endswith("Result") else name
    if t == "primitive_type":
        return node_text(node)
    if t in ("array_type", "slice_type"):
        return "[]" + type_of(node.child_by_field_name("element"), generics)
    if t == "generic_type":
        base = path_of(node.child_by_field_name("type")) or ""
        last = base.rpartition("::")[2]
        args = node.child_by_field_name("type_arguments")
        first = next(
            (a for a in (args.named_children if args else ()) if a.type != "lifetime"), None
        )
        if first is not None and last in DEREF:
            return type_of(first, generics)
        if first is not None and last in SEQS:
            return "[]" + type_of(first, generics)
        if first is not None and last in MAPS:
            kinds = [a for a in args.named_children if a.type != "lifetime"]
            return "[]" + (type_of(kinds[1], generics) if len(kinds) > 1 else "")
        if first is not None and (last in WRAP or last.endswith("Result")):
            inner = type_of(first, generics)
            return "?" + inner if inner else ""
        if base in generics:
            return generics[base]
        return base
    if t in ("dynamic_type", "abstract_type"):
        trait = node.child_by_field_name("trait")
        parts = (
            trait.named_children if trait is not None and trait.type == "bounded_type" else [trait]
        )
        paths = [p for p in (path_of(x) for x in parts if x is not None) if p]
        return "dyn " + "+".join(paths) if paths else ""
    return ""


# ---------------------------------------------------------------- attributes
def attributes(node: ts.Node) -> list[tuple[str, str]]:
    """(path, arguments text) of the outer attributes written before an item."""
    out = []
    sib = node.prev_named_sibling
    while sib is not None and sib.type in ("attribute_item", "line_comment", "block_comment"):
        if sib.type == "attribute_item":
            attr = sib.named_children[0] if sib.named_children else None
            if attr is not None and attr.named_children:
                path = path_of(attr.named_children[0]) or ""
                args = attr.child_by_field_name("arguments")
                value = attr.child_by_field_name("value")
                arg_text = node_text(args) if args is not None else ""
                if value is not None and value.type == "string_literal":
                    arg_text = node_text(value)[1:-1]
                out.append((path, arg_text))
        sib = sib.prev_named_sibling
    return out


def is_test_attr(path: str, args: str) -> bool:
    if path in ("test", "bench", "rstest", "test_case", "quickcheck") or path.endswith("::test"):
        return True
    return path == "cfg" and bool(CFG_TEST.search(args)) and not CFG_NOT_TEST.search(args)


def impl_type_name(node: ts.Node) -> str:
    """The name an impl's methods are prefixed with: the self type's last name."""
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type == "scoped_type_identifier":
            name = n.child_by_field_name("name")
            if name is not None:
                return node_text(name)
        if n.type in ("type_identifier", "primitive_type"):
            return node_text(n)
        if n.type == "generic_type":
            stack.append(n.child_by_field_name("type"))
            continue
        stack.extend(reversed(n.named_children))
    return "_"
