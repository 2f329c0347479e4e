"""What Python stores in containers and takes out by unpacking: the item bindings.

A literal collection assigned to a name (`HANDLERS = {"a": on_a}`, `steps = [load, save]`,
`self.hooks = (f, g)`) binds the name to the container (value `lit:`, one fact) and each
item to it under its key (value `item:KEY:VALUE`): KEY is the position in a list or tuple,
a dict's literal key (a plain string or an integer), `*` when it is unknown (a set, a key
written as an expression, an item after a `*spread`). VALUE is a chain (`is_call` when the
item is a call: `Square()` holds an instance), or `[]` for a nested literal, whose own items
are bound to the slot `NAME[KEY]` on the same line (no identifier can be spelled so).

`x[k] = v` stores an item into what `x` holds: a binding of `x[]` (`self.x[]`) with value
`item:KEY:VALUE`. Unpacking binds each target: `a, b = f, g` as `a = f` and `b = g`; a
starred target takes the rest as a literal list; `a, b = value` binds `at:N:chain`, the
N-th item of the value (of the call's result with `is_call`).

The resolver (values.py, containers.py) reads the items of a container when it is
subscripted, iterated or read through `.get`/`.values()`/`.items()`.
"""

from __future__ import annotations

import re

import tree_sitter as ts

from codeimpact.indexer.lang.api import BindingFact, FileFacts, ReferenceFact
from codeimpact.indexer.lang.python.chains import _chain, _named, callee_chain

_LITERALS = frozenset(("list", "tuple", "set", "dictionary"))
# what a `return` may hand back as a literal collection (query_facts.py _returned): also a
# bare tuple, `return f, g`
RETURNED_LITERALS = _LITERALS | {"expression_list"}
# what a `for` may iterate as a literal collection (bindings.py _for_binding): not a dict,
# whose iteration gives its keys
ITERATED_LITERALS = frozenset(("list", "tuple", "set", "expression_list"))
_PATTERNS = frozenset(("pattern_list", "tuple_pattern", "list_pattern"))
_TARGETS = frozenset(("identifier", "attribute"))
# the indexes of an item read (facts_items.c read_item: the roles of these node types)
_INDEXES = frozenset(
    ("identifier", "attribute", "call", "subscript", "integer", "string", "true", "false")
)
_KEY = re.compile(r"[\w.\-]{1,64}")  # a dict key kept as written; others are `*`
# containers (and unpacking patterns) nested deeper than this keep their items unrecorded
# (native/facts_items.c MAX_DEPTH: change both): 20,000 nested brackets overflowed the C
# stack, and nesting n makes item names of total length ~n^2
MAX_DEPTH = 32


def holds_items(lhs: ts.Node, rhs: ts.Node) -> bool:
    """Whether an assignment stores into or takes out of a container: a literal collection
    assigned to a name or member, or any value to an unpacking pattern or a subscript."""
    # native/facts.c (holds_items) decides the same for the native path, by node roles
    t = lhs.type
    return (
        t in _PATTERNS
        or t == "subscript"
        or (t in _TARGETS and (rhs.type in _LITERALS or rhs.type == "subscript"))
    )


def item_facts(scope: str, lhs: ts.Node, rhs: ts.Node, node: ts.Node, source: bytes,
               facts: FileFacts) -> None:  # fmt: skip
    """The facts of one assignment that `holds_items`, right after the assignment's own (the
    query path's; native/facts_items.c makes the same, object for object: change both)."""
    line = node.start_point[0] + 1
    if lhs.type in _PATTERNS:
        _unpack(scope, lhs, rhs, line, source, facts)
    elif lhs.type == "subscript":
        target = lhs.child_by_field_name("value")
        key = _key(lhs.child_by_field_name("subscript"), source)
        while target is not None and target.type == "subscript":
            # `self.handlers[scope][code] = f`: a registry of registries; the value is one
            # of self.handlers' items at some depth (registries.py), stored under no key
            target, key = target.child_by_field_name("value"), "*"
            if target is not None and target.type != "subscript":
                name = _target(target, source)
                if name is None or not name.startswith("self."):
                    return
        name = _target(target, source) if target is not None else None
        if name is not None:
            _item(scope, name + "[]", key, rhs, line, source, facts)
    elif rhs.type == "subscript":
        # (a declared type, `x: T = y[k]`, says more than the container's items)
        if node.child_by_field_name("type") is None:
            name = _target(lhs, source)
            if name is not None:
                _read_item(scope, name, rhs, line, source, facts)
    elif rhs.type in _LITERALS and node.child_by_field_name("type") is None:
        # (a declared type, `x: list[T] = []`, says more than the literal's items)
        name = _target(lhs, source)
        if name is not None and not name.endswith("__"):  # `__all__`, `__slots__`: names
            _literal(scope, name, rhs, line, source, facts)


