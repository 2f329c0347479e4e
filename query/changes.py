"""detect-changes: git hunks -> the symbols they touch -> the impact of the change.

The diff is mapped to changed symbols in query/change_map.py; here the blast
radius starts from the changed symbols the index holds (the old uid of a moved
one: what its indexed dependents point at), the dependents of removed symbols
are found (query/broken.py), and the tests to run are listed with their runner's
ids. The index is never written.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from codeimpact.graph.errors import BadInput
from codeimpact.query import broken, gitdiff
from codeimpact.query.broken import BrokenDependent
from codeimpact.query.change_map import (  # noqa: F401 - the shapes are part of this API
    STATUSES,
    ChangedFile,
    ChangedSymbol,
    Mapped,
    SymbolSpan,
    indexed_uids,
    map_changes,
    own_hashes,
    spans_of,
)
from codeimpact.query.freshness import Freshness, freshness
from codeimpact.query.impact_shapes import RISK_LEVELS
from codeimpact.query.importers import importing_tests
from codeimpact.query.module_members import list_callers_in_changed_modules
from codeimpact.query.observed import ObservedCoverage, as_of
from codeimpact.query.selection import hit_run_id
from codeimpact.query.test_runs import RunId, RunIds

DEFAULT_LIMIT = 50  # dependents listed per blast-radius depth group


# ----------------------------------------------------------------------------- shapes


@dataclass
class TestToRun:
    uid: str
    file: str
    # "changed" (the test itself changed), "reaches" (a graph path to a changed symbol),
    # "covered" (observed coverage saw it run one) or "imports" (its file imports a changed
    # module: the `if_incomplete="importers"` fallback): the first of `reasons`
    why: str
    run_id: str = ""  # the id its runner accepts (pytest `path::Class::test`, ...)
    reasons: list[str] = field(default_factory=list)  # every reason, in that order
    stale: bool = False  # selected only by observed links into files changed since
    stale_reason: str | None = None


@dataclass
class ChangeImpact:
    targets: list[str]  # the indexed changed symbols the traversal started from
    not_indexed: list[str]  # changed symbols the index does not hold (no known dependents)
    counts: object | None  # the blast radius Counts: direct, total, files, modules, tests, ...
    groups: list  # the blast radius depth groups (d=1 WILL BREAK, ...)
    completeness: object | None  # the blast radius Completeness (lower bound or not)
    # dependents of deleted symbols (and of moved ones whose file is gone) that still name
    # them: broken (query/broken.py); cut by `limit`, `broken_total` is the complete number
    broken: list[BrokenDependent] = field(default_factory=list)
    broken_total: int = 0


@dataclass
class Fallback:
    """`--if-incomplete importers`: what the selection fell back to, and whether it had to."""

    mode: str  # "importers": the test files importing a changed file's module, transitively
    applied: bool  # the graph's answer was a lower bound, so the fallback's tests were added
    reason: str  # why it applied, or why not
    tests_added: int = 0  # test files added (each stands for its tests in `run_ids`)


IF_INCOMPLETE = ("keep", "importers")


@dataclass
class ChangeReport:
    scope: str
    base: str | None
    base_commit: str | None  # the old side's commit (None: git's index, or no commits)
    head: str | None
    summary: dict  # files, added, modified, deleted
    files: list[ChangedFile]
    symbols: list[ChangedSymbol]
    impact: ChangeImpact | None
    tests: list[TestToRun]
    risk: str  # LOW / MEDIUM / HIGH / CRITICAL
    risk_reasons: list[str]
    notes: list[str]
    freshness: Freshness
    # every test to run as its runner's id, deduplicated and sorted (`--tests-only`)
    run_ids: list[str] = field(default_factory=list)
    # the complete lengths of `symbols` and `tests`, which `limit` cuts
    symbols_total: int = 0
    tests_total: int = 0
    fallback: Fallback | None = None  # asked for with if_incomplete="importers"


# ----------------------------------------------------------------------------- impact


def impact_targets(symbols: list[ChangedSymbol], present: set[str] | None = None) -> list[str]:
    """The indexed uids a change starts from: what was there before (its dependents break)."""
    out: list[str] = []
    for s in symbols:
        if not s.indexed:
            continue
        # The old uid is the one the indexed dependents point at when the index is at the old side.
        for uid in (s.moved_from, s.uid):
            if uid and (present is None or uid in present):
                out.append(uid)
                break
    return sorted(set(out))


def change_impact(
    index,
    mapped: Mapped,
    depth: int,
    min_confidence: float,
    limit: int | None = DEFAULT_LIMIT,
    *,
    read_new: broken.ReadNew | None = None,
    observed: ObservedCoverage | None = None,
) -> tuple[object | None, ChangeImpact, list[str]]:
    """The blast radius of the changed symbols the index knows, with the dependents of the
    removed ones (None when there is nothing to start from); and notes. `read_new`: the
    diff's new side of some paths (whether an edited dependent still names them)."""
    from codeimpact.query.impact import blast_radius

    symbols = mapped.symbols
    present = indexed_uids(index, sorted({u for s in symbols for u in (s.uid, s.moved_from) if u}))
    targets = impact_targets(symbols, present)
    removed = broken.removed_symbols(symbols, mapped.gone_paths)
    changed = {u for s in symbols for u in (s.uid, s.moved_from) if u}
    dependents, notes = broken.broken_dependents(
        index, removed, present, changed, mapped.old_facts, read_new=read_new, mapped=mapped
    )
    gone = {r.uid for r in removed if r.uid not in present}
    not_indexed = sorted(s.uid for s in symbols if not s.indexed and s.uid not in gone)
    hops = broken.first_hops(index, dependents)
    if not targets and not hops:
        return None, ChangeImpact([], not_indexed, None, [], None, dependents), notes
    # No cap on the traversal's lists: every test to run is listed; the groups are cut below.
    br = blast_radius(
        index,
        targets,
        depth=depth,
        min_confidence=min_confidence,
        limit=0,
        check_freshness=False,
        first_hops=hops,
        observed=observed or observed_as_of(index, mapped),
    )
    # a caller inside a changed module is a source of the traversal: list it
    list_callers_in_changed_modules(index.graph, br, targets)
    if limit:
        for group in br.groups:
            del group.entries[limit:]  # `count` stays the full number
    if gone:
        notes.append(
            f"{len(gone)} removed symbol(s) are not in the index (it was built after the "
            "change): their dependents were found by resolving the indexed files with the "
            "old side put back"
        )
    summary = ChangeImpact(
        targets=targets,
        not_indexed=not_indexed,
        counts=br.counts,
        groups=br.groups,
        completeness=br.completeness,
        broken=dependents,
    )
    return br, summary, notes


