"""`context`: everything about one symbol an engineer reads before editing it.

The definition comes with its source lines, read from the repository file (never
from outside the repository: a path that resolves elsewhere, e.g. through a
symlink, is refused), and says when the file no longer matches what was indexed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from codeimpact.indexer.reading import content_hash
from codeimpact.query.deps import Neighbour, neighbours
from codeimpact.query.freshness import Freshness, freshness_of
from codeimpact.query.graphview import SymbolRef
from codeimpact.query.impact_shapes import DEFAULT_LIMIT, RELATIONS, TestHit, check_params
from codeimpact.query.reach import tests_reaching
from codeimpact.query.source import OutsideRepo, read_repo_file
from codeimpact.query.target import resolve_target

MAX_SOURCE_LINES = 200  # a definition longer than this is cut (and says so)


@dataclass
class Definition:
    signature: str
    start_line: int
    end_line: int
    # ok: lines read from the indexed file; changed: the file differs from what was
    # indexed (the lines may be off); missing / outside-repo / unreadable / external:
    # no source shown.
    source_status: str
    source: list[str]
    truncated: bool  # more than MAX_SOURCE_LINES lines


@dataclass
class ContextResult:
    target: SymbolRef
    definition: Definition
    container: SymbolRef | None
    members: list[SymbolRef]
    callers: list[Neighbour]
    callees: list[Neighbour]
    imports: list[Neighbour]  # what the target's module imports
    imported_by: list[Neighbour]
    bases: list[Neighbour]  # EXTENDS / IMPLEMENTS, outgoing
    subclasses: list[Neighbour]  # EXTENDS / IMPLEMENTS, incoming
    references: list[Neighbour]  # what it uses as a value or type
    referenced_by: list[Neighbour]
    test_count: int  # tests that reach the target at any depth; `tests` may be cut by limit
    tests: list[TestHit]
    freshness: Freshness
    # the complete length of each list above, which `limit` cuts
    members_total: int = 0
    callers_total: int = 0
    callees_total: int = 0
    imports_total: int = 0
    imported_by_total: int = 0
    bases_total: int = 0
    subclasses_total: int = 0
    references_total: int = 0
    referenced_by_total: int = 0


def read_definition(repo: Path, symbol: SymbolRef, signature: str, indexed_hash: str | None):
    """The definition's source lines, read only from inside `repo`."""

    def empty(status: str) -> Definition:
        return Definition(signature, symbol.line, symbol.end_line, status, [], False)

    if not symbol.file:
        return empty("external")
    try:
        data = read_repo_file(repo, symbol.file)
    except OutsideRepo:
        return empty("outside-repo")
    except FileNotFoundError:
        return empty("missing")
    except OSError:
        return empty("unreadable")
    status = "ok" if indexed_hash is None or content_hash(data) == indexed_hash else "changed"
    lines = data.decode("utf-8", errors="replace").splitlines()
    start, end = max(symbol.line, 1), max(symbol.end_line, symbol.line)
    chunk = lines[start - 1 : end]
    truncated = len(chunk) > MAX_SOURCE_LINES
    return Definition(
        signature, symbol.line, symbol.end_line, status, chunk[:MAX_SOURCE_LINES], truncated
    )


def _refs(index, items: list[Neighbour]) -> list[SymbolRef]:
    symbols, rank = index.graph.symbols, index.graph.snapshot.node_rank
    ids = [symbols.by_uid[n.uid] for n in items if n.uid in symbols.by_uid]
    return [symbols.ref(i) for i in sorted(ids, key=lambda i: (symbols.start_line[i], rank[i]))]


def context(
    index, target: str, limit: int | None = DEFAULT_LIMIT, check_freshness: bool = True
) -> ContextResult:
    """Definition, container, members, callers, callees, imports, bases, subclasses, tests."""
    check_params("upstream", 1, 0.0, limit)
    view = index.graph
    t = resolve_target(view.symbols, target, index.repo)
    sym = t.symbol
    rows = index.query(
        "MATCH (s:Symbol {uid: $uid}) OPTIONAL MATCH (f:File)-[:DEFINES]->(s) "
        "RETURN s.signature, f.content_hash",
        {"uid": sym.uid},
    ).rows
    signature, indexed_hash = rows[0] if rows else ("", None)

    heritage = ["EXTENDS", "IMPLEMENTS"]
    module_uid = f"{sym.file}::" if sym.file else sym.uid
    lists = {
        "members": _refs(index, neighbours(index, sym.uid, ["CONTAINS"], incoming=False)),
        "callers": neighbours(index, sym.uid, ["CALLS"], incoming=True),
        "callees": neighbours(index, sym.uid, ["CALLS"], incoming=False),
        "imports": neighbours(index, module_uid, ["IMPORTS"], incoming=False),
        "imported_by": neighbours(index, sym.uid, ["IMPORTS"], incoming=True),
        "bases": neighbours(index, sym.uid, heritage, incoming=False),
        "subclasses": neighbours(index, sym.uid, heritage, incoming=True),
        "references": neighbours(index, sym.uid, ["REFERENCES"], incoming=False),
        "referenced_by": neighbours(index, sym.uid, ["REFERENCES"], incoming=True),
    }
    test_count, tests = tests_reaching(
        view, [t.id], list(RELATIONS), limit=limit or None, observed=index.observed
    )
    container = _refs(index, neighbours(index, sym.uid, ["CONTAINS"], incoming=True))
    return ContextResult(
        target=sym,
        definition=read_definition(index.repo, sym, signature or "", indexed_hash),
        container=container[0] if container else None,
        **{name: items[: limit or None] for name, items in lists.items()},
        test_count=test_count,
        tests=tests,
        freshness=freshness_of(index, check_freshness),
        **{f"{name}_total": len(items) for name, items in lists.items()},
    )
