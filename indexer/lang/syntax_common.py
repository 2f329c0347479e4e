"""Extraction helpers shared by the languages whose extractors walk query matches in Python
(all but Python's native path).

Those extractors run one query over the tree and hand each match to a handler chosen by
its capture name; these helpers hold what the handlers have in common: lexical scopes by
binary search over sorted intervals, `#n` names for redefinitions and overloads, symbol
facts, and the "chain" text of an expression: one walker (`chain_of`) driven by each
grammar's table of node types (`ChainForm`, declared once in the language's module).

Chains are the dotted form the resolvers read: `a.b.c`; a segment ending in
`()` is the result of calling it (`NewFoo().Run`), a segment ending in `{}` is
a fresh value of the type named so far (`pkg.Foo{}.Run`, Java `new Foo().run`,
a cast or a type assertion).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Mapping
from types import MappingProxyType

import tree_sitter as ts

# count_lines: the extractors of Go, Java and the C family import it from here
from codeimpact.indexer.lang.api import FileFacts, SymbolFact, count_lines  # noqa: F401
from codeimpact.native.record import Hashed

_WS = re.compile(r"\s+")


def line(node: ts.Node) -> int:
    return node.start_point[0] + 1


def text(node: ts.Node | None) -> str:
    return node.text.decode(errors="replace") if node is not None else ""


def child(node: ts.Node | None, *types: str) -> ts.Node | None:
    """The first named child of one of those node types (None when none or no node)."""
    if node is None:
        return None
    return next((c for c in node.named_children if c.type in types), None)


def signature(source: bytes, start: int, end: int) -> str:
    """The declaration head on one line (bodies cut off by the caller's `end`)."""
    return _WS.sub(" ", source[start:end].decode(errors="replace")).strip()[:300]


class NestedScopes:
    """Innermost enclosing definition of a byte offset, over intervals (start, end, local,
    index of the parent interval) sorted by start that nest properly (tree-sitter nodes
    do): a lookup is one bisect plus a short walk outwards."""

    def __init__(self, items: list[tuple[int, int, str, int]]):
        self.starts = [iv[0] for iv in items]
        self.items = items

    def at(self, pos: int) -> str:
        i = bisect.bisect_right(self.starts, pos) - 1
        while i >= 0:
            start, end, local, parent = self.items[i]
            if start <= pos < end:
                return local
            i = parent
        return ""


class Scopes(NestedScopes):
    """NestedScopes of (start, end, local) intervals in any order (the parents found here)."""

    def __init__(self, intervals: list[tuple[int, int, str]]):
        items: list[tuple[int, int, str, int]] = []
        stack: list[int] = []
        for start, end, local in sorted(intervals, key=lambda iv: (iv[0], -iv[1])):
            while stack and items[stack[-1]][1] <= start:
                stack.pop()
            items.append((start, end, local, stack[-1] if stack else -1))
            stack.append(len(items) - 1)
        super().__init__(items)


class Names:
    """Dotted locals with `#2`, `#3`... for a name defined again in the same scope."""

    def __init__(self) -> None:
        self.seen: dict[str, int] = {}

    def unique(self, local: str) -> str:
        n = self.seen.get(local, 0) + 1
        self.seen[local] = n
        return local if n == 1 else f"{local}#{n}"


def symbol_fact(source: bytes, node: ts.Node, local: str, kind: str, name: str, *,
                exported: bool, sig_end: int | None = None, params: tuple = (),
                is_test: bool = False, sig: str | None = None, start: ts.Node | None = None,
                decorators: tuple = ()) -> SymbolFact:  # fmt: skip
    """The SymbolFact of a definition spanning `node` (from `start` when given: Python's
    decorators belong to what they decorate); its signature is `sig` when the language makes
    its own, else it runs from `node` to `sig_end` (the body's start), else to the end of
    its first line."""
    if sig is None:
        end = node.end_byte if sig_end is None else sig_end
        if sig_end is None:
            nl = source.find(b"\n", node.start_byte, end)
            end = nl if nl >= 0 else end
        sig = signature(source, node.start_byte, end)
    first = node if start is None else start
    return SymbolFact(local, kind, name, line(first), node.end_point[0] + 1, first.start_byte,
                      node.end_byte, sig, exported, is_test, params, decorators)  # fmt: skip


def module_symbol(root: ts.Node, source: bytes) -> SymbolFact:
    return SymbolFact(
        "", "module", "", 1, max(1, root.end_point[0] + 1), 0, len(source), "", True, False, (), ()
    )


def mark_errors(root: ts.Node, grammar: str, facts: FileFacts) -> None:
    """A file with syntax errors is `partial`: its facts are kept, the first error is named."""
    if not root.has_error:
        return
    facts.status = "partial"
    first = first_error_line(root)
    facts.error = f"syntax error at line {first}" if first is not None else "syntax error"


def first_error_line(root: ts.Node) -> int | None:
    """The line of the first ERROR or MISSING node: the first in document order starts
    first, so the walk enters only the nodes holding an error (a query for every error node
    visited the whole tree of a third of the kernel's files). A node may say it holds an
    error that none of its children shows (a preprocessor definition's): the walk goes on."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            return line(node)
        stack.extend(reversed([c for c in node.children if c.has_error]))
    return None


# ---------------------------------------------------------------- the chain of an expression


class Child(Hashed):
    """In a Pick: the first named child of this node type (for grammars without fields)."""

    type: str
    __slots__ = ("type",)

    def __init__(self, type: str) -> None:
        self.type = type


# Where a sub-node of a node is: a field name, an index among the named children (-1 the
# last), a Child, or a tuple of those followed one after the other.
Pick = str | int | Child | tuple


def pick(node: ts.Node | None, where: Pick) -> ts.Node | None:
    """The sub-node of `node` at `where` (None when it is not there)."""
    if node is None:
        return None
    if isinstance(where, str):
        return node.child_by_field_name(where)
    if isinstance(where, int):
        kids = node.named_children
        return kids[where] if -len(kids) <= where < len(kids) else None
    if isinstance(where, Child):
        return child(node, where.type)
    for step in where:
        node = pick(node, step)
    return node


class ChainForm(Hashed):
    """How one grammar writes the value expressions of the chain form: node type -> rule.
    Data, declared once per language; `chain_of` is the one walker over it.

    names: the node's text is the chain (`x`, Java's `this`). fixed: a set chain (`this`,
    `super`, Java's `"s"` -> `String{}`). texts: a node whose whole text is this key (C#'s
    anonymous `this`/`base` keywords). members: (object, name) of `a.b`; a name node of a
    type in member_names holds the plain name there (C++ `x.As<T>`). calls: the callee of
    `f()`; a callee of a type in callee_index is `F[]` (Go's `F[int](x)`: an instantiated
    generic or an element of a map of functions; the resolver tells them apart).
    member_calls: (object, name) of a call that names its method itself (Java's
    `a.m()`; `m()` without an object). constructions: where the type of `T{}` is (a
    construction, a cast, a type assertion). inner: the sub-expression whose chain this is
    (parentheses, `&x`), when `operators` has the node type only after one of those first
    tokens. indexed: the operand of `a[i]`. types: the node's type chain is its chain
    (C++ `ns::f`, Java's `a.b.C`)."""

    type_chain: Callable[[ts.Node | None], str]  # noqa: E731 - no types
    names: frozenset[str]
    fixed: Mapping[str, str]
    texts: Mapping[str, str]
    members: Mapping[str, tuple[Pick, Pick]]
    member_names: Mapping[str, Pick]
    calls: Mapping[str, Pick]
    callee_index: Mapping[str, Pick]
    member_calls: Mapping[str, tuple[Pick, Pick]]
    constructions: Mapping[str, Pick]
    inner: Mapping[str, Pick]
    operators: Mapping[str, frozenset[str]]
    indexed: Mapping[str, Pick]
    types: frozenset[str]
    # node type -> (rule, its argument): one lookup a node (chains are walked per call site)
    rules: Mapping[str, tuple[str, object]]
    __slots__ = (
        "type_chain",
        "names",
        "fixed",
        "texts",
        "members",
        "member_names",
        "calls",
        "callee_index",
        "member_calls",
        "constructions",
        "inner",
        "operators",
        "indexed",
        "types",
        "rules",
    )
    _unshown = ("rules",)
    _uncompared = ("rules",)

    def __init__(
        self,
        type_chain: Callable[[ts.Node | None], str] = lambda node: "",
        names: frozenset[str] = frozenset(),
        fixed: Mapping[str, str] | None = None,
        texts: Mapping[str, str] | None = None,
        members: Mapping[str, tuple[Pick, Pick]] | None = None,
        member_names: Mapping[str, Pick] | None = None,
        calls: Mapping[str, Pick] | None = None,
        callee_index: Mapping[str, Pick] | None = None,
        member_calls: Mapping[str, tuple[Pick, Pick]] | None = None,
        constructions: Mapping[str, Pick] | None = None,
        inner: Mapping[str, Pick] | None = None,
        operators: Mapping[str, frozenset[str]] | None = None,
        indexed: Mapping[str, Pick] | None = None,
        types: frozenset[str] = frozenset(),
    ) -> None:
        self.type_chain = type_chain
        self.names = names
        self.fixed = {} if fixed is None else fixed
        self.texts = {} if texts is None else texts
        self.members = {} if members is None else members
        self.member_names = {} if member_names is None else member_names
        self.calls = {} if calls is None else calls
        self.callee_index = {} if callee_index is None else callee_index
        self.member_calls = {} if member_calls is None else member_calls
        self.constructions = {} if constructions is None else constructions
        self.inner = {} if inner is None else inner
        self.operators = {} if operators is None else operators
        self.indexed = {} if indexed is None else indexed
        self.types = types
        self.__post_init__()

    def __post_init__(self) -> None:
        rules: dict[str, tuple[str, object]] = {}
        for kind, table in (
            ("fixed", self.fixed),
            ("member", self.members),
            ("call", self.calls),
            ("member_call", self.member_calls),
            ("construction", self.constructions),
            ("inner", self.inner),
            ("indexed", self.indexed),
        ):
            for t, arg in table.items():
                rules[t] = (kind, arg)
        rules.update({t: ("name", None) for t in self.names})
        rules.update({t: ("type", None) for t in self.types})
        object.__setattr__(self, "rules", MappingProxyType(rules))


def chain_of(form: ChainForm, node: ts.Node | None) -> str | None:
    """The chain of a value expression (`a.b().c`, `T{}.m`, `a[i]`); None when it has no such
    form. A segment is never empty."""
    if node is None:
        return None
    rule = form.rules.get(node.type)
    if rule is None:
        return form.texts.get(text(node)) if form.texts else None
    kind, arg = rule
    if kind == "name":
        return text(node)
    if kind == "fixed":
        return arg
    if kind == "member":
        op = chain_of(form, pick(node, arg[0]))
        if not op:
            return None
        name = pick(node, arg[1])
        if name is not None and name.type in form.member_names:
            name = pick(name, form.member_names[name.type])
        segment = text(name)
        return f"{op}.{segment}" if segment else None
    if kind == "call":
        fn = callee_of(form, pick(node, arg))
        return f"{fn}()" if fn else None
    if kind == "member_call":
        segment = text(pick(node, arg[1]))
        obj = pick(node, arg[0])
        if obj is None:
            return f"{segment}()" if segment else None
        op = chain_of(form, obj)
        return f"{op}.{segment}()" if op and segment else None
    if kind == "construction":
        tc = form.type_chain(pick(node, arg))
        return f"{tc}{{}}" if tc else None
    if kind == "inner":
        ops = form.operators.get(node.type)
        if ops is not None and not (node.children and node.children[0].type in ops):
            return None
        return chain_of(form, pick(node, arg))
    if kind == "indexed":
        op = chain_of(form, pick(node, arg))
        return f"{op}[i]" if op else None
    return form.type_chain(node) or None  # "type"


def callee_of(form: ChainForm, node: ts.Node | None) -> str | None:
    """The chain of a callee: `chain_of`, but an index expression of `callee_index` is `F[]`."""
    if node is not None and node.type in form.callee_index:
        op = chain_of(form, pick(node, form.callee_index[node.type]))
        return f"{op}[]" if op else None
    return chain_of(form, node)
