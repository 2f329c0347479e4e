"""Impact and blast radius: what depends on a symbol (upstream) or what it depends on
(downstream), transitively, with the tests that reach it and a risk level.

Traversals run in the native BFS over the CSR snapshot, never in recursive Cypher.
A target's members (its CONTAINS descendants: a class's methods, a module's
definitions) are extra sources, so "impact of a class" covers the class's API.

Depth 1 is what WILL BREAK, depth 2 what is LIKELY AFFECTED, depth >= 3 what MAY
NEED TESTING. Test code is left out of the entries unless `include_tests`, but the
tests that reach the target are always listed (at any depth, with the same
relation and confidence filters), since they are what to run.

Here: the questions and the result they assemble (entries by depth, counts, risk). The
parameters and result shapes are in impact_shapes.py, the traversals and the tests that
reach a target in reach.py, whether the answer is complete in completeness.py.
"""

from __future__ import annotations

import posixpath
from collections import Counter

import numpy as np

from codeimpact.graph import csr as csrmod
from codeimpact.graph.errors import BadInput
from codeimpact.query import hops as hopsmod
from codeimpact.query.completeness import assess_completeness, with_stale_note
from codeimpact.query.freshness import freshness_of
from codeimpact.query.graphview import GraphView
from codeimpact.query.impact_shapes import (
    DEFAULT_DEPTH,
    DEFAULT_LIMIT,
    RISK_LEVELS,
    RISK_THRESHOLDS,
    BlastRadiusResult,
    Counts,
    DepthGroup,
    ImpactEntry,
    ImpactResult,
    PathCount,
    Risk,
    check_params,
    depth_label,
    parse_relations,
)
from codeimpact.query.observed import ObservedCoverage
from codeimpact.query.reach import paths_back, test_hits, traverse, with_members
from codeimpact.query.selection import covered_entries, select, stale_note
from codeimpact.query.target import Target, resolve_target, resolve_targets

# --------------------------------------------------------------------------- summaries


def assess_risk(direct: int, total: int, modules: int, untested: int) -> Risk:
    """Risk level from RISK_THRESHOLDS; every metric that raised it is named in `reasons`."""
    values = {"direct": direct, "total": total, "modules": modules, "untested": untested}
    level = 0
    reasons: list[str] = []
    for metric, thresholds in RISK_THRESHOLDS.items():
        reached = sum(values[metric] >= t for t in thresholds)
        if reached:
            reasons.append(
                f"{metric} {values[metric]} >= {thresholds[reached - 1]} ({RISK_LEVELS[reached]})"
            )
            level = max(level, reached)
    return Risk(RISK_LEVELS[level], reasons)


def _counted(paths: list[str], limit: int | None) -> list[PathCount]:
    counts = Counter(p for p in paths)
    ordered = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    if limit is not None:
        ordered = ordered[:limit]
    return [PathCount(p, c) for p, c in ordered]


def folder_of(path: str) -> str:
    return posixpath.dirname(path) or "."


