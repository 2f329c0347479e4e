"""Syntax helpers for TS/JS extraction: pure functions of tree-sitter nodes.

Chains (`a.b().c`), the one type a type expression names, what a value
expression says about its value, parameters, specifiers, and where a
declaration sits (exported, at module level, an overload signature).
"""

from __future__ import annotations

import re

import tree_sitter as ts

_NAME_NODES = frozenset(
    [
        "identifier",
        "property_identifier",
        "private_property_identifier",
        "shorthand_property_identifier",
        "type_identifier",
        "this",
        "super",
    ]
)
_TRANSPARENT = frozenset(["non_null_expression", "parenthesized_expression", "await_expression"])
_DECL_WRAPPERS = frozenset(["lexical_declaration", "variable_declaration", "ambient_declaration"])
_EXPORT_WRAPPERS = frozenset(["export_statement", "ambient_declaration"])
# wrappers that do not change which type a value has (for receivers)
_PROMISE_TYPES = frozenset(["Promise", "PromiseLike", "Awaited", "Readonly"])
_NULL_TYPES = frozenset(["null", "undefined", "void", "never"])
WS = re.compile(r"\s+")
_MAX_CHAIN = 48


# ---------------------------------------------------------------- node helpers
def node_text(node: ts.Node | None) -> str:
    return node.text.decode(errors="replace") if node is not None else ""


# A name or a dotted path of names, nothing between them (no `?.`, call, space or comment).
_PLAIN_CHAIN = re.compile(r"[A-Za-z_$][\w$]*(?:\.#?[A-Za-z_$][\w$]*)*")
_PLAIN_TYPES = frozenset(["identifier", "member_expression"])
_UNSEEN = object()


# raw text of an identifier or member expression -> its chain when the text is one, else
# None (the walk decides): a file repeats its chains (`this.x`, `$`, `gettext`), and the
# checks of a first sight cost more than the lookup. Emptied only between two files (once
# past _PLAIN_KEPT texts), so that one text is one string object throughout a file: marshal
# shares it, and a file's blob stays a function of the file alone.
_plain_seen: dict[bytes, str | None] = {}
_PLAIN_KEPT = 16384


def chains_next_file() -> None:
    """Called before each file's extraction: bounds the chain texts kept."""
    if len(_plain_seen) > _PLAIN_KEPT:
        _plain_seen.clear()


def chain(node: ts.Node | None) -> str | None:
    """`a.b?.c` -> "a.b.c", `f().g` -> "f().g", `new A().m` -> "A().m"; anything else None.

    Iterative, so a long builder chain cannot exhaust the recursion limit.
    """
    if node is not None and node.type in _PLAIN_TYPES:
        # most chains are plain `a.b.c`, which are their own text: read it once rather than
        # walking the member expressions (the walk was the largest cost of JS extraction)
        raw = node.text
        text = _plain_seen.get(raw, _UNSEEN)
        if text is _UNSEEN:
            text = raw.decode(errors="replace")
            if not (
                _PLAIN_CHAIN.fullmatch(text)
                and text.count(".") < _MAX_CHAIN
                and not text.startswith("import.")  # `import.meta`: `import` is not a name
            ):
                text = None
            _plain_seen[raw] = text
        if text is not None:
            return text
    return _chain_walk(node)


def _chain_walk(node: ts.Node | None) -> str | None:
    parts: list[str] = []
    while node is not None and len(parts) <= _MAX_CHAIN:
        t = node.type
        if t in _NAME_NODES:
            parts.append(node_text(node))
            break
        if t == "member_expression":
            prop = node.child_by_field_name("property")
            if prop is None or prop.type not in _NAME_NODES:
                return None
            parts.append(node_text(prop))
            node = node.child_by_field_name("object")
        elif t == "call_expression":
            parts.append("()")
            node = node.child_by_field_name("function")
            if node is not None and node.type == "import":
                return None
        elif t == "new_expression":
            parts.append("()")
            node = node.child_by_field_name("constructor")
        elif t in _TRANSPARENT:
            node = node.named_children[0] if node.named_children else None
        elif t == "sequence_expression":
            # `(0, mod_1.f)(x)`, tsc's CommonJS output: the comma operator yields its last value
            node = node.named_children[-1] if node.named_children else None
        elif t in ("nested_identifier", "nested_type_identifier"):
            parts.append(WS.sub("", node_text(node)))
            break
        else:
            return None
    else:
        return None
    out: list[str] = []
    for p in reversed(parts):
        if p == "()":
            if not out:
                return None
            out[-1] += "()"
        else:
            out.append(p)
    return ".".join(out)