def observed_as_of(index, mapped: Mapped):
    """The observed links as the change's new side sees them: a link into a file the
    change made differ from what was measured is stale (query/observed.as_of)."""
    contents: dict[str, str | None] = {p: None for p in mapped.gone_paths}
    contents.update(mapped.new_hashes)
    return as_of(index.observed, contents)


def tests_to_run(
    index, mapped: Mapped, br, broken_deps: list[BrokenDependent] = ()
) -> tuple[list[TestToRun], dict[str, RunId]]:
    """The tests to run (changed ones, then those reaching a change), and each one's
    runner id by uid (`select_run_ids` makes the list to hand the runner).
    `broken_deps`: the dependents of removed symbols; a module among them that imports
    one no longer loads, so the tests of everything in it run too."""
    view = index.graph
    runs = RunIds(view)
    tests: dict[str, TestToRun] = {}
    ids: dict[str, RunId] = {}
    for s in mapped.symbols:
        if s.is_test and s.status != "deleted" and s.kind in ("function", "method"):
            local = s.uid.partition("::")[2]
            ids[s.uid] = runs.of(s.file, local, s.kind, local_kinds=mapped.new_kinds.get(s.file))
            tests[s.uid] = TestToRun(s.uid, s.file, "changed", ids[s.uid].run_id, ["changed"])
    # the blast radius's tests: the graph's and the observed ones (query/selection.py); a
    # subclass running an inherited test is its own entry, keyed by its node id
    for t in getattr(br, "tests", None) or []:
        rid = hit_run_id(runs, view, t.uid, t.run_id)
        key = t.uid if rid.run_id == runs.of_id(view.symbols.by_uid[t.uid]).run_id else rid.run_id
        held = tests.get(key)
        if held is not None:
            held.reasons = [*held.reasons, *(r for r in t.reasons if r not in held.reasons)]
            continue
        ids[key] = rid
        tests[key] = TestToRun(
            t.uid, t.file, t.why, rid.run_id, list(t.reasons), t.stale, t.stale_reason
        )
    for t in broken.unloadable_tests(view, broken_deps):
        if t.uid not in tests:
            ids[t.uid] = runs.of_id(view.symbols.by_uid[t.uid])
            tests[t.uid] = TestToRun(t.uid, t.file, "reaches", ids[t.uid].run_id, ["reaches"])
    return sorted(tests.values(), key=lambda t: (t.file, t.uid, t.run_id)), ids


@dataclass
class Assessment:
    """A change report with what the review builds on and JSON does not show."""

    report: ChangeReport
    test_ids: dict[str, RunId]  # uid of each test to run -> its runner id
    observed: ObservedCoverage | None = None  # the links as the change sees them


def report(
    index,
    diff: gitdiff.Diff,
    depth: int = 3,
    min_confidence: float = 0.0,
    limit: int | None = DEFAULT_LIMIT,
    *,
    if_incomplete: str = "keep",
) -> ChangeReport:
    return assess(index, diff, depth, min_confidence, limit, if_incomplete=if_incomplete).report


