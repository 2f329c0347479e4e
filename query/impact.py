"""Impact and blast radius: what depends on a symbol (upstream) or what it depends on
(downstream), transitively, with the tests that reach it and a risk level.

Traversals run in the native BFS over the CSR snapshot, never in recursive Cypher.
A target's members (its CONTAINS descendants: a class's methods, a module's
definitions) are extra sources, so "impact of a class" covers the class's API.

Depth 1 is what WILL BREAK, depth 2 what is LIKELY AFFECTED, depth >= 3 what MAY
NEED TESTING. Test code is left out of the entries unless `include_tests`, but the
tests that reach the target are always listed (at any depth, with the same
relation and confidence filters), since they are what to run.
"""

from __future__ import annotations

import posixpath
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from codeimpact import native
from codeimpact.graph import csr as csrmod
from codeimpact.graph.errors import BadInput
from codeimpact.indexer.resolved import UNBOUND_FIXTURE
from codeimpact.query import hops as hopsmod
from codeimpact.query import relays
from codeimpact.query.freshness import Freshness, freshness
from codeimpact.query.graphview import GraphView, SymbolRef, SymbolTable
from codeimpact.query.observed import ObservedCoverage
from codeimpact.query.outside import entered_from_outside
from codeimpact.query.running_modules import runs_on_import
from codeimpact.query.selection import Selection, covered_entries, select, stale_note
from codeimpact.query.target import Target, resolve_target, resolve_targets
from codeimpact.query.test_runs import RunIds

RELATIONS = ("CALLS", "IMPORTS", "EXTENDS", "IMPLEMENTS", "REFERENCES")
DIRECTIONS = ("upstream", "downstream")
DEFAULT_DEPTH = 3


def depth_label(depth: int) -> str:
    if depth <= 1:
        return "WILL BREAK"
    if depth == 2:
        return "LIKELY AFFECTED"
    return "MAY NEED TESTING"


# A level is reached when a metric is >= its threshold; the risk is the highest level
# any metric reaches (LOW when none does). Documented in README.md, `## Impact`.
RISK_LEVELS = ("LOW", "MEDIUM", "HIGH", "CRITICAL")
RISK_THRESHOLDS: dict[str, tuple[int, int, int]] = {
    # metric: (MEDIUM, HIGH, CRITICAL)
    "direct": (3, 10, 30),  # dependents at depth 1
    "total": (10, 50, 200),  # dependents at every depth
    "modules": (2, 5, 10),  # folders holding dependents
    "untested": (1, 10, 50),  # dependents that no test reaches through
}

DEFAULT_LIMIT = 50  # list entries shown per group / list; counts are always complete
SAMPLE_SITES = 20  # unresolved call sites listed in `completeness` (all are counted)


# --------------------------------------------------------------------------- result shapes


@dataclass
class ImpactEntry:
    uid: str
    kind: str
    name: str
    qualified_name: str
    file: str
    line: int
    depth: int
    relation: str  # of the edge that reached this symbol
    confidence: float
    path: list[str]  # uids: this symbol, ..., the target (or the member of it reached)
    is_test: bool


@dataclass
class DepthGroup:
    depth: int
    label: str  # WILL BREAK / LIKELY AFFECTED / MAY NEED TESTING
    count: int  # all entries at this depth; `entries` may be cut by `limit`
    entries: list[ImpactEntry]


@dataclass
class PathCount:
    path: str  # a file, or a folder ("." for the repository root)
    count: int  # entries in it


@dataclass
class TestHit:
    uid: str
    kind: str
    qualified_name: str
    file: str
    line: int
    depth: int | None  # hops from the target; None when only observed coverage selected it
    path: list[str]  # uids: the test ... the target (or the member reached / seen running)
    # the id its runner accepts (pytest `path::Class::test`, ...: indexer/test_ids.py)
    run_id: str = ""
    why: str = "reaches"  # the first of `reasons`
    # reaches (a graph path), covered (observed coverage saw it run the target), changed
    reasons: list[str] = field(default_factory=lambda: ["reaches"])
    stale: bool = False  # selected only by observed links whose files changed since
    stale_reason: str | None = None


