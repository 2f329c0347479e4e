"""What resolution produces for one file: its symbols and the edges that start in it.

Edges are owned by the file of their source symbol, so re-resolving a file
replaces exactly its outgoing edges and nothing else.
"""

from __future__ import annotations

from typing import NamedTuple

from codeimpact.graph.schema import edge_type, row_type
from codeimpact.native.record import Compared

# Every edge names the rule that found its target, from the one closed table in
# lang/engine/rules.py (reason -> confidence).

EXTERNAL_PREFIX = "<external>::"


def external_uid(dotted: str) -> str:
    return EXTERNAL_PREFIX + dotted


# A Symbol row without its dense id (given when the graph is written), in schema column order:
# uid, kind, name, qualified_name, file, start_line, end_line, start_byte, end_byte, signature,
# exported, is_test, language (graph/schema.py declares them).
SymbolRow = row_type("SymbolRow", "Symbol", drop=("id",))
SymbolRow.__module__ = __name__


def strip_dup(local: str) -> str:
    """The language-level form of a dotted local name: `f#2.inner` -> `f.inner`."""
    return ".".join(p.split("#", 1)[0] for p in local.split(".")) if "#" in local else local


def row_of(fact, path: str, name: str, qualified: str, is_test: bool, language: str) -> SymbolRow:
    """The SymbolRow of one SymbolFact of `path` (uid `<path>::<local>`)."""
    return SymbolRow(
        f"{path}::{fact.local}", fact.kind, name, qualified, path, fact.start_line, fact.end_line,
        fact.start_byte, fact.end_byte, fact.signature, fact.exported, is_test, language,
    )  # fmt: skip


# An edge: rel (CALLS, IMPORTS, EXTENDS, IMPLEMENTS, REFERENCES, CONTAINS), src and dst uids,
# then the relationship properties (confidence, reason, line: graph/schema.py).
Edge = edge_type("Edge")
Edge.__module__ = __name__


# The name of an unresolved site that is a request of a fixture no definition of the
# repository binds (pytest: a plugin's fixture): `fixture:client` (query/impact.py)
UNBOUND_FIXTURE = "fixture:"


class Unresolved(NamedTuple):
    scope: str  # uid of the calling symbol
    name: str  # the last name of the callee expression
    line: int


class ResolvedFile(Compared):
    path: str
    symbols: list[SymbolRow]
    edges: list[Edge]
    unresolved: list[Unresolved]
    calls_total: int
    calls_builtin: int
    __slots__ = ("path", "symbols", "edges", "unresolved", "calls_total", "calls_builtin")

    def __init__(
        self,
        path: str,
        symbols: list[SymbolRow] | None = None,
        edges: list[Edge] | None = None,
        unresolved: list[Unresolved] | None = None,
        calls_total: int = 0,
        calls_builtin: int = 0,
    ) -> None:
        self.path = path
        self.symbols = [] if symbols is None else symbols
        self.edges = [] if edges is None else edges
        self.unresolved = [] if unresolved is None else unresolved
        self.calls_total = calls_total
        self.calls_builtin = calls_builtin


# A `value-flow` edge W -> f is a relay (query/relays.py): W calls f on behalf of whoever
# passed f, so an upstream walk stops at W. When W also reaches f by a rule of its own at the
# same confidence (click's `command()` decorator constructs `cls(...)`, a Command, and is
# handed classes too), W's callers do run f: the relay must not hide that edge.
RELAY_REASON = "value-flow"


def better(e: Edge, cur: Edge | None) -> bool:
    """The one rule for duplicate edges: most confident, then not a relay, then earliest
    line, then reason (so the choice never depends on the order edges are met in). (Fields
    by index: `e` may be a plain tuple of an Edge's fields, `dedupe_edges`.)"""
    return cur is None or (-e[3], e[4] == RELAY_REASON, e[5], e[4]) < (
        -cur[3],
        cur[4] == RELAY_REASON,
        cur[5],
        cur[4],
    )


def dedupe_edges(edges: list[Edge | tuple]) -> list[Edge]:
    """One edge per (relation, source, target), chosen by `better`, sorted, each an Edge
    (`edges` may hold plain tuples of an Edge's fields: a resolver appends them, and only
    the edges kept are made Edges). In C: every resolved file passes here; `_dedupe_edges`
    is the same in Python."""
    return (_core or native_core()).dedupe_edges(edges, RELAY_REASON, Edge)


_core = None  # (native_core)


def native_core():
    """codeimpact.native._core, loaded where first used (no-op runs never load it) and kept:
    an import statement in `dedupe_edges` and state.resolved_blob, which every resolved file
    calls, cost ~1,200 instructions a call (`from package import module` runs importlib's
    _handle_fromlist)."""
    global _core
    if _core is None:
        from codeimpact.native import _core as core

        _core = core
    return _core


def _dedupe_edges(edges: list[Edge]) -> list[Edge]:
    best: dict[tuple[str, str, str], Edge] = {}
    for e in edges:
        key = e[:3]  # (rel, src, dst)
        cur = best.get(key)
        if cur is None or better(e, cur):
            best[key] = e
    new = tuple.__new__
    return [e if type(e) is Edge else new(Edge, e) for e in sorted(best.values())]