def type_chain(node: ts.Node | None) -> str:
    """The one named type a type expression denotes (`Foo<T>` -> Foo, `Foo | null` -> Foo)."""
    while node is not None:
        t = node.type
        if t in ("type_annotation", "parenthesized_type", "readonly_type"):
            node = node.named_children[0] if node.named_children else None
        elif t == "type_identifier":
            return node_text(node)
        elif t == "nested_type_identifier":
            return WS.sub("", node_text(node))
        elif t == "generic_type":
            name = type_chain(node.child_by_field_name("name"))
            if name in _PROMISE_TYPES:
                args = node.child_by_field_name("type_arguments")
                node = args.named_children[0] if args is not None and args.named_children else None
            else:
                return name
        elif t == "union_type":
            rest = [
                c
                for c in node.named_children
                if not (
                    c.type in ("literal_type", "predefined_type") and node_text(c) in _NULL_TYPES
                )
                and c.type != "undefined"
            ]
            if len(rest) != 1:
                return ""
            node = rest[0]
        else:
            return ""
    return ""


def string_value(node: ts.Node | None) -> str | None:
    if node is None or node.type != "string":
        return None
    frag = [c for c in node.named_children if c.type == "string_fragment"]
    if len(frag) == 1:
        return node_text(frag[0])
    return "" if not node.named_children else None


def require_spec(node: ts.Node | None) -> tuple[str, ts.Node] | None:
    """The specifier of `require("m")` / `import("m")` (awaited or not) and the call node."""
    while node is not None and node.type in ("await_expression", "parenthesized_expression"):
        node = node.named_children[0] if node.named_children else None
    if node is None or node.type != "call_expression":
        return None
    fn = node.child_by_field_name("function")
    if fn is None or not (
        fn.type == "import" or (fn.type == "identifier" and node_text(fn) == "require")
    ):
        return None
    args = node.child_by_field_name("arguments")
    first = args.named_children[0] if args is not None and args.named_children else None
    spec = string_value(first)
    return (spec, node) if spec else None


def value_binding(node: ts.Node | None) -> tuple[str, bool] | None:
    """What a value expression says about its value: (chain, is_call) or (":Type", False)."""
    while node is not None and node.type in ("await_expression", "parenthesized_expression"):
        node = node.named_children[0] if node.named_children else None
    if node is None:
        return None
    t = node.type
    if t == "new_expression":
        c = chain(node.child_by_field_name("constructor"))
        return (c, True) if c else None
    if t == "call_expression":
        c = chain(node.child_by_field_name("function"))
        return (c, True) if c else None
    if t in ("as_expression", "satisfies_expression") and len(node.named_children) == 2:
        typ = type_chain(node.named_children[1])
        return (":" + typ, False) if typ else value_binding(node.named_children[0])
    if t in ("identifier", "member_expression", "non_null_expression"):
        c = chain(node)
        return (c, False) if c else None
    return None


def specifier(text: str) -> tuple[str, str]:
    """`type a as b` -> ("a", "b"); `c` -> ("c", "")."""
    text = WS.sub(" ", text).strip()
    if text.startswith("type "):
        text = text[5:]
    name, _, alias = text.partition(" as ")
    name, alias = name.strip().strip("'\""), alias.strip().strip("'\"")
    return name, "" if alias == name else alias


def export_kind(node: ts.Node) -> str | None:
    """'named' or 'default' when the declaration is exported by an enclosing `export`."""
    p = node.parent
    for _ in range(3):
        if p is None:
            return None
        if p.type == "export_statement":
            return "default" if any(c.type == "default" for c in p.children) else "named"
        if p.type not in _DECL_WRAPPERS:
            return None
        p = p.parent
    return None


def module_level_declarators(root: ts.Node, namespace_bodies: list[ts.Node]) -> set[int]:
    """Start bytes of the declarators of statements at the top of the file or of a namespace
    body (under `export` / `declare` wrappers), found from those tops down: a node's parent
    is a walk down from the root in tree-sitter, so asking each declarator's ancestors cost
    more than reading the tops' children."""
    out: set[int] = set()
    stack = list(namespace_bodies)
    if root.type == "program":
        stack.append(root)
    while stack:
        for c in stack.pop().named_children:
            t = c.type
            if t in _DECL_WRAPPERS:
                out.update(
                    d.start_byte for d in c.named_children if d.type == "variable_declarator"
                )
            if t in _EXPORT_WRAPPERS:
                stack.append(c)
    return out


def is_overload(node: ts.Node, name: str) -> bool:
    """A bodiless signature followed by more signatures and then the implementation."""
    stmt = (
        node.parent if node.parent is not None and node.parent.type == "export_statement" else node
    )
    sib = stmt.next_named_sibling
    while sib is not None:
        cur = sib
        if cur.type == "export_statement":
            cur = cur.child_by_field_name("declaration") or cur
        if cur.type == "comment":
            sib = sib.next_named_sibling
            continue
        if node_text(cur.child_by_field_name("name")) != name:
            return False
        if cur.type in ("function_declaration", "method_definition"):
            return True
        if cur.type not in ("function_signature", "method_signature"):
            return False
        sib = sib.next_named_sibling
    return False