@dataclass
class Counts:
    direct: int
    total: int
    files: int
    modules: int
    tests: int  # test symbols that reach the target (any depth)
    test_files: int
    untested: int  # entries no reached test depends on (through the followed edges)


@dataclass
class Risk:
    level: str  # LOW / MEDIUM / HIGH / CRITICAL
    reasons: list[str]  # e.g. "direct 12 >= 10 (HIGH)"


@dataclass
class UnresolvedSite:
    name: str  # the callee name at the call site
    caller: str  # uid of the calling symbol
    line: int


@dataclass
class Completeness:
    # exact: no unresolved call site could add to the answer; lower-bound: some could;
    # unknown: the index has no record of its unresolved call sites.
    status: str
    unresolved_sites: int
    sites: list[UnresolvedSite] = field(default_factory=list)  # the first SAMPLE_SITES
    # what else may leave it short (e.g. tests selected only by stale observed coverage)
    reasons: list[str] = field(default_factory=list)
    # definitions on the way that code outside the repository may call with no caller in the
    # graph (query/outside.py): a special method, an override of a library base
    entered_from_outside: int = 0
    # requests of fixtures no fixture of the repository binds (a plugin's: pytest-flask's
    # `client`), whose code may run this one: upstream, by tests not in the answer;
    # downstream, by the answer's own tests and fixtures (unresolved sites `fixture:NAME`)
    unbound_fixtures: int = 0


@dataclass
class ImpactResult:
    target: SymbolRef
    members: int  # CONTAINS descendants used as extra sources
    direction: str
    depth: int
    relations: list[str]
    min_confidence: float
    include_tests: bool
    counts: Counts
    risk: Risk
    completeness: Completeness
    groups: list[DepthGroup]
    files: list[PathCount]
    modules: list[PathCount]
    tests: list[TestHit]  # the first `limit` (in uid order), with one path each
    test_files: list[str]  # every file holding a test that reaches the target: what to run
    freshness: Freshness


@dataclass
class BlastRadiusResult:
    targets: list[SymbolRef]
    members: int
    direction: str
    depth: int
    relations: list[str]
    min_confidence: float
    include_tests: bool
    counts: Counts
    risk: Risk
    completeness: Completeness
    groups: list[DepthGroup]
    files: list[PathCount]
    modules: list[PathCount]
    tests: list[TestHit]  # the first `limit` (in uid order), with one path each
    test_files: list[str]  # every file holding a test that reaches the target: what to run
    freshness: Freshness


# --------------------------------------------------------------------------- parameters


def parse_relations(relation: str | list[str] | tuple[str, ...] | None) -> list[str]:
    """`"CALLS,IMPORTS"` or `["CALLS"]` -> canonical names; None -> all five."""
    if relation is None:
        return list(RELATIONS)
    parts = relation.split(",") if isinstance(relation, str) else list(relation)
    names: list[str] = []
    for part in parts:
        name = str(part).strip().upper()
        if not name:
            continue
        if name not in RELATIONS:
            raise BadInput(f"unknown relation {part!r}: choose from {','.join(RELATIONS)}")
        if name not in names:
            names.append(name)
    if not names:
        raise BadInput(f"no relation given: choose from {','.join(RELATIONS)}")
    return [r for r in RELATIONS if r in names]