def _target(node: ts.Node, source: bytes) -> str | None:
    """`x` or `self.x`: the names whose values the resolver follows."""
    if node.type == "identifier":
        return node.text.decode()
    if node.type == "attribute":
        chain = _chain(source[node.start_byte : node.end_byte])
        if chain and chain.startswith("self.") and chain.count(".") == 1:
            return chain
    return None


class Known:
    """The names a file's definitions and imports bind, in any scope (`import a.b` binds a,
    an alias its alias, `from m import *` any name): made when first asked, by `passes_items`
    (native/facts.c known_names makes the same)."""

    def __init__(self, defs: list, others: list) -> None:
        self._defs, self._others = defs, others
        self._names: set[bytes] | None = None
        self._any = False

    def __call__(self, head: bytes) -> bool:
        if self._names is None:
            self._names = self._made()
        return self._any or head in self._names

    def _made(self) -> set[bytes]:
        names = {name.text for _, name, _, _ in self._defs}
        for construct, caps in self._others:
            if construct not in ("import", "import.from"):
                continue
            node = caps[construct]
            bound = node.children_by_field_name("name")
            for child in bound:
                if child.type == "aliased_import":
                    alias = child.child_by_field_name("alias")
                    if alias is not None:
                        names.add(alias.text)
                elif construct == "import":
                    names.add(child.text.split(b".", 1)[0])
                else:
                    names.add(child.text)
            if construct == "import.from" and not bound:
                self._any |= any(c.type == "wildcard_import" for c in node.children)
        return names


def passes_items(lit: ts.Node, source: bytes, known: Known) -> bool:
    """Whether a literal collection passed as an argument (`run([f, g])`, `run({"go": f})`)
    is bound to `arg$<start byte>` (query_facts.py): one holding among its items (a dict's
    values) a name, or a member of a name (`mod.f`), that the file defines or imports, which
    a callee may call. Most literals passed hold constants, locals or `self.x` members
    (`assertEqual(qs, [a1, self.a2])`): they bind nothing."""
    # native/facts_items.c (passes_items) decides the same for the native path
    t = lit.type
    if t not in _LITERALS:
        return False
    for c in _named(lit):
        if t == "dictionary":
            if c.type != "pair":
                continue
            c = c.child_by_field_name("value")
            if c is None:
                continue
        if c.type in _TARGETS and known(source[c.start_byte : c.end_byte].split(b".", 1)[0]):
            return True
    return False


def literal_facts(scope: str, name: str, lit: ts.Node, line: int, source: bytes,
                  facts: FileFacts) -> None:  # fmt: skip
    """`name` bound to the literal collection `lit` and its items (a returned literal's;
    native/facts_items.c literal_facts makes the same)."""
    _literal(scope, name, lit, line, source, facts)


def _literal(scope, name, lit, line, source, facts, depth=0) -> None:
    facts.bindings.append(BindingFact(scope, name, "lit:", False, line))
    if lit.type == "dictionary":
        for pair in _named(lit):
            if pair.type == "pair":
                key = _key(pair.child_by_field_name("key"), source)
                value = pair.child_by_field_name("value")
                if value is not None:
                    _item(scope, name, key, value, line, source, facts, depth)
        return
    known = lit.type != "set"
    for pos, item in enumerate(c for c in _named(lit) if c.type != "comment"):
        if item.type == "list_splat":
            known = False  # the items after a spread are at unknown positions
            continue
        _item(scope, name, str(pos) if known else "*", item, line, source, facts, depth)


