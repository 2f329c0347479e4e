"""Extraction helpers shared by the statically typed languages (Go, Java).

Both extractors run one query over the tree and hand each match to a handler
chosen by its capture name; these helpers hold what the handlers have in
common: lexical scopes by binary search over sorted intervals, `#n` names for
redefinitions and overloads, and the "chain" text of an expression.

Chains are the dotted form the resolvers read: `a.b.c`; a segment ending in
`()` is the result of calling it (`NewFoo().Run`), a segment ending in `{}` is
a fresh value of the type named so far (`pkg.Foo{}.Run`, Java `new Foo().run`,
a cast or a type assertion).
"""

from __future__ import annotations

import bisect
import re

import tree_sitter as ts

from codeimpact.indexer.lang.api import FileFacts, SymbolFact

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


def count_lines(source: bytes) -> int:
    return source.count(b"\n") + (0 if source.endswith(b"\n") or not source else 1)


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
                is_test: bool = False) -> SymbolFact:  # fmt: skip
    """The SymbolFact of a definition spanning `node`; its signature runs to `sig_end` (the
    body's start), else to the end of its first line."""
    end = node.end_byte if sig_end is None else sig_end
    if sig_end is None:
        nl = source.find(b"\n", node.start_byte, end)
        end = nl if nl >= 0 else end
    return SymbolFact(local, kind, name, line(node), node.end_point[0] + 1, node.start_byte,
                      node.end_byte, signature(source, node.start_byte, end), exported, is_test,
                      params, ())  # fmt: skip


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