def check_params(direction: str, depth: int, min_confidence: float, limit: int | None) -> None:
    if direction not in DIRECTIONS:
        raise BadInput(f"direction must be upstream or downstream, got {direction!r}")
    if not isinstance(depth, int) or isinstance(depth, bool) or depth < 1:
        raise BadInput(f"depth must be a whole number >= 1, got {depth!r}")
    try:
        conf = float(min_confidence)
    except (TypeError, ValueError):
        raise BadInput(f"min-confidence must be a number, got {min_confidence!r}") from None
    if not 0.0 <= conf <= 1.0:
        raise BadInput(f"min-confidence must be between 0 and 1, got {min_confidence!r}")
    if limit is not None and (not isinstance(limit, int) or limit < 0):
        raise BadInput(f"limit must be a whole number >= 0, got {limit!r}")


# --------------------------------------------------------------------------- traversal


def with_members(view: GraphView, ids: list[int]) -> np.ndarray:
    """The ids plus all their CONTAINS descendants, targets first, each once."""
    if not ids:
        return np.empty(0, dtype=np.int64)
    reach = native.bfs(
        view.csr("downstream"), np.asarray(ids, np.int64), type_mask=csrmod.type_mask("CONTAINS")
    )
    return reach.nodes.astype(np.int64)


def _paths(parent_of: np.ndarray, nodes: np.ndarray, depths: np.ndarray) -> list[list[int]]:
    """For each node, its parent chain back to a source (node first), vectorised by level;
    -1 where a first hop's chain reaches the target the graph lacks (query/hops.py)."""
    if nodes.size == 0:
        return []
    levels = [nodes]
    for _ in range(int(depths.max())):
        prev = levels[-1]
        levels.append(np.where(prev >= 0, parent_of[np.maximum(prev, 0)], -1))
    table = np.stack(levels, axis=1).tolist()
    return [row[: d + 1] for row, d in zip(table, depths.tolist())]


@dataclass
class _Reach:
    """Raw traversal output, before it is turned into a result."""

    sources: np.ndarray
    entries: np.ndarray  # ids at depth >= 1, ordered by (depth, uid)
    depths: np.ndarray
    types: np.ndarray  # edge type code of the edge that reached each entry
    confidences: np.ndarray
    parent_of: np.ndarray  # per node id: the parent it was reached from (-1: none)
    tests: np.ndarray  # ids of the test symbols that reach the sources (see _test_ids)
    test_depths: np.ndarray
    test_parent_of: np.ndarray
    covered: np.ndarray  # bool per entry


def _parent_array(n: int, nodes: np.ndarray, parents: np.ndarray) -> np.ndarray:
    out = np.full(n, -1, dtype=np.int64)
    out[nodes] = parents
    return out


def _test_ids(view: GraphView, closure, sources, mask, min_confidence) -> tuple:
    """The test symbols of an upstream closure, in uid order, with their depths.

    A test module is left out when something inside it is listed too (the module
    would only repeat its file), or when importing it runs nothing of the closure.
    """
    s = view.symbols
    sel = s.is_test[closure.nodes]
    nodes, depths = closure.nodes[sel], closure.depths[sel]
    is_module = view.snapshot.node_kind[nodes] == csrmod.KIND_CODES["module"]
    inner_modules = s.module_id[nodes[~is_module]]
    keep = ~(is_module & np.isin(nodes, inner_modules))
    keep &= ~is_module | runs_on_import(view, nodes, closure.nodes, sources, mask, min_confidence)
    nodes, depths = nodes[keep], depths[keep]
    order = np.argsort(view.snapshot.node_rank[nodes], kind="stable")
    return nodes[order], depths[order]


def _plain_bfs(view: GraphView, sources, hops, **kw) -> hopsmod.Reached:
    return hopsmod.bfs(view.csr("downstream"), sources, hops, **kw)


