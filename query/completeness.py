"""Whether an impact answer is complete: the unresolved call sites that might extend it,
requests of fixtures the repository does not define, definitions that code outside the
repository may call, and stale observed coverage; `completeness` in the result."""

from __future__ import annotations

import numpy as np

from codeimpact.graph import csr as csrmod
from codeimpact.indexer.resolved import UNBOUND_FIXTURE
from codeimpact.query.graphview import GraphView
from codeimpact.query.impact_shapes import SAMPLE_SITES, Completeness, UnresolvedSite
from codeimpact.query.outside import entered_and_uncalled, registered


def assess_completeness(
    view: GraphView,
    direction: str,
    mask: int,
    depth: int,
    sources: np.ndarray,
    entries: np.ndarray,
    depths: np.ndarray,
    observed=None,
    closure: np.ndarray | None = None,
) -> Completeness:
    """Unresolved call sites that might extend the answer.

    Upstream: sites whose callee name is the name of a source or of an entry that is
    not at the depth limit (its unresolved callers would be one hop further), made
    by a symbol not already in the answer. Downstream: unresolved sites made by a
    source or by such an entry (each might call something the answer misses).
    Upstream also: definitions on the way a library may enter, functions with no caller at
    all, and functions of the tests' `closure` (the frontier without one) that only a
    dispatcher calls for their module's registration (`observed`: the coverage links; a
    function they saw run is not counted).
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
        outside, uncalled = entered_and_uncalled(view, frontier.tolist())
        # the whole closure, not the frontier: the tests listed come from all of it
        routed = registered(view, closure if closure is not None else frontier)
        if observed is not None and observed.tests_of:
            # observed coverage saw the tests that run it: they are in the selection
            uncalled = [i for i in uncalled if i not in observed.tests_of]
            routed = [i for i in routed if i not in observed.tests_of]
    else:
        answered = None
        in_frontier = np.zeros(view.n_nodes + 1, dtype=bool)
        in_frontier[frontier] = True
        idx = np.flatnonzero(in_frontier[sites.caller])
        outside, uncalled, routed = [], [], []
    comp = Completeness(
        "lower-bound" if idx.size or outside or uncalled or routed else "exact",
        int(idx.size),
        _first_sites(view, idx),
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
            f"repository, or implicitly by the interpreter, where the graph has no call (a "
            f"special method, an override of a library base), e.g. {s.uid[first]}: the tests "
            "entering there are not listed"
        )
    if routed:
        comp.no_caller = len(routed)
        first = min(routed, key=lambda i: s.uid[i])
        many = len(routed) > 1
        comp.reasons.append(
            f"{len(routed)} function{'s' if many else ''} on the way {'are' if many else 'is'} "
            f"run only through what {'they were' if many else 'it was'} registered with at "
            f"import (a dispatcher, a table of its module: a module-level route, a filter), "
            f"e.g. {s.uid[first]}: the tests reaching {'them' if many else 'it'} that way "
            "(a request, a template) are not listed"
        )
    if uncalled:
        comp.no_caller += len(uncalled)
        first = min(uncalled, key=lambda i: s.uid[i])
        comp.reasons.append(
            f"{len(uncalled)} function{'s' if len(uncalled) > 1 else ''} on the way "
            f"{'have' if len(uncalled) > 1 else 'has'} no caller in the graph (run through "
            f"a call it does not resolve: a dynamic call, a stored callback, a library), e.g. "
            f"{s.uid[first]}: the tests running it that way are not listed"
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


def with_stale_note(comp: Completeness, note: str | None) -> Completeness:
    """A selection resting on stale observed coverage is not known to be complete."""
    if note is None:
        return comp
    comp.reasons.append(note)
    if comp.status == "exact":
        comp.status = "lower-bound"
    return comp