def _item(scope, name, key, value, line, source, facts, depth=0) -> None:
    """One item stored under `key` in the container bound to `name`, `depth` containers
    deep."""
    if value.type in _LITERALS:
        facts.bindings.append(BindingFact(scope, name, f"item:{key}:[]", False, line))
        if depth < MAX_DEPTH:
            _literal(scope, f"{name}[{key}]", value, line, source, facts, depth + 1)
        return
    chain, is_call = _value(value, source)
    if chain is None:
        return
    facts.bindings.append(BindingFact(scope, name, f"item:{key}:{chain}", is_call, line))
    if not is_call:  # a definition stored in a container is referenced from here
        facts.references.append(ReferenceFact(scope, chain, line, "value"))


def _read_item(scope, name, rhs, line, source, facts) -> None:
    """`x = y[k]`: the item stored under k in what y holds, `key:K:chain` (K `*` for a key
    that is not a plain literal; y a name, a member or a call, whose result is subscripted)."""
    index = rhs.child_by_field_name("subscript")
    if index is None or index.type not in _INDEXES:
        return  # a slice is a part of the container, not an item (nor `x[-1]`, `x[i + 1]`)
    base = rhs.child_by_field_name("value")
    chain, is_call = _value(base, source) if base is not None else (None, False)
    if chain:
        key = _key(index, source)
        facts.bindings.append(BindingFact(scope, name, f"key:{key}:{chain}", is_call, line))


def _value(node: ts.Node, source: bytes) -> tuple[str | None, bool]:
    if node.type in ("identifier", "attribute"):
        return _chain(source[node.start_byte : node.end_byte]), False
    if node.type == "call":
        fn = node.child_by_field_name("function")
        chain = callee_chain(source[fn.start_byte : fn.end_byte]) if fn is not None else None
        return chain, True
    return None, False


def _key(node: ts.Node | None, source: bytes) -> str:
    if node is None:
        return "*"
    if node.type == "integer":
        text = node.text.decode()
        return text if text.isdigit() else "*"
    if node.type == "string" and node.named_child_count == 3:  # start, content, end
        content = node.named_children[1]
        if content.type == "string_content":
            text = content.text.decode(errors="replace")
            if _KEY.fullmatch(text):
                return text
    return "*"


def _unpack(scope, lhs, rhs, line, source, facts, depth=0) -> None:
    targets = [t for t in _named(lhs) if t.type != "comment"]
    star = next((i for i, t in enumerate(targets) if t.type == "list_splat_pattern"), None)
    if rhs.type in ("expression_list", "tuple", "list"):
        values = [v for v in _named(rhs) if v.type != "comment"]
        if any(v.type in ("list_splat", "parenthesized_list_splat") for v in values):
            return  # positions on the right are not known
        if len(values) != len(targets) and (star is None or len(values) < len(targets) - 1):
            return  # would raise at run time
        after = len(targets) - 1 - star if star is not None else 0
        for i, t in enumerate(targets):
            if i == star:
                rest = values[i : len(values) - after]
                name = _target(t.named_children[0], source) if t.named_children else None
                if name is not None:
                    facts.bindings.append(BindingFact(scope, name, "lit:", False, line))
                    for pos, v in enumerate(rest):
                        _item(scope, name, str(pos), v, line, source, facts, depth)
                continue
            v = (
                values[i]
                if star is None or i < star
                else values[len(values) - after + i - star - 1]
            )
            if t.type in _PATTERNS:  # `a, (b, c) = f, (g, h)`: the nested pattern its value
                if depth < MAX_DEPTH:
                    _unpack(scope, t, v, line, source, facts, depth + 1)
                continue
            name = _target(t, source)
            if name is None:
                continue
            if v.type in _LITERALS:
                _literal(scope, name, v, line, source, facts, depth)
                continue
            chain, is_call = _value(v, source)
            if chain is not None:
                facts.bindings.append(BindingFact(scope, name, chain, is_call, line))
                if not is_call:
                    facts.references.append(ReferenceFact(scope, chain, line, "value"))
        return
    chain, is_call = _value(rhs, source)
    if chain is None:
        return
    for i, t in enumerate(targets):
        if star is not None and i >= star:
            break  # the positions from the end are not known without the length
        name = _target(t, source)
        if name is not None:
            facts.bindings.append(BindingFact(scope, name, f"at:{i}:{chain}", is_call, line))