def _traverse(
    view: GraphView,
    sources: np.ndarray,
    direction: str,
    depth: int,
    mask: int,
    min_confidence: float,
    include_tests: bool,
    first_hops: list[hopsmod.FirstHop] = (),
) -> _Reach:
    n = view.n_nodes
    symbols = view.symbols
    # Dependents of targets the graph lacks enter upstream at depth 1 (query/hops.py).
    first_hops = list(first_hops) if direction == "upstream" else []
    # Every symbol upstream of the sources, at any depth: where the tests are found
    # and the domain that decides which dependents a test runs through.
    closure = relays.upstream_bfs(
        view, sources, first_hops, type_mask=mask, min_confidence=min_confidence
    )
    if direction == "upstream" and include_tests:
        # A depth-limited BFS discovers the same nodes, depths and parents.
        keep = closure.depths <= depth
        nodes, depths, parents = closure.nodes[keep], closure.depths[keep], closure.parents[keep]
    else:
        bfs = relays.upstream_bfs if direction == "upstream" else _plain_bfs
        reach = bfs(
            view,
            sources,
            first_hops,
            max_depth=depth,
            type_mask=mask,
            min_confidence=min_confidence,
            node_mask=None if include_tests else view.snapshot.non_test_mask(),
        )
        nodes, depths, parents = reach.nodes, reach.depths, reach.parents

    parent_of = _parent_array(n, nodes, parents)
    found = depths > 0
    # by uid (through its rank), not id: ids follow uid order only in a full build
    order = np.lexsort((view.snapshot.node_rank[nodes[found]], depths[found]))
    e_nodes = nodes[found][order]
    e_depths = depths[found][order]
    e_parents = parents[found][order]
    types, confs = view.edges_between(direction, e_parents, e_nodes, mask, min_confidence)
    hopsmod.patch_first_hops(first_hops, e_nodes, e_parents, types, confs)

    t_nodes, t_depths = _test_ids(view, closure, sources, mask, min_confidence)
    if direction == "upstream":
        in_closure = np.zeros(n, dtype=np.uint8)
        in_closure[closure.nodes] = 1
        all_tests = closure.nodes[symbols.is_test[closure.nodes]]
        covered_ids = native.bfs(
            view.csr("downstream"),
            all_tests,
            type_mask=mask,
            min_confidence=min_confidence,
            node_mask=in_closure,
        ).nodes
        covered_mask = np.zeros(n, dtype=bool)
        covered_mask[covered_ids] = True
        # Reaching anything defined in a module runs the module's top-level code.
        modules = symbols.module_id[covered_ids]
        covered_mask[modules[modules >= 0]] = True
        covered = covered_mask[e_nodes]
    else:
        # A dependency is exercised by whatever test runs the target.
        covered = np.full(e_nodes.shape[0], t_nodes.size > 0, dtype=bool)

    return _Reach(
        sources=sources,
        entries=e_nodes,
        depths=e_depths,
        types=types,
        confidences=confs,
        parent_of=parent_of,
        tests=t_nodes,
        test_depths=t_depths,
        test_parent_of=_parent_array(n, closure.nodes, closure.parents),
        covered=covered,
    )


def test_hits(
    view: GraphView,
    selection: Selection,
    parent_of: np.ndarray,
    limit: int | None,
    hop_target: dict[int, str] | None = None,
) -> list[TestHit]:
    """TestHit records (with one path each) for the first `limit` selected tests."""
    s = view.symbols
    runs = RunIds(view)
    hop_target = hop_target or {}
    if selection.static_only:  # the common case, kept to numpy: no per-test objects
        ids, depths = selection.ids[:limit], selection.depths[:limit]
        rows = zip(ids.tolist(), depths.tolist(), _paths(parent_of, ids, depths))
        return [
            _test_hit(s, i, d, hopsmod.path_uids(s.uid, p, hop_target), runs.of_id(i).run_id)
            for i, d, p in rows
        ]
    tests = selection.first(limit)
    static = [t for t in tests if t.depth is not None]
    ids = np.asarray([t.id for t in static], dtype=np.int64)
    depths = np.asarray([t.depth for t in static], dtype=np.int64)
    paths = dict(zip(ids.tolist(), _paths(parent_of, ids, depths)))
    out = []
    for t in tests:
        i = t.id
        if t.depth is not None:
            path = hopsmod.path_uids(s.uid, paths[i], hop_target)
        else:
            path = [s.uid[i], s.uid[t.function]]
        hit = _test_hit(s, i, t.depth, path, t.run_id or runs.of_id(i).run_id)
        hit.why, hit.reasons = t.why, list(t.reasons)
        hit.stale, hit.stale_reason = t.stale_reason is not None, t.stale_reason
        out.append(hit)
    return out


