"""Plain Python / numpy implementations of the native core's contract (the test oracle).

Three independent implementations, none sharing code with ``native/_core.c``:

- :func:`bfs_python`: the contract of ``codeimpact.native.bfs`` written as the
  obvious per-edge loop over Python lists.
- :func:`bfs_numpy`: the same result computed level by level with vectorised
  numpy (the edges leaving a frontier, in frontier x CSR order, filtered; the
  first occurrence of each new node wins). It is the "pure numpy" baseline of
  the benchmarks and is itself checked against :func:`bfs_python`.
- :func:`scc_python`: SCCs from pairwise reachability (quadratic; small graphs only).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np


@dataclass
class OracleBfs:
    nodes: list[int]
    depths: list[int]
    parents: list[int]
    truncated: bool


def _followed(type_mask: int, etype: int, conf: float, min_confidence: float) -> bool:
    return etype < 32 and (type_mask >> etype) & 1 == 1 and float(conf) >= min_confidence


def bfs_python(
    csr,
    sources,
    *,
    max_depth: int = -1,
    type_mask: int = 0xFFFFFFFF,
    min_confidence: float = 0.0,
    node_mask=None,
    limit: int = -1,
) -> OracleBfs:
    indptr = [int(x) for x in csr.indptr]
    indices = [int(x) for x in csr.indices]
    etype = [int(x) for x in csr.edge_type]
    conf = [float(x) for x in csr.confidence]
    mask = None if node_mask is None else [bool(x) for x in node_mask]
    if np.ndim(sources) == 0:
        sources = [sources]
    seen: set[int] = set()
    nodes: list[int] = []
    depths: list[int] = []
    parents: list[int] = []
    for s in sources:
        s = int(s)
        if s not in seen:
            seen.add(s)
            nodes.append(s)
            depths.append(0)
            parents.append(-1)
    n_sources = len(nodes)
    queue = deque(zip(nodes, depths, strict=True))
    while queue:
        u, d = queue.popleft()
        if 0 <= max_depth <= d:
            continue
        for e in range(indptr[u], indptr[u + 1]):
            if not _followed(type_mask, etype[e], conf[e], min_confidence):
                continue
            v = indices[e]
            if v in seen or (mask is not None and not mask[v]):
                continue
            if limit >= 0 and len(nodes) - n_sources >= limit:
                return OracleBfs(nodes, depths, parents, True)
            seen.add(v)
            nodes.append(v)
            depths.append(d + 1)
            parents.append(u)
            queue.append((v, d + 1))
    return OracleBfs(nodes, depths, parents, False)


def bfs_numpy(
    csr,
    sources,
    *,
    max_depth: int = -1,
    type_mask: int = 0xFFFFFFFF,
    min_confidence: float = 0.0,
    node_mask=None,
    limit: int = -1,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """Level-synchronous numpy BFS; returns (nodes, depths, parents, truncated)."""
    indptr = np.asarray(csr.indptr)
    indices = np.asarray(csr.indices)
    etype = np.asarray(csr.edge_type)
    conf = np.asarray(csr.confidence)
    n = indptr.shape[0] - 1
    allowed = np.array([t < 32 and (type_mask >> t) & 1 == 1 for t in range(256)], dtype=bool)
    src = np.atleast_1d(np.asarray(sources, dtype=np.int64))
    _, first = np.unique(src, return_index=True)
    src = src[np.sort(first)]
    seen = np.zeros(n, dtype=bool)
    seen[src] = True
    out_nodes = [src]
    out_depths = [np.zeros(src.shape[0], dtype=np.int32)]
    out_parents = [np.full(src.shape[0], -1, dtype=np.int64)]
    frontier = src
    depth = 0
    reported = 0
    truncated = False
    while frontier.size and (max_depth < 0 or depth < max_depth):
        starts = indptr[frontier]
        lens = indptr[frontier + 1] - starts
        total = int(lens.sum())
        if total == 0:
            break
        # Edge ids of the frontier, in frontier order then CSR order.
        offsets = np.cumsum(lens) - lens
        edges = np.repeat(starts - offsets, lens) + np.arange(total, dtype=np.int64)
        owner = np.repeat(frontier, lens)
        ok = allowed[etype[edges]] & (conf[edges].astype(np.float64) >= min_confidence)
        targets = indices[edges[ok]].astype(np.int64)
        owner = owner[ok]
        fresh = ~seen[targets]
        if node_mask is not None:
            fresh &= np.asarray(node_mask)[targets] != 0
        targets = targets[fresh]
        owner = owner[fresh]
        if targets.size == 0:
            break
        _, first = np.unique(targets, return_index=True)
        first.sort()
        new = targets[first]
        new_parents = owner[first]
        if limit >= 0 and reported + new.size > limit:
            room = limit - reported
            new = new[:room]
            new_parents = new_parents[:room]
            truncated = True
        seen[new] = True
        depth += 1
        reported += new.size
        out_nodes.append(new)
        out_depths.append(np.full(new.size, depth, dtype=np.int32))
        out_parents.append(new_parents)
        if truncated:
            break
        frontier = new
    return (
        np.concatenate(out_nodes),
        np.concatenate(out_depths),
        np.concatenate(out_parents),
        truncated,
    )


def shortest_path_python(
    csr,
    source: int,
    target: int,
    *,
    type_mask: int = 0xFFFFFFFF,
    min_confidence: float = 0.0,
    node_mask=None,
    max_depth: int = -1,
) -> list[int] | None:
    res = bfs_python(
        csr,
        [source],
        max_depth=max_depth,
        type_mask=type_mask,
        min_confidence=min_confidence,
        node_mask=node_mask,
    )
    parent = dict(zip(res.nodes, res.parents, strict=True))
    if target not in parent:
        return None
    path = [target]
    while path[-1] != source:
        path.append(parent[path[-1]])
    return path[::-1]


def _adjacency(csr, type_mask: int, min_confidence: float) -> list[list[int]]:
    n = len(csr.indptr) - 1
    adj: list[list[int]] = [[] for _ in range(n)]
    for u in range(n):
        for e in range(int(csr.indptr[u]), int(csr.indptr[u + 1])):
            if _followed(type_mask, int(csr.edge_type[e]), csr.confidence[e], min_confidence):
                adj[u].append(int(csr.indices[e]))
    return adj


def scc_python(csr, *, type_mask: int = 0xFFFFFFFF, min_confidence: float = 0.0) -> list[int]:
    """Labels numbered by the smallest node of each component, ascending."""
    adj = _adjacency(csr, type_mask, min_confidence)
    n = len(adj)
    reach = []
    for s in range(n):
        seen = {s}
        stack = [s]
        while stack:
            u = stack.pop()
            for v in adj[u]:
                if v not in seen:
                    seen.add(v)
                    stack.append(v)
        reach.append(seen)
    labels = [-1] * n
    next_label = 0
    for v in range(n):  # ascending: the first node met of a component is its minimum
        if labels[v] >= 0:
            continue
        for u in reach[v]:
            if v in reach[u]:
                labels[u] = next_label
        next_label += 1
    return labels


def cycles_python(
    csr, *, type_mask: int = 0xFFFFFFFF, min_confidence: float = 0.0
) -> list[list[int]]:
    labels = scc_python(csr, type_mask=type_mask, min_confidence=min_confidence)
    adj = _adjacency(csr, type_mask, min_confidence)
    groups: dict[int, list[int]] = {}
    for v, label in enumerate(labels):
        groups.setdefault(label, []).append(v)
    return [
        members
        for _, members in sorted(groups.items())
        if len(members) > 1 or members[0] in adj[members[0]]
    ]
