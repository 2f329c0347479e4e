"""Recall of codeimpact's CALLS edges on the call edges a test suite really executed.

An executed edge (caller, callee) is found when the graph has a CALLS edge between
the same two uids, at any confidence ("construct" edges: a CALLS edge to the class).
Recall is reported on slices (direct calls or through external code; package code or
tests on each side), with the reasons and confidences of the edges that matched and
a construct label for each miss (`truth.misses`). Builtin and other external callees
are not in the truth, so they are set aside as issue 25 asks.

Precision needs a static ground truth (an edge on a path no test took is not wrong);
what is printed instead is the share of our edges out of executed callers that were
executed, per reason: a low share flags a rule worth checking, not a proven error.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass

from truth.misses import LABELS, SourceIndex, classify


@dataclass
class GraphCalls:
    """The CALLS edges of an index (best confidence per pair) and its symbols."""

    pairs: dict[tuple[str, str], tuple[str, float]]
    symbols: dict[str, tuple[str, bool]]  # uid -> (kind, is_test)

    @classmethod
    def load(cls, index) -> GraphCalls:
        symbols = {
            uid: (kind, bool(is_test))
            for uid, kind, is_test in index.query(
                "MATCH (s:Symbol) RETURN s.uid, s.kind, s.is_test"
            ).rows
        }
        pairs: dict[tuple[str, str], tuple[str, float]] = {}
        for a, b, reason, conf in index.query(
            "MATCH (a:Symbol)-[r:CALLS]->(b:Symbol) RETURN a.uid, b.uid, r.reason, r.confidence"
        ).rows:
            old = pairs.get((a, b))
            if old is None or conf > old[1]:
                pairs[(a, b)] = (reason, float(conf))
        return cls(pairs, symbols)

    def is_test(self, uid: str, fallback: bool) -> bool:
        sym = self.symbols.get(uid)
        return sym[1] if sym is not None else fallback


# (slice name, predicate over (direct?, caller is test, callee is test))
SLICES = (
    ("all executed edges", lambda d, ct, et: True),
    ("direct, callee in package code", lambda d, ct, et: d and not et),
    ("  package -> package", lambda d, ct, et: d and not ct and not et),
    ("  tests -> package", lambda d, ct, et: d and ct and not et),
    ("direct, callee in tests", lambda d, ct, et: d and et),
    ("through external code, callee in package", lambda d, ct, et: not d and not et),
)
HEADLINE = "direct, callee in package code"


def score_calls(truth: dict, graph: GraphCalls, src: SourceIndex, examples: int = 4) -> dict:
    defs = truth["definitions"]
    externals = truth["externals"]
    counts = {name: [0, 0] for name, _ in SLICES}
    hit_reasons: Counter = Counter()
    miss_labels: Counter = Counter()
    miss_examples: dict[str, list[str]] = defaultdict(list)
    executed_pairs: set[tuple[str, str]] = set()
    for caller, callee, kind, via, lines in truth["edges"]:
        a_uid, a_kind, a_test = defs[caller]
        b_uid, b_kind, b_test = defs[callee]
        executed_pairs.add((a_uid, b_uid))
        ct, et = graph.is_test(a_uid, a_test), graph.is_test(b_uid, b_test)
        found = graph.pairs.get((a_uid, b_uid))
        for name, pred in SLICES:
            if pred(via is None, ct, et):
                counts[name][0] += 1
                counts[name][1] += found is not None
        if via is None and not et:
            if found is not None:
                hit_reasons[found[0]] += 1
            else:
                label = classify(src, a_uid, b_uid, kind, None, lines)
                miss_labels[label] += 1
                if len(miss_examples[label]) < examples:
                    miss_examples[label].append(f"{a_uid} -> {b_uid} (line {lines[0]})")
    via_misses: Counter = Counter()
    for caller, callee, _kind, via, _lines in truth["edges"]:
        if via is not None and (defs[caller][0], defs[callee][0]) not in graph.pairs:
            via_misses[externals[via].split(".")[0].split(":")[0]] += 1

    executed_defs = {d[0] for d in defs}
    ours_by_reason: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for (a, b), (reason, _conf) in graph.pairs.items():
        if a in executed_defs and b in graph.symbols and graph.symbols[b][0] != "external":
            row = ours_by_reason[reason]
            row[0] += 1
            row[1] += (a, b) in executed_pairs
    missing = sorted({d[0] for d in defs} - set(graph.symbols))
    return {
        "slices": [
            {"slice": name, "executed": n, "found": h, "recall": round(h / n, 3) if n else None}
            for name, (n, h) in counts.items()
        ],
        "headline": HEADLINE,
        "hits_by_reason": dict(hit_reasons.most_common()),
        "misses_by_construct": {k: miss_labels[k] for k in _ranked(miss_labels)},
        "miss_examples": {k: miss_examples[k] for k in _ranked(miss_labels)},
        "through_external_misses_by_library": dict(via_misses.most_common()),
        "our_edges_from_executed_callers": {
            r: {"edges": n, "executed": e, "share": round(e / n, 3)}
            for r, (n, e) in sorted(ours_by_reason.items())
        },
        "definitions_missing_from_index": {"count": len(missing), "first": missing[:10]},
    }


def _ranked(counter: Counter) -> list[str]:
    order = {label: i for i, label in enumerate(LABELS)}
    return sorted(counter, key=lambda k: (-counter[k], order.get(k, len(order))))


def format_calls(project: str, score: dict) -> str:
    out = [f"== {project}: CALLS recall on executed edges (builtin/external callees aside)"]
    out.append(f"{'slice':<44} {'executed':>8} {'found':>6} {'recall':>7}")
    for row in score["slices"]:
        r = "-" if row["recall"] is None else f"{row['recall']:.3f}"
        out.append(f"{row['slice']:<44} {row['executed']:>8} {row['found']:>6} {r:>7}")
    out.append("hits (" + score["headline"] + ") by reason: " + ", ".join(
        f"{k} {v}" for k, v in score["hits_by_reason"].items()
    ))  # fmt: skip
    out.append("misses (" + score["headline"] + ") by construct:")
    for label, n in score["misses_by_construct"].items():
        ex = "; ".join(score["miss_examples"][label][:2])
        out.append(f"  {n:>5}  {label}   e.g. {ex}")
    if score["through_external_misses_by_library"]:
        out.append("through-external misses by library: " + ", ".join(
            f"{k} {v}" for k, v in score["through_external_misses_by_library"].items()
        ))  # fmt: skip
    out.append("our edges out of executed callers, executed share by reason: " + ", ".join(
        f"{r} {v['executed']}/{v['edges']}"
        for r, v in score["our_edges_from_executed_callers"].items()
    ))  # fmt: skip
    missing = score["definitions_missing_from_index"]
    if missing["count"]:
        out.append(f"executed definitions the index lacks: {missing['count']}: {missing['first']}")
    return "\n".join(out)
