"""Tests to run: the tests the graph says reach a change, united with the tests seen running it.

Every tests list (impact, blast-radius, context, detect-changes, review) is made here.
Each selected test says why it was selected (`WHY_ORDER`):
- `changed`: the test itself changed (detect-changes and review add these);
- `reaches`: a path in the graph leads from the test to the target (or a member);
- `covered`: observed coverage (`graph coverage import`) saw the test run the target or
  a member of it. Such a link is *stale* when the function's (or the test's) file
  changed since the observation: the test is still selected, with `stale` and the
  reason, and the answer's completeness says it rests on stale evidence.

Observed links stand for executed calls, so they join a selection that follows CALLS
(the default), whatever `min_confidence` says: an observed run is not a guess.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from codeimpact.graph import csr as csrmod
from codeimpact.query.graphview import GraphView
from codeimpact.query.observed import ObservedCoverage
from codeimpact.query.test_runs import RunId, RunIds

WHY_ORDER = ("changed", "reaches", "covered")


@dataclass(frozen=True)
class Selected:
    """One test of a selection, before it is turned into a result's entry."""

    id: int  # the test's symbol id
    run_id: str  # the runner's id when observed coverage gave it (a pytest node id), else ""
    depth: int | None  # hops from the target in the graph; None when not `reaches`
    reasons: tuple[str, ...]  # in WHY_ORDER
    function: int  # `covered`: a target or member the test was seen running (-1: none)
    stale_reason: str | None  # `covered` only by stale links: why they are stale

    @property
    def why(self) -> str:
        return self.reasons[0]


@dataclass
class Selection:
    ids: np.ndarray  # the selected tests' symbol ids, in list order: (uid, run id)
    stale: int  # tests selected only by stale observed links
    stale_reasons: list[str]  # their reasons, each once, sorted
    # With observed tests: every test as a Selected. Without: the traversal's arrays only
    # (`depths`), since thousands of tests can reach a core function and a query lists a few.
    _tests: list[Selected] | None = None
    depths: np.ndarray | None = None  # static_only: hops from the target, per test

    @property
    def total(self) -> int:
        return int(self.ids.shape[0])

    @property
    def static_only(self) -> bool:
        """Every test is `reaches` only (no observed test joined)."""
        return self._tests is None

    def first(self, limit: int | None) -> list[Selected]:
        if self._tests is not None:
            return self._tests[:limit]
        ids, depths = self.ids[:limit].tolist(), self.depths[:limit].tolist()
        return [Selected(i, "", d, ("reaches",), -1, None) for i, d in zip(ids, depths)]


def how_selected(depth: int | None, reasons: list[str] | tuple[str, ...], stale: bool) -> str:
    """A short label for a listed test: `d=2`, `seen running it`, `d=1, seen`, `(stale)`."""
    parts = [f"d={depth}"] if depth is not None else []
    if "covered" in reasons:
        parts.append("seen" if parts else "seen running it")
    if "changed" in reasons:
        parts.insert(0, "changed")
    return ", ".join(parts) + (" (stale)" if stale else "")


def follows_calls(mask: int) -> bool:
    return bool((mask >> csrmod.EDGE_TYPES["CALLS"]) & 1)


def _observed(cov: ObservedCoverage, sources: np.ndarray) -> dict[tuple[int, str], Selected]:
    """The observed tests of the sources, keyed by (test id, run id): a test one subclass
    inherits runs under the subclass's node id, a test of its own under its own."""
    best: dict[int, tuple[int, str | None]] = {}  # observed test index -> (function, stale)
    tests_of, test_stale = cov.tests_of, cov.test_stale
    for sid in sources.tolist():
        ks = tests_of.get(sid)
        if not ks:
            continue
        f_stale = cov.function_stale.get(sid)
        for k in ks:
            reason = f_stale or test_stale[k]
            held = best.get(k)
            if held is None or (held[1] is not None and reason is None):
                best[k] = (sid, reason)
    out: dict[tuple[int, str], Selected] = {}
    for k, (function, reason) in best.items():
        key = (cov.test_ids[k], cov.run_ids[k])
        held = out.get(key)
        if held is None or (held.stale_reason is not None and reason is None):
            out[key] = Selected(key[0], key[1], None, ("covered",), function, reason)
    return out


