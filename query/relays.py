"""Upstream traversal through relays: functions that call a value they were passed.

A `value-flow` CALLS edge W -> f says that W calls f because some caller handed f to W:
a decorator's wrapper calls the function it wraps (`@setupmethod def route` makes
`setupmethod.wrapper_func` call route), a callee calls the callback it was given. W makes
that call on behalf of whoever passed f, never on behalf of W's other callers: Flask's one
`setupmethod.wrapper_func` wraps 46 methods, and every caller of any of them calls the
wrapper, so an upstream walk through W from `Scaffold.route` reached the callers of all 46
(75 dependents instead of 21).

The same holds for a container's REFERENCES to its own member (`@setupmethod def route` in
class Scaffold's body passes route to the decorator when the class is defined): the class
(or module) is a dependent, but its subclasses, importers and users do not run route
through that reference. A function handing over its own nested function is no relay: it
does so on behalf of its callers (`add_app_template_filter` registering its
`register_template`, run when the blueprint is registered; a fixture's `@app.route` view,
run by the tests requesting it).

So, upstream, a relay W reached from f through such an edge is a dependent of f but a leaf:
its callers are not followed from there. Who really depends on f is reached by its own
edge: a caller of a decorated name REFERENCES the definition beside calling the wrapper,
and whoever passes f as an argument REFERENCES it (`value-flow`). W's callers are still
followed when W is reached another way (W itself the target, or a caller of something
else reached).

The traversal runs on a copy of the upstream CSR in which each relay edge leads to a
shadow of W (an extra node without dependents); results are mapped back to W.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from codeimpact.graph import csr as csrmod
from codeimpact.query import hops as hopsmod


@dataclass(frozen=True)
class RelayCSR:
    """The upstream CSR with relay edges led to shadows: node n + j is relays[j]."""

    csr: csrmod.CSR
    relays: np.ndarray  # int64: the relay node each shadow stands for
    n: int  # nodes of the real graph

    def mask(self, node_mask: np.ndarray | None) -> np.ndarray | None:
        """A node mask of the real graph extended to the shadows (a shadow as its relay)."""
        if node_mask is None or not self.relays.size:
            return node_mask
        return np.concatenate([node_mask, node_mask[self.relays]])

    def real(self, reached: hopsmod.Reached) -> hopsmod.Reached:
        """The traversal's nodes in the real graph: a shadow becomes its relay, kept once:
        where it was reached for real if it was, else at its shadow's first depth."""
        if not self.relays.size:
            return reached
        nodes = reached.nodes.astype(np.int64)
        shadow = nodes >= self.n
        if not shadow.any():
            return reached
        nodes = nodes.copy()
        nodes[shadow] = self.relays[nodes[shadow] - self.n]
        # a relay reached both ways is kept where it was reached for real, even when its
        # shadow came first: its callers were followed from there, and their parent chains
        # pass through it (keeping the shadow's shallower entry gave them paths shorter than
        # their depths). A relay reached only as a shadow keeps that entry.
        order = np.lexsort((np.arange(nodes.size), shadow))  # real entries first, BFS order
        _, first = np.unique(nodes[order], return_index=True)
        keep = np.sort(order[first])  # back to BFS order (depths stay non-decreasing)
        return hopsmod.Reached(nodes[keep], reached.depths[keep], reached.parents[keep])


def relay_csr(view) -> RelayCSR:
    """The view's upstream CSR with its relay edges led to shadows (cached on the view)."""
    cached = view.cached("relay_csr")
    if cached is not None:
        return cached
    c = view.csr("upstream")
    n = c.n_nodes
    relay_src, callee = view.relay_edges()
    out = RelayCSR(c, np.empty(0, np.int64), n)
    # upstream, the relay edge is the entry W in the row of f, of type CALLS
    keys = view.edge_keys("upstream")
    wanted = np.unique(callee * np.int64(max(n, 1)) + relay_src)
    relay_at = np.isin(keys, wanted) & (c.edge_type == csrmod.EDGE_TYPES["CALLS"])
    # a container's REFERENCES to its own member (a decorator applied in a class body or a
    # module): the member is passed at definition time, the container's users do not run it
    contains = keys[c.edge_type == csrmod.EDGE_TYPES["CONTAINS"]]
    own = np.isin(keys, contains) & (c.edge_type == csrmod.EDGE_TYPES["REFERENCES"])
    # ... unless the container is a function: it hands its own closure over for a later
    # call on behalf of its callers (`self.record_once(register_template)`, a fixture's
    # `@app.route("/abort") def do_abort` run by the tests requesting it)
    own[own] = ~_function(view)[c.indices[own].astype(np.int64)]
    at = np.flatnonzero(relay_at | own)
    if at.size:
        relays, slot = np.unique(c.indices[at].astype(np.int64), return_inverse=True)
        indices = c.indices.copy()
        indices[at] = (n + slot).astype(np.int32)
        indptr = np.concatenate([c.indptr, np.full(relays.size, c.indptr[-1], dtype=np.int64)])
        out = RelayCSR(csrmod.CSR(indptr, indices, c.edge_type, c.confidence), relays, n)
    view.cache("relay_csr", out)
    return out


def _function(view) -> np.ndarray:
    """Bool per node: a function or method."""
    kind = view.snapshot.node_kind
    return (kind == csrmod.KIND_CODES["function"]) | (kind == csrmod.KIND_CODES["method"])


def upstream_bfs(view, sources, hops=(), *, max_depth=-1, type_mask, min_confidence,
                 node_mask=None) -> hopsmod.Reached:  # fmt: skip
    """hops.bfs upstream, relays reached through their relay edges left unexpanded."""
    r = relay_csr(view)
    reached = hopsmod.bfs(
        r.csr,
        sources,
        list(hops),
        max_depth=max_depth,
        type_mask=type_mask,
        min_confidence=min_confidence,
        node_mask=r.mask(node_mask),
    )
    return r.real(reached)