def _test_hit(s: SymbolTable, i: int, depth: int | None, path: list[str], run_id: str) -> TestHit:
    return TestHit(
        s.uid[i],
        s.kind[i],
        s.qualified_name[i],
        s.file[i],
        int(s.start_line[i]),
        depth,
        path,
        run_id,
    )


def tests_reaching(
    view: GraphView,
    target_ids: list[int],
    relation: str | list[str] | None = None,
    min_confidence: float = 0.0,
    limit: int | None = None,
    *,
    observed: ObservedCoverage | None = None,
) -> tuple[int, list[TestHit]]:
    """(How many tests depend on the targets or their members at any depth or were seen
    running them, the first `limit` of them)."""
    mask = csrmod.type_mask(parse_relations(relation))
    sources = with_members(view, target_ids)
    closure = relays.upstream_bfs(
        view, sources, type_mask=mask, min_confidence=float(min_confidence)
    )
    nodes, depths = _test_ids(view, closure, sources, mask, float(min_confidence))
    parent_of = _parent_array(view.n_nodes, closure.nodes, closure.parents)
    sel = select(view, nodes, depths, observed=observed, sources=sources, mask=mask)
    return sel.total, test_hits(view, sel, parent_of, limit)


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


def assess_completeness(
    view: GraphView,
    direction: str,
    mask: int,
    depth: int,
    sources: np.ndarray,
    entries: np.ndarray,
    depths: np.ndarray,
) -> Completeness:
    """Unresolved call sites that might extend the answer.

    Upstream: sites whose callee name is the name of a source or of an entry that is
    not at the depth limit (its unresolved callers would be one hop further), made
    by a symbol not already in the answer. Downstream: unresolved sites made by a
    source or by such an entry (each might call something the answer misses).
    """
    if view.unresolved is None:
        return Completeness("unknown", 0)
    if not (mask >> csrmod.EDGE_TYPES["CALLS"]) & 1:
        return Completeness("exact", 0)
    s = view.symbols
    sites = view.sites()
    frontier = np.concatenate([sources, entries[depths < depth]])
    if direction == "upstream":
        names = {s.name[i] for i in frontier.tolist() if s.name[i]}
        chunks = [sites.by_name[name] for name in names if name in sites.by_name]
        idx = np.concatenate(chunks) if chunks else np.empty(0, dtype=np.int64)
        answered = np.zeros(view.n_nodes + 1, dtype=bool)  # last slot: unknown callers (-1)
        answered[sources] = True
        answered[entries] = True
        idx = idx[~answered[sites.caller[idx]]]
        outside = entered_from_outside(view, frontier.tolist())
    else:
        answered = None
        in_frontier = np.zeros(view.n_nodes + 1, dtype=bool)
        in_frontier[frontier] = True
        idx = np.flatnonzero(in_frontier[sites.caller])
        outside = []
    comp = Completeness(
        "lower-bound" if idx.size or outside else "exact", int(idx.size), _first_sites(view, idx)
    )
    unbound = unbound_fixture_sites(view, answered, idx)
    if unbound.size:
        comp.status = "lower-bound"
        comp.unbound_fixtures = int(unbound.size)
        first = _first_sites(view, unbound)[0]
        comp.reasons.append(
            f"{unbound.size} request{'s' if unbound.size > 1 else ''} of a fixture the "
            f"repository does not define (a plugin's), e.g. "
            f"{first.name.removeprefix(UNBOUND_FIXTURE)!r} by {first.caller}: its code may "
            + (
                "run this one; the tests requesting it are not listed"
                if direction == "upstream"
                else "call what is not listed"
            )
        )
    if outside:
        comp.entered_from_outside = len(outside)
        first = min(outside, key=lambda i: s.uid[i])
        comp.reasons.append(
            f"{len(outside)} definition{'s' if len(outside) > 1 else ''} on the way may be "
            "called from outside the "
            f"repository with no caller in the graph (a special method, an override of a "
            f"library base), e.g. {s.uid[first]}: the tests entering there are not listed"
        )
    return comp