def analyse(
    view: GraphView,
    target_ids: list[int],
    *,
    direction: str = "upstream",
    depth: int = DEFAULT_DEPTH,
    relation: str | list[str] | None = None,
    min_confidence: float = 0.0,
    include_tests: bool = False,
    limit: int | None = DEFAULT_LIMIT,
    first_hops: list[hopsmod.FirstHop] = (),
    observed: ObservedCoverage | None = None,
) -> dict:
    """The body shared by impact and blast radius, as the keyword arguments of either result.

    `first_hops`: upstream, dependents of targets the graph has no node for, at depth 1.
    """
    check_params(direction, depth, min_confidence, limit)
    relations = parse_relations(relation)
    mask = csrmod.type_mask(relations)
    sources = with_members(view, target_ids)
    reach = traverse(
        view, sources, direction, depth, mask, float(min_confidence), include_tests, first_hops
    )
    hop_target = hopsmod.hop_targets(list(first_hops))
    sel = select(
        view, reach.tests, reach.test_depths, observed=observed, sources=sources, mask=mask
    )
    if direction == "upstream":
        reach.covered |= covered_entries(observed, reach.entries, mask)
    else:
        reach.covered[:] = sel.total > 0
    s = view.symbols
    cap = limit or None  # 0 and None both mean "no limit"
    entries = reach.entries.tolist()
    depths = reach.depths.tolist()
    names = csrmod.EDGE_TYPE_NAMES

    groups: list[DepthGroup] = []
    bounds = np.flatnonzero(np.diff(reach.depths)) + 1  # entries are ordered by depth
    for lo, hi in zip([0, *bounds.tolist()], [*bounds.tolist(), len(entries)]):
        if lo == hi:
            continue
        d = depths[lo]
        shown = range(lo, hi if cap is None else min(hi, lo + cap))
        paths = paths_back(
            reach.parent_of, reach.entries[lo : shown.stop], reach.depths[lo : shown.stop]
        )
        group = []
        for k, p in zip(shown, paths):
            i = entries[k]
            t = int(reach.types[k])
            group.append(
                ImpactEntry(
                    s.uid[i],
                    s.kind[i],
                    s.name[i],
                    s.qualified_name[i],
                    s.file[i],
                    int(s.start_line[i]),
                    d,
                    names[t] if t < len(names) else "?",
                    round(float(reach.confidences[k]), 4),
                    hopsmod.path_uids(s.uid, p, hop_target),
                    bool(s.is_test[i]),
                )
            )
        groups.append(DepthGroup(d, depth_label(d), hi - lo, group))

    files = [s.file[i] for i in entries if s.file[i]]
    folders: dict[str, str] = {}
    modules = [folders.get(f) or folders.setdefault(f, folder_of(f)) for f in files]
    # one module symbol per file: thousands of tests collapse to their files in numpy
    test_modules = np.unique(s.module_id[sel.ids])
    test_files = sorted(s.file[int(m)] for m in test_modules[test_modules >= 0].tolist())
    counts = Counts(
        direct=int((reach.depths == 1).sum()),
        total=len(entries),
        files=len(set(files)),
        modules=len(set(modules)),
        tests=sel.total,
        test_files=len(test_files),
        untested=int((~reach.covered).sum()),
    )
    return {
        "members": int(sources.shape[0] - len(set(target_ids))),
        "direction": direction,
        "depth": depth,
        "relations": relations,
        "min_confidence": float(min_confidence),
        "include_tests": bool(include_tests),
        "counts": counts,
        "risk": assess_risk(counts.direct, counts.total, counts.modules, counts.untested),
        "completeness": with_stale_note(
            assess_completeness(
                view,
                direction,
                mask,
                depth,
                sources,
                reach.entries,
                reach.depths,
                observed,
                closure=reach.closure if direction == "upstream" else None,
            ),
            stale_note(sel, observed),
        ),
        "groups": groups,
        "files": _counted(files, cap),
        "modules": _counted(modules, cap),
        "tests": test_hits(view, sel, reach.test_parent_of, cap, hop_target),
        "test_files": test_files,
    }


# --------------------------------------------------------------------------- the questions


def impact(
    index,
    target: str,
    direction: str = "upstream",
    depth: int = DEFAULT_DEPTH,
    relation: str | list[str] | None = None,
    min_confidence: float = 0.0,
    include_tests: bool = False,
    limit: int | None = DEFAULT_LIMIT,
    check_freshness: bool = True,
    *,
    observed: ObservedCoverage | None = None,
) -> ImpactResult:
    """What depends on `target` (upstream) or what it depends on (downstream).

    `observed`: the observed links as a change sees them (query/observed.as_of); by
    default the index's."""
    view = index.graph
    t: Target = resolve_target(view.symbols, target, index.repo)
    body = analyse(
        view,
        [t.id],
        direction=direction,
        depth=depth,
        relation=relation,
        min_confidence=min_confidence,
        include_tests=include_tests,
        limit=limit,
        observed=observed or index.observed,
    )
    return ImpactResult(target=t.symbol, **body, freshness=freshness_of(index, check_freshness))


def blast_radius(
    index,
    targets: list[str],
    direction: str = "upstream",
    depth: int = DEFAULT_DEPTH,
    relation: str | list[str] | None = None,
    min_confidence: float = 0.0,
    include_tests: bool = False,
    limit: int | None = DEFAULT_LIMIT,
    check_freshness: bool = True,
    *,
    first_hops: list[hopsmod.FirstHop] = (),
    observed: ObservedCoverage | None = None,
) -> BlastRadiusResult:
    """The union impact of several targets (uids or any target form), deduplicated.

    One multi-source traversal: an entry's depth is its distance to the nearest target.
    `first_hops` are the depth-1 dependents of targets the graph lacks (query/hops.py);
    with them, `targets` may be empty. `observed` as in `impact`.
    """
    if isinstance(targets, str):
        targets = [targets]
    if not targets and not first_hops:
        raise BadInput("blast-radius needs at least one target")
    view = index.graph
    resolved = resolve_targets(view.symbols, list(targets), index.repo) if targets else []
    body = analyse(
        view,
        [t.id for t in resolved],
        direction=direction,
        depth=depth,
        relation=relation,
        min_confidence=min_confidence,
        include_tests=include_tests,
        limit=limit,
        first_hops=first_hops,
        observed=observed or index.observed,
    )
    return BlastRadiusResult(
        targets=[t.symbol for t in resolved], **body, freshness=freshness_of(index, check_freshness)
    )
