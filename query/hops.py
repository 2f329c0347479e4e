"""Traversals that also start one hop out: the dependents of a target the graph has no
node for (a symbol deleted before the index was built, found by resolving the old side:
indexer/what_if.py) enter at depth 1, through the edge that was resolved to it.

The native BFS starts every source at depth 0, so such a traversal is two: one from
the targets, one from the first hops (one level shallower), merged by taking each
node's smaller depth (the targets' side on ties). A node's parent is on the side
that gave its depth, so parent chains still step down one level at a time; a first
hop's chain ends in -1 where the target it depends on would be.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from codeimpact.graph import csr as csrmod
from codeimpact.native import traversal as native


@dataclass(frozen=True)
class FirstHop:
    """A depth-1 dependent of a target that is not in the graph."""

    id: int  # the dependent's symbol id
    relation: str  # CALLS, IMPORTS, ... from the dependent to the target
    confidence: float
    target: str  # the uid it depends on (no node has it)


@dataclass(frozen=True)
class Reached:
    """What a traversal reached, as native.bfs reports it (nodes in BFS order)."""

    nodes: np.ndarray
    depths: np.ndarray
    parents: np.ndarray


def bfs(
    csr,
    sources: np.ndarray,
    hops: list[FirstHop],
    *,
    max_depth: int = -1,
    type_mask: int,
    min_confidence: float,
    node_mask: np.ndarray | None = None,
) -> Reached:
    """native.bfs from `sources` at depth 0 and the first hops at depth 1, merged."""
    a = native.bfs(
        csr,
        sources,
        max_depth=max_depth,
        type_mask=type_mask,
        min_confidence=min_confidence,
        node_mask=node_mask,
    )
    starts = np.asarray(sorted({h.id for h in hops}), dtype=np.int64)
    if node_mask is not None and starts.size:
        starts = starts[node_mask[starts] != 0]  # a BFS keeps its sources, masked or not
    if not starts.size or max_depth == 0:
        return Reached(a.nodes, a.depths, a.parents)
    b = native.bfs(
        csr,
        starts,
        max_depth=max_depth - 1 if max_depth > 0 else -1,
        type_mask=type_mask,
        min_confidence=min_confidence,
        node_mask=node_mask,
    )
    n = csr.n_nodes
    depth = np.full(n, np.iinfo(np.int64).max, dtype=np.int64)
    parent = np.full(n, -1, dtype=np.int64)
    depth[a.nodes] = a.depths
    parent[a.nodes] = a.parents
    b_depths = b.depths.astype(np.int64) + 1
    better = b_depths < depth[b.nodes]
    won = b.nodes[better]
    depth[won] = b_depths[better]
    parent[won] = np.where(b.depths[better] == 0, -1, b.parents[better])
    nodes = np.flatnonzero(depth != np.iinfo(np.int64).max)
    order = np.lexsort((nodes, depth[nodes]))
    nodes = nodes[order]
    return Reached(nodes, depth[nodes], parent[nodes])


def patch_first_hops(
    hops: list[FirstHop],
    nodes: np.ndarray,
    parents: np.ndarray,
    types: np.ndarray,
    confidences: np.ndarray,
) -> None:
    """The edge type and confidence of entries reached as first hops (their parent is -1
    at depth 1: no edge of the graph says how they were reached), in place."""
    if not hops:
        return
    best: dict[int, FirstHop] = {}
    for h in hops:
        if h.id not in best or h.confidence > best[h.id].confidence:
            best[h.id] = h
    for k in np.flatnonzero(parents < 0).tolist():
        h = best.get(int(nodes[k]))
        if h is not None:
            types[k] = csrmod.EDGE_TYPES.get(h.relation, 255)
            confidences[k] = h.confidence


def path_uids(uids: list[str], path: list[int], hop_target: dict[int, str]) -> list[str]:
    """A parent chain's uids; the -1 after a first hop is the target it depends on."""
    out = []
    for k, x in enumerate(path):
        if x >= 0:
            out.append(uids[x])
        elif k and path[k - 1] in hop_target:
            out.append(hop_target[path[k - 1]])
    return out


def hop_targets(hops: list[FirstHop]) -> dict[int, str]:
    """id -> the target a first hop depends on (the most confident, when several)."""
    out: dict[int, tuple[float, str]] = {}
    for h in hops:
        if h.id not in out or h.confidence > out[h.id][0]:
            out[h.id] = (h.confidence, h.target)
    return {i: t for i, (_, t) in out.items()}
