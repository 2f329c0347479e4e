"""`deps`: the depth-1 neighbourhood of a symbol, both ways, grouped by relation.

Depth 1 is a handful of rows, so this asks Kùzu directly: the edges carry what the
CSR snapshot drops (the rule that resolved a call and the line it is on).
"""

from __future__ import annotations

from dataclasses import dataclass

from codeimpact.graph.schema import REL_TABLES
from codeimpact.query.freshness import Freshness, freshness_of
from codeimpact.query.graphview import SymbolRef
from codeimpact.query.impact_shapes import DEFAULT_LIMIT, check_params, parse_relations
from codeimpact.query.target import resolve_target


@dataclass
class Neighbour:
    uid: str
    kind: str
    qualified_name: str
    file: str
    line: int  # where the neighbour is defined
    relation: str
    confidence: float
    reason: str  # resolution rule ("" for relations without one)
    at_line: int | None  # the line of the call / import / use (None where not recorded)
    is_test: bool


@dataclass
class DepsResult:
    target: SymbolRef
    relations: list[str]
    min_confidence: float
    counts: dict[str, dict[str, int]]  # side -> {"total": n, relation: n, ...} (before limit)
    upstream: dict[str, list[Neighbour]]  # relation -> dependents (who uses the target)
    downstream: dict[str, list[Neighbour]]  # relation -> dependencies (what the target uses)
    freshness: Freshness


def _columns(relations: list[str]) -> str:
    # Kùzu refuses a property that none of the matched relation tables has: use NULL then.
    have = {p for rel in relations for p, _ in REL_TABLES[rel][2]}
    prop = {p: (f"r.{p}" if p in have else "NULL") for p in ("confidence", "reason", "line")}
    return (
        "label(r) AS rel, b.uid AS uid, b.kind AS kind, b.qualified_name AS qn, b.file AS file, "
        f"b.start_line AS sl, {prop['confidence']} AS conf, {prop['reason']} AS reason, "
        f"{prop['line']} AS at, b.is_test AS t"
    )


def neighbours(
    index, uid: str, relations: list[str], *, incoming: bool, min_confidence: float = 0.0
) -> list[Neighbour]:
    """Direct neighbours of `uid` over `relations` (validated names from our schema)."""
    labels = "|".join(relations)  # schema names only, never user text
    pattern = (
        f"(b:Symbol)-[r:{labels}]->(a:Symbol {{uid: $uid}})"
        if incoming
        else f"(a:Symbol {{uid: $uid}})-[r:{labels}]->(b:Symbol)"
    )
    result = index.query(f"MATCH {pattern} RETURN {_columns(relations)}", {"uid": uid})
    out = []
    for rel, buid, kind, qn, file, sl, conf, reason, at, is_test in result.rows:
        confidence = 1.0 if conf is None else float(conf)
        if confidence < min_confidence:
            continue
        out.append(
            Neighbour(
                buid,
                kind,
                qn,
                file or "",
                int(sl or 0),
                rel,
                round(confidence, 4),
                reason or "",
                None if at is None else int(at),
                bool(is_test),
            )
        )
    out.sort(key=lambda n: (n.relation, n.file, n.line, n.uid, n.at_line or 0))
    return out


def _by_relation(items: list[Neighbour], relations: list[str], limit: int | None) -> dict:
    grouped: dict[str, list[Neighbour]] = {}
    for rel in relations:
        rows = [n for n in items if n.relation == rel]
        if rows:
            grouped[rel] = rows[: limit or None]
    return grouped


def _counts(items: list[Neighbour]) -> dict[str, int]:
    out = {"total": len(items)}
    for n in items:
        out[n.relation] = out.get(n.relation, 0) + 1
    return out


def deps(
    index,
    target: str,
    relation: str | list[str] | None = None,
    min_confidence: float = 0.0,
    limit: int | None = DEFAULT_LIMIT,
    check_freshness: bool = True,
) -> DepsResult:
    """Who uses `target` directly (upstream) and what it uses directly (downstream)."""
    check_params("upstream", 1, min_confidence, limit)
    relations = parse_relations(relation)
    t = resolve_target(index.graph.symbols, target, index.repo)
    conf = float(min_confidence)
    up = neighbours(index, t.symbol.uid, relations, incoming=True, min_confidence=conf)
    down = neighbours(index, t.symbol.uid, relations, incoming=False, min_confidence=conf)
    return DepsResult(
        target=t.symbol,
        relations=relations,
        min_confidence=conf,
        counts={"upstream": _counts(up), "downstream": _counts(down)},
        upstream=_by_relation(up, relations, limit),
        downstream=_by_relation(down, relations, limit),
        freshness=freshness_of(index, check_freshness),
    )