def params_of(fn: ts.Node | None) -> tuple:
    """((name, type chain), ...); destructured parameters keep their position as ("", "")."""
    if fn is None:
        return ()
    single = fn.child_by_field_name("parameter")  # `x => ...`
    if single is not None:
        return ((node_text(single), ""),)
    params = fn.child_by_field_name("parameters")
    if params is None:
        return ()
    out = []
    for p in params.named_children:
        t = p.type
        if t in ("required_parameter", "optional_parameter"):
            pat = p.child_by_field_name("pattern")
            if pat is not None and pat.type == "this":
                continue  # `this: T` declares the receiver, not a parameter
            name = node_text(pat) if pat is not None and pat.type == "identifier" else ""
            if pat is not None and pat.type == "rest_pattern":
                name = "*" + node_text(pat.named_children[0]) if pat.named_children else ""
            out.append((name, type_chain(p.child_by_field_name("type"))))
        elif t == "identifier":
            out.append((node_text(p), ""))
        elif t == "assignment_pattern":
            left = p.child_by_field_name("left")
            out.append(
                (node_text(left) if left is not None and left.type == "identifier" else "", "")
            )
        elif t == "rest_pattern":
            inner = p.named_children[0] if p.named_children else None
            out.append(("*" + node_text(inner) if inner is not None else "", ""))
        elif t in ("object_pattern", "array_pattern"):
            out.append(("", ""))
    return tuple(out)


def signature_text(source: bytes, node: ts.Node, body: ts.Node | None) -> str:
    end = body.start_byte if body is not None else node.end_byte
    text = source[node.start_byte : end].decode(errors="replace")
    return WS.sub(" ", text).strip().rstrip("{;").strip()[:300]


def clean_name(name: str) -> str:
    """A name usable in a dotted local: quotes of `'a-b'() {}` dropped, dots of computed names
    (`[Symbol.iterator]`) made underscores, since "." and "#" are structure in locals."""
    name = name.strip("'\"`")
    if "." in name or " " in name or "\n" in name:
        name = re.sub(r"[.\s]+", "_", name)
    return name


def reindex(intervals: list[tuple[int, int, str, int]]) -> list[tuple[int, int, str, int]]:
    """Recompute parent indexes after sorting (bodies can start out of definition order)."""
    out: list[tuple[int, int, str, int]] = []
    stack: list[int] = []
    for start, end, local, _ in intervals:
        while stack and out[stack[-1]][1] <= start:
            stack.pop()
        out.append((start, end, local, stack[-1] if stack else -1))
        stack.append(len(out) - 1)
    return out


def pattern_names(node: ts.Node) -> list[ts.Node]:
    """Identifiers a destructuring pattern binds."""
    out = []
    for c in node.named_children:
        if c.type in ("identifier", "shorthand_property_identifier_pattern"):
            out.append(c)
        elif c.type == "pair_pattern":
            v = c.child_by_field_name("value")
            if v is not None and v.type == "identifier":
                out.append(v)
        elif c.type == "assignment_pattern":
            left = c.child_by_field_name("left")
            if left is not None and left.type in (
                "identifier",
                "shorthand_property_identifier_pattern",
            ):
                out.append(left)
    return out


def object_pattern_pairs(node: ts.Node) -> list[tuple[str, str]]:
    """`{a, b: c}` -> [("a", "a"), ("b", "c")]."""
    out = []
    for c in node.named_children:
        if c.type == "shorthand_property_identifier_pattern":
            out.append((node_text(c), node_text(c)))
        elif c.type == "pair_pattern":
            k, v = c.child_by_field_name("key"), c.child_by_field_name("value")
            if k is not None and v is not None and v.type == "identifier":
                out.append((node_text(k).strip("'\""), node_text(v)))
    return out


def object_pairs(node: ts.Node) -> list[list[str]]:
    """`{a, b: c}` as module.exports -> [["a", "a"], ["b", "c"]] (plain names only)."""
    out = []
    for c in node.named_children:
        if c.type == "shorthand_property_identifier":
            out.append([node_text(c), node_text(c)])
        elif c.type == "pair":
            k, v = c.child_by_field_name("key"), c.child_by_field_name("value")
            if k is not None and v is not None and v.type in ("identifier", "member_expression"):
                vc = chain(v)
                if vc:
                    out.append([node_text(k).strip("'\""), vc])
    return out
