"""Callers inside a changed module: dependents the blast radius starts from, not lists.

A changed module symbol (its top-level lines changed: an import that followed a
rename, a constant) makes everything it defines a source of the change's blast
radius, so that their callers and tests count. A function of that module which
calls another changed symbol is then a source too, at depth 0, and so missing
from the dependents, though it is one: `git mv m.py n.py` with the importer's
`from m import b` updated in the same diff hid every caller of `b` there. Those
members are listed here at depth 1, with the edge they call through.
"""

from __future__ import annotations

import numpy as np

from codeimpact.graph import csr as csrmod
from codeimpact.query.impact import assess_risk
from codeimpact.query.impact_shapes import RELATIONS, DepthGroup, ImpactEntry, depth_label
from codeimpact.query.reach import with_members


def _direct_callers(view, members: np.ndarray, changed: np.ndarray, mask: int) -> list[tuple]:
    """(member, changed symbol, edge type, confidence) for each member with an edge into a
    changed symbol (the most confident edge of the first changed symbol it reaches)."""
    c = view.csr("downstream")
    is_changed = np.zeros(view.n_nodes, dtype=bool)
    is_changed[changed] = True
    out = []
    for m in members.tolist():
        lo, hi = int(c.indptr[m]), int(c.indptr[m + 1])
        hits = c.indices[lo:hi]
        ok = is_changed[hits] & (
            (np.left_shift(1, c.edge_type[lo:hi].astype(np.int64)) & mask) != 0
        )
        if ok.any():
            k = int(np.flatnonzero(ok)[np.argmax(c.confidence[lo:hi][ok])])
            out.append((m, int(hits[k]), int(c.edge_type[lo + k]), float(c.confidence[lo + k])))
    return out


def list_callers_in_changed_modules(view, br, target_uids: list[str]) -> int:
    """Add to `br` (a blast radius of the changed symbols) the members of its changed
    modules that depend directly on another changed symbol, at depth 1; the counts and
    the risk follow. Returns how many were added."""
    s = view.symbols
    ids = [s.by_uid[u] for u in target_uids if u in s.by_uid]
    module = csrmod.KIND_CODES["module"]
    kinds = view.snapshot.node_kind
    modules = [i for i in ids if kinds[i] == module]
    others = [i for i in ids if kinds[i] != module]
    if not modules or not others:
        return 0
    changed = with_members(view, others)
    members = np.setdiff1d(with_members(view, modules), np.asarray(ids + changed.tolist()))
    members = members[~s.is_test[members]]
    listed = {e.uid for g in br.groups for e in g.entries}
    mask = csrmod.type_mask(RELATIONS)
    names = csrmod.EDGE_TYPE_NAMES
    found = [x for x in _direct_callers(view, members, changed, mask) if s.uid[x[0]] not in listed]
    if not found:
        return 0
    entries = [
        ImpactEntry(
            s.uid[m],
            s.kind[m],
            s.name[m],
            s.qualified_name[m],
            s.file[m],
            int(s.start_line[m]),
            1,
            names[t],
            round(conf, 4),
            [s.uid[m], s.uid[dst]],
            False,
        )  # fmt: skip
        for m, dst, t, conf in found
    ]
    group = next((g for g in br.groups if g.depth == 1), None)
    if group is None:
        group = DepthGroup(1, depth_label(1), 0, [])
        br.groups.insert(0, group)
    group.entries = sorted([*group.entries, *entries], key=lambda e: e.uid)
    group.count += len(entries)
    c = br.counts
    files = {e.file for g in br.groups for e in g.entries}
    c.direct, c.total, c.files = c.direct + len(entries), c.total + len(entries), len(files)
    br.risk = assess_risk(c.direct, c.total, c.modules, c.untested)
    return len(entries)
