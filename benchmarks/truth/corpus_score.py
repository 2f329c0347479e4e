"""Score codeimpact on the corpus: each case indexed on its own, its CALLS edges
compared with the asserted edges, precision and recall per construct.

Edges are (caller, callee) pairs named as annotations name them. Scored: edges whose
caller and callee are the case's own definitions, and, in a case with
``externals: scored``, edges from its definitions to external names too (elsewhere
external and builtin callees are set aside, as issue 25 does). Every CALLS edge counts,
at any confidence: a wrong guess costs precision whatever its confidence; the false
positives are also counted by reason.
"""

from __future__ import annotations

import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from truth.corpus import Callers, Case, expected_edges
from truth.corpus_check import CaseNames


@dataclass
class CaseScore:
    case: str
    construct: str
    expected: set[tuple[str, str]]
    found: set[tuple[str, str]]
    reasons: dict[tuple[str, str], str] = field(default_factory=dict)
    externals_scored: bool = False

    @property
    def tp(self) -> int:
        return len(self.expected & self.found)

    @property
    def fp(self) -> int:
        return len(self.found - self.expected)

    @property
    def fn(self) -> int:
        return len(self.expected - self.found)


def graph_edges(root: Path, case: Case) -> tuple[set[tuple[str, str]], dict]:
    """The case's CALLS edges from a real index of `root`, named, with their reasons."""
    from codeimpact.indexer.build import analyze
    from codeimpact.indexer.config import IndexConfig, RunOptions
    from codeimpact.query.index import Index

    analyze(root, IndexConfig(), RunOptions(workers=1))
    names = CaseNames(case, root)
    callers = names.callers
    with Index.open(root) as index:
        rows = index.query(
            "MATCH (a:Symbol)-[r:CALLS]->(b:Symbol) RETURN a.uid, b.uid, r.reason, r.confidence"
        ).rows
    edges, reasons = set(), {}
    for a, b, reason, _conf in rows:
        if a.startswith("<external>::"):
            continue
        edge = (callers.uid_name(a), callers.uid_name(b))
        external = b.startswith("<external>::")
        if (external and case.externals_scored) or (not external and edge[1] in names.defined):
            edges.add(edge)
            reasons[edge] = reason
    return edges, reasons


def score_case(case: Case, work: Path) -> CaseScore:
    root = case.write(work / "tree")
    names = CaseNames(case, root)
    expected = {
        e
        for e in expected_edges(case, Callers(root))
        if e[1] in names.defined or (case.externals_scored and not names.is_project(e[1]))
    }
    found, reasons = graph_edges(root, case)
    return CaseScore(case.name, case.construct, expected, found, reasons, case.externals_scored)


def score_corpus(cases: list[Case]) -> list[CaseScore]:
    out = []
    for case in cases:
        with tempfile.TemporaryDirectory(prefix="corpus-") as tmp:
            out.append(score_case(case, Path(tmp)))
    return out


def by_construct(scores: list[CaseScore]) -> dict[str, dict]:
    groups: dict[str, list[CaseScore]] = defaultdict(list)
    for s in scores:
        groups[s.construct].append(s)
    groups["ALL"] = list(scores)
    groups["ALL, externals aside"] = [s for s in scores if not s.externals_scored]
    out = {}
    for construct, items in groups.items():
        tp = sum(s.tp for s in items)
        fp = sum(s.fp for s in items)
        fn = sum(s.fn for s in items)
        fp_reasons = Counter(
            s.reasons[e] for s in items for e in s.found - s.expected if e in s.reasons
        )
        out[construct] = {
            "cases": len(items),
            "cases_exact": sum(s.fp == 0 and s.fn == 0 for s in items),
            "expected": tp + fn,
            "found": tp + fp,
            "precision": round(tp / (tp + fp), 3) if tp + fp else None,
            "recall": round(tp / (tp + fn), 3) if tp + fn else None,
            "false_positives_by_reason": dict(fp_reasons.most_common()),
        }
    return out


def format_scores(table: dict[str, dict]) -> str:
    out = [
        f"{'construct':<24} {'cases':>5} {'exact':>5} {'edges':>6} {'found':>6}"
        f" {'precision':>9} {'recall':>7}  false positives by reason"
    ]
    for construct in sorted(table, key=lambda c: (c.startswith("ALL"), c)):
        r = table[construct]
        p = "-" if r["precision"] is None else f"{r['precision']:.3f}"
        rc = "-" if r["recall"] is None else f"{r['recall']:.3f}"
        fps = ", ".join(f"{k} {v}" for k, v in r["false_positives_by_reason"].items())
        out.append(
            f"{construct:<24} {r['cases']:>5} {r['cases_exact']:>5} {r['expected']:>6}"
            f" {r['found']:>6} {p:>9} {rc:>7}  {fps}"
        )
    return "\n".join(out)