def select(
    view: GraphView,
    static_ids: np.ndarray,
    static_depths: np.ndarray,
    *,
    observed: ObservedCoverage | None,
    sources: np.ndarray,
    mask: int,
) -> Selection:
    """The union of the static tests (ids and depths from the traversal, in uid order) and
    the observed tests of `sources` (the targets with their members)."""
    seen = _observed(observed, sources) if observed is not None and follows_calls(mask) else {}
    if not seen:
        return Selection(static_ids, 0, [], None, static_depths)
    merged: dict[tuple[int, str], Selected] = {
        (i, ""): Selected(i, "", d, ("reaches",), -1, None)
        for i, d in zip(static_ids.tolist(), static_depths.tolist())
    }
    for key, sel in seen.items():
        held = merged.get(key)
        if held is None:
            merged[key] = sel
        else:
            merged[key] = Selected(
                held.id, held.run_id, held.depth, ("reaches", "covered"), sel.function, None
            )
    tests = _drop_covered_modules(view, list(merged.values()))
    uid = view.symbols.uid
    tests.sort(key=lambda t: (uid[t.id], t.run_id))
    stale = [t for t in tests if t.reasons == ("covered",) and t.stale_reason]
    ids = np.fromiter((t.id for t in tests), dtype=np.int64, count=len(tests))
    return Selection(ids, len(stale), sorted({t.stale_reason for t in stale}), tests)


def _drop_covered_modules(view: GraphView, tests: list[Selected]) -> list[Selected]:
    """A test module is listed only when nothing inside it is (it would repeat its file);
    the traversal applies the rule to static tests, this to the union."""
    ids = np.fromiter((t.id for t in tests), dtype=np.int64, count=len(tests))
    is_module = view.snapshot.node_kind[ids] == csrmod.KIND_CODES["module"]
    if not is_module.any():
        return tests
    drop = is_module & np.isin(ids, view.symbols.module_id[ids[~is_module]])
    return [t for t, d in zip(tests, drop.tolist()) if not d]


def covered_entries(
    observed: ObservedCoverage | None, entries: np.ndarray, mask: int
) -> np.ndarray:
    """bool per entry: some observed test ran it (so it is not untested)."""
    out = np.zeros(entries.shape[0], dtype=bool)
    if observed is None or not follows_calls(mask) or not observed.tests_of:
        return out
    ran = np.fromiter(observed.tests_of, dtype=np.int64, count=len(observed.tests_of))
    return np.isin(entries, ran)


def stale_note(selection: Selection, observed: ObservedCoverage | None) -> str | None:
    """The completeness reason when the selection rests on stale observed links."""
    if not selection.stale or observed is None:
        return None
    shown = "; ".join(selection.stale_reasons[:3])
    more = len(selection.stale_reasons) - 3
    return (
        f"{selection.stale} of {selection.total} tests are selected only by observed coverage "
        f"that is stale ({shown}{f'; +{more} more' if more > 0 else ''}): re-run the tests "
        "with coverage and `graph coverage import`"
    )


def hit_run_id(runs: RunIds, view: GraphView, uid: str, run_id: str) -> RunId:
    """The runner id of a listed test: the symbol's own, unless observed coverage gave
    another node id (a subclass running a test method it inherits), which is then exact."""
    own = runs.of_id(view.symbols.by_uid[uid])
    if not run_id or run_id == own.run_id:
        return own
    file, *names = run_id.split("::")
    key = tuple(p for p in file.split("/") if p and p != ".")
    return RunId(run_id, (*key, *names), True, file)


def run_ids_of_hits(view: GraphView, hits) -> list[str]:
    """What `--tests-only` prints for a list of TestHits: each test once, as its runner
    takes it (query/test_runs.py), observed node ids included."""
    runs = RunIds(view)
    return runs.select(hit_run_id(runs, view, h.uid, h.run_id) for h in hits)
