"""The traversals of an impact question: a target's members, the native BFS up or down
from them (relays and first hops included), each entry's path back to a target, and the
tests that reach the targets (statically, or seen running them: query/selection.py)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from codeimpact.graph import csr as csrmod
from codeimpact.native import traversal as native
from codeimpact.query import hops as hopsmod
from codeimpact.query import relays
from codeimpact.query.graphview import GraphView, SymbolTable
from codeimpact.query.impact_shapes import TestHit, parse_relations
from codeimpact.query.observed import ObservedCoverage
from codeimpact.query.running_modules import runs_on_import
from codeimpact.query.selection import Selection, select
from codeimpact.query.test_runs import RunIds


def with_members(view: GraphView, ids: list[int]) -> np.ndarray:
    """The ids plus all their CONTAINS descendants, targets first, each once."""
    if not ids:
        return np.empty(0, dtype=np.int64)
    reach = native.bfs(
        view.csr("downstream"), np.asarray(ids, np.int64), type_mask=csrmod.type_mask("CONTAINS")
    )
    return reach.nodes.astype(np.int64)


def paths_back(parent_of: np.ndarray, nodes: np.ndarray, depths: np.ndarray) -> list[list[int]]:
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
    closure: np.ndarray  # the upstream closure the tests come from (unlimited depth)


def _parent_array(n: int, nodes: np.ndarray, parents: np.ndarray) -> np.ndarray:
    out = np.full(n, -1, dtype=np.int64)
    out[nodes] = parents
    return out


def _test_ids(view: GraphView, closure, sources, mask, min_confidence) -> tuple:
    """The test symbols of an upstream closure, in uid order, with their depths.

    A test module is left out when importing it runs nothing of the closure, and so is a
    test function in the closure only by importing such modules in its body. One that
    does is listed even when tests inside it are too: it stands for every test of its
    file, all of which its import runs before them (leaving it out for the few listed
    inside missed the rest: Click's module-level `@click.command` definitions, 37
    functions whose every running test was named only so).
    """
    s = view.symbols
    sel = s.is_test[closure.nodes]
    nodes, depths = closure.nodes[sel], closure.depths[sel]
    keep = runs_on_import(view, nodes, closure.nodes, sources, mask, min_confidence)
    nodes, depths = nodes[keep], depths[keep]
    order = np.argsort(view.snapshot.node_rank[nodes], kind="stable")
    return nodes[order], depths[order]


def _plain_bfs(view: GraphView, sources, hops, **kw) -> hopsmod.Reached:
    return hopsmod.bfs(view.csr("downstream"), sources, hops, **kw)


def traverse(
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
        # the tests listed, not every test of the closure: a test module importing a module
        # that runs nothing of it (its `from m import x` IMPORTS m) exercises nothing there
        covered_ids = native.bfs(
            view.csr("downstream"),
            t_nodes,
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
        closure=closure.nodes,
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
        rows = zip(ids.tolist(), depths.tolist(), paths_back(parent_of, ids, depths))
        return [
            _test_hit(s, i, d, hopsmod.path_uids(s.uid, p, hop_target), runs.of_id(i).run_id)
            for i, d, p in rows
        ]
    tests = selection.first(limit)
    static = [t for t in tests if t.depth is not None]
    ids = np.asarray([t.id for t in static], dtype=np.int64)
    depths = np.asarray([t.depth for t in static], dtype=np.int64)
    paths = dict(zip(ids.tolist(), paths_back(parent_of, ids, depths)))
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