def fall_back(
    index, mapped: Mapped, impact: ChangeImpact | None, tests: list[TestToRun],
    ids: dict[str, RunId],
) -> Fallback:  # fmt: skip
    """Adds the tests of the test files that import a changed module (query/importers.py)
    when the graph's selection is a lower bound: a CI that must not miss a test runs more."""
    comp = impact.completeness if impact is not None else None
    if comp is None or comp.status != "lower-bound":
        why = "the selection is exact" if comp is not None else "no indexed symbol changed"
        return Fallback("importers", False, why)
    view = index.graph
    runs = RunIds(view)
    paths = {p for f in mapped.files for p in (f.path, f.old_path) if p}
    held = {t.file for t in tests}
    added = 0
    for i in importing_tests(view, paths):
        uid, file = view.symbols.uid[i], view.symbols.file[i]
        if uid in ids:
            continue
        ids[uid] = runs.of_id(i)
        tests.append(TestToRun(uid, file, "imports", ids[uid].run_id, ["imports"]))
        added += file not in held
    tests.sort(key=lambda t: (t.file, t.uid, t.run_id))
    why = "completeness lower-bound: " + ("; ".join(comp.reasons) or "unresolved call sites")
    return Fallback("importers", True, why, added)


def assess(
    index,
    diff: gitdiff.Diff,
    depth: int = 3,
    min_confidence: float = 0.0,
    limit: int | None = DEFAULT_LIMIT,
    *,
    if_incomplete: str = "keep",
) -> Assessment:
    if if_incomplete not in IF_INCOMPLETE:
        raise BadInput(f"if_incomplete must be one of {', '.join(IF_INCOMPLETE)}")
    mapped = map_changes(index, diff)
    files, symbols = mapped.files, mapped.symbols
    observed = observed_as_of(index, mapped)
    br, impact, impact_notes = change_impact(
        index,
        mapped,
        depth,
        min_confidence,
        limit,
        read_new=lambda paths: gitdiff.read_new_side(index.repo, diff, paths),
        observed=observed,
    )
    tests, test_ids = tests_to_run(index, mapped, br, impact.broken)
    fallback = None
    if if_incomplete == "importers":
        fallback = fall_back(index, mapped, impact, tests, test_ids)
    notes = list(diff.notes)
    # Under compare / review the old side is another commit, which the index rarely holds.
    if diff.scope in ("unstaged", "staged", "all") and any(
        f.old_symbols_from == "extracted" for f in files
    ):
        notes.append(
            "the index does not hold the old side of some files: their old symbols were "
            "extracted on the fly"
        )
    if impact and impact.not_indexed:
        notes.append(
            f"{len(impact.not_indexed)} changed symbol(s) are not in the index (new since it "
            "was built): dependents in unindexed edits are not counted until `graph analyze`"
        )
    notes += impact_notes
    risk, reasons = ("LOW", []) if br is None else (br.risk.level, list(br.risk.reasons))
    risk, reasons = broken.broken_risk(risk, reasons, impact.broken, RISK_LEVELS)
    summary = {
        "files": len(files),
        **{status: sum(1 for s in symbols if s.status == status) for status in STATUSES},
    }
    rep = ChangeReport(
        scope=diff.scope,
        base=diff.base,
        base_commit=diff.old_commit,
        head=diff.head,
        summary=summary,
        files=files,
        symbols=symbols,
        impact=impact,
        tests=tests,
        risk=risk,
        risk_reasons=reasons,
        notes=notes,
        freshness=freshness(index),
        run_ids=RunIds(index.graph).select(test_ids.values()),
        fallback=fallback,
    )
    _cut(rep, limit)
    return Assessment(rep, test_ids, observed)


def _cut(rep: ChangeReport, limit: int | None) -> None:
    """Cut every list to `limit` items (0 or None: no cut), keeping the complete lengths
    beside them. `run_ids` is never cut: it is the whole selection a runner is handed."""
    rep.symbols_total, rep.tests_total = len(rep.symbols), len(rep.tests)
    if rep.impact is not None:
        rep.impact.broken_total = len(rep.impact.broken)
    if not limit:
        return
    del rep.symbols[limit:]
    del rep.tests[limit:]
    if rep.impact is not None:
        del rep.impact.broken[limit:]


def detect_changes(
    index,
    scope: str = "unstaged",
    base: str | None = None,
    depth: int = 3,
    min_confidence: float = 0.0,
    limit: int | None = DEFAULT_LIMIT,
    *,
    if_incomplete: str = "keep",
) -> ChangeReport:
    """What the diff of `scope` touched (symbols added / modified / deleted) and what it reaches.

    `if_incomplete="importers"`: when the completeness of the answer is a lower bound, the
    tests of the test files that import a changed module (transitively, conftest.py files
    included) are added, with why "imports" (`fallback` says whether it applied).

    `limit` caps every list: the changed symbols, the dependents per depth group, the broken
    dependents and the tests to run (0: no cap); the complete numbers stay beside them
    (`symbols_total`, a group's `count`, `broken_total`, `tests_total`) and `run_ids` is
    never cut.
    """
    if limit is not None and limit < 0:
        raise BadInput(f"--limit must be >= 0, got {limit}")
    diff = gitdiff.diff(index.repo, scope, base)
    return report(index, diff, depth, min_confidence, limit, if_incomplete=if_incomplete)