def unbound_fixture_sites(view: GraphView, answered, idx: np.ndarray) -> np.ndarray:
    """The sites (indices) that are requests of unbound fixtures: upstream (`answered`: the
    answer's ids) every such request made outside the answer, since a plugin's fixture may
    call anything; downstream those among the answer's own sites `idx`."""
    sites = view.sites()
    if answered is None:
        names = sites.names
        return np.array([i for i in idx.tolist()
                         if names[int(sites.name_index[i])].startswith(UNBOUND_FIXTURE)],
                        dtype=np.int64)  # fmt: skip
    chunks = [v for k, v in sites.by_name.items() if k.startswith(UNBOUND_FIXTURE)]
    if not chunks:
        return np.empty(0, dtype=np.int64)
    found = np.concatenate(chunks)
    return found[~answered[sites.caller[found]]]


def _first_sites(view: GraphView, idx: np.ndarray) -> list[UnresolvedSite]:
    """The SAMPLE_SITES first sites by (caller uid, line, name), without sorting them all:
    thousands of sites can match a common name, and a full sort costs milliseconds."""
    sites, s = view.sites(), view.symbols
    if idx.size == 0:
        return []
    # callers by uid rank (-1: unknown); lines stay below 2**24 (16M-line files are skipped)
    callers = sites.caller[idx]
    ranks = np.where(callers >= 0, view.snapshot.node_rank[np.maximum(callers, 0)], -1)
    key = ranks.astype(np.int64) * np.int64(1 << 24) + np.minimum(sites.line[idx], (1 << 24) - 1)
    if idx.size > SAMPLE_SITES:
        kth = np.partition(key, SAMPLE_SITES - 1)[SAMPLE_SITES - 1]
        idx, key = idx[key <= kth], key[key <= kth]  # every tie of the last key, for a stable cut
    rows = sorted(
        (int(k), sites.names[int(sites.name_index[i])], int(i)) for k, i in zip(key, idx)
    )[:SAMPLE_SITES]
    return [
        UnresolvedSite(
            name,
            s.uid[int(sites.caller[i])] if sites.caller[i] >= 0 else "?",
            int(sites.line[i]),
        )
        for _, name, i in rows
    ]


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
    reach = _traverse(
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
        paths = _paths(
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
            assess_completeness(view, direction, mask, depth, sources, reach.entries, reach.depths),
            stale_note(sel, observed),
        ),
        "groups": groups,
        "files": _counted(files, cap),
        "modules": _counted(modules, cap),
        "tests": test_hits(view, sel, reach.test_parent_of, cap, hop_target),
        "test_files": test_files,
    }


def with_stale_note(comp: Completeness, note: str | None) -> Completeness:
    """A selection resting on stale observed coverage is not known to be complete."""
    if note is None:
        return comp
    comp.reasons.append(note)
    if comp.status == "exact":
        comp.status = "lower-bound"
    return comp


# --------------------------------------------------------------------------- the questions


def freshness_of(index, check: bool) -> Freshness:
    """The freshness block; `check=False` skips the check (it runs `git status`, ~0.1 s on
    a large tree, far more than a traversal) and says so."""
    if not check:
        return Freshness(fresh=None, reasons=["freshness not checked (check_freshness=False)"])
    return freshness(index)


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
