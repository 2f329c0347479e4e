"""The review view: a branch's changes against its merge base, as a reviewer needs them.

For the commits between the merge base and HEAD: the changed symbols, their
depth-1 dependents that lie outside the diff (the callers, importers,
subclasses and referrers a reviewer must look at, since the diff does not show
them), the tests that reach each changed symbol, and the changed symbols no
test reaches. Uncommitted edits are not part of a review (a note says so).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from codeimpact.query import changes, gitdiff
from codeimpact.query.freshness import Freshness
from codeimpact.query.selection import hit_run_id
from codeimpact.query.test_runs import RunIds

REVIEW_SCHEMA = "codeimpact.review/1"
DEPENDENT_RELATIONS = ["CALLS", "IMPORTS", "EXTENDS", "IMPLEMENTS", "REFERENCES"]


@dataclass
class Dependent:
    uid: str
    kind: str
    file: str
    line: int
    relation: str  # how it depends on the changed symbol
    at_line: int | None  # the line of the call / import / use
    # it still names a symbol the change deleted (or moved out of a file that is gone)
    broken: bool = False


@dataclass
class ReviewedSymbol:
    symbol: changes.ChangedSymbol
    dependents: list[Dependent] = field(default_factory=list)  # d=1, outside the diff, no tests
    tests: list[str] = field(default_factory=list)  # test uids that reach the symbol
    tested: bool | None = None  # None: not in the index, so unknown
    run_ids: list[str] = field(default_factory=list)  # those tests as their runner's ids
    # the complete lengths of `dependents` and `tests`, which `limit` cuts
    dependents_total: int = 0
    tests_total: int = 0


@dataclass
class Review:
    schema: str
    base: str
    merge_base: str
    head: str
    summary: dict
    files: list[changes.ChangedFile]
    symbols: list[ReviewedSymbol]
    dependents: list[Dependent]  # the union, each once
    tests: list[str]
    untested: list[str]  # changed symbols (not tests) that no test reaches
    risk: str
    risk_reasons: list[str]
    notes: list[str]
    freshness: Freshness
    # the tests to run with their runner's ids (`tests` holds their uids), and the ids
    # alone, deduplicated and sorted (`--tests-only`)
    tests_to_run: list[changes.TestToRun] = field(default_factory=list)
    run_ids: list[str] = field(default_factory=list)
    # the complete lengths of the lists `limit` cuts (`run_ids` is never cut)
    symbols_total: int = 0
    dependents_total: int = 0
    tests_total: int = 0
    untested_total: int = 0
    tests_to_run_total: int = 0


def _reached_by_tests(index, uid: str, observed) -> list:
    """The tests the selection holds for `uid`: graph paths and observed coverage
    (query/selection.py, as the change sees it), as TestHits."""
    from codeimpact.query.impact import impact

    return impact(index, uid, limit=0, check_freshness=False, observed=observed).tests


def _dependents(index, uid: str, changed: set[str]) -> list[Dependent]:
    from codeimpact.query.deps import neighbours

    out: dict[str, Dependent] = {}
    for n in neighbours(index, uid, DEPENDENT_RELATIONS, incoming=True):
        if n.uid in changed or n.is_test or n.uid in out:
            continue
        out[n.uid] = Dependent(n.uid, n.kind, n.file, n.line, n.relation, n.at_line)
    return sorted(out.values(), key=lambda d: (d.file, d.line, d.uid))


def _removed_dependents(index, removed: list) -> tuple[list[Dependent], list[str]]:
    """The dependents outside the diff (not tests) of a removed symbol the index lacks, and
    the tests that reach them (those tests run the broken code)."""
    from codeimpact.query.reach import tests_reaching

    view = index.graph
    out: dict[str, Dependent] = {}
    for b in removed:
        i = view.symbols.by_uid.get(b.uid)
        if b.in_diff or i is None or view.symbols.is_test[i] or b.uid in out:
            continue
        out[b.uid] = Dependent(b.uid, b.kind, b.file, b.line, b.relation, b.at_line)
    ids = sorted({view.symbols.by_uid[b.uid] for b in removed if b.uid in view.symbols.by_uid})
    _, hits = tests_reaching(view, ids) if ids else (0, [])
    tests = {h.uid for h in hits}
    tests |= {
        b.uid
        for b in removed
        if b.uid in view.symbols.by_uid and view.symbols.is_test[view.symbols.by_uid[b.uid]]
    }
    return sorted(out.values(), key=lambda d: (d.file, d.line, d.uid)), sorted(tests)


def review(index, base: str | None = None, depth: int = 3, *, limit: int | None = None) -> Review:
    """Review HEAD's branch against `base` (default: the default branch) at their merge base.

    `limit` cuts every list (the reviewed symbols, each one's dependents and tests, the
    union of dependents, the tests, the untested symbols, the tests to run; 0 or None: no
    cut), with each complete length beside it (`<list>_total`); `summary` counts all, and
    `run_ids` (what a runner is handed) is never cut."""
    if limit is not None and limit < 0:
        from codeimpact.graph.errors import BadInput

        raise BadInput(f"--limit must be >= 0, got {limit}")
    repo = index.repo
    gitdiff.require_work_tree(repo)
    head = gitdiff.head_commit(repo)
    if head is None:
        from codeimpact.graph.errors import BadInput

        raise BadInput("the repository has no commits to review")
    base = base or gitdiff.default_base(repo)
    mb = gitdiff.merge_base(repo, gitdiff.resolve_commit(repo, base), head)
    diff = gitdiff.Diff("review", base, mb, head, head, gitdiff.commit_diff(repo, mb, head))
    assessed = changes.assess(index, diff, depth=depth, limit=0)
    rep = assessed.report
    notes = list(rep.notes)
    if mb == head:
        notes.append(f"HEAD is the merge base with {base}: nothing to review")
    if any(code.strip() for code, _ in gitdiff.porcelain_status(repo)):
        notes.append("the working tree has uncommitted changes: they are not part of the review")

    changed = {u for s in rep.symbols for u in (s.uid, s.moved_from) if u}
    broken_of: dict[str, list] = {}
    for b in rep.impact.broken if rep.impact else []:
        broken_of.setdefault(b.of, []).append(b)
    reviewed: list[ReviewedSymbol] = []
    hits_of: dict[int, list] = {}  # id(item) -> the TestHits behind item.tests
    for s in rep.symbols:
        item = ReviewedSymbol(s)
        uid = _indexed_uid(index, s)
        removed = [b for u in (s.uid, s.moved_from) if u for b in broken_of.get(u, [])]
        if uid is not None:
            item.dependents = _dependents(index, uid, changed)
            hits_of[id(item)] = _reached_by_tests(index, uid, assessed.observed)
            item.tests = sorted({t.uid for t in hits_of[id(item)]})
            item.tested = bool(item.tests) or s.is_test
        # its old uid the index no longer holds: the dependents found by resolving it anew
        resolved = [b for b in removed if b.found_by == "resolved"]
        if resolved:
            more, tests = _removed_dependents(index, resolved)
            known = {d.uid for d in item.dependents}
            item.dependents = sorted(
                [*item.dependents, *(d for d in more if d.uid not in known)],
                key=lambda d: (d.file, d.line, d.uid),
            )
            item.tests = sorted({*item.tests, *tests})
            item.tested = bool(item.tests) or s.is_test
        broken_uids = {b.uid for b in removed}
        for d in item.dependents:
            d.broken = d.uid in broken_uids
        reviewed.append(item)
    union: dict[str, Dependent] = {}
    for item in reviewed:
        for d in item.dependents:
            union.setdefault(d.uid, d)
    tests = sorted({t for item in reviewed for t in item.tests} | {t.uid for t in rep.tests})
    # the tests reaching a reviewed symbol are indexed; changed ones may not be yet
    runs = RunIds(index.graph)
    by_uid = index.graph.symbols.by_uid
    test_ids = dict(assessed.test_ids)
    to_run = {(t.uid, t.run_id): t for t in rep.tests}
    for uid in tests:
        if uid not in test_ids:
            test_ids[uid] = runs.of_id(by_uid[uid])
    for item in reviewed:
        hits = hits_of.get(id(item), [])
        item_ids = [test_ids[uid] for uid in item.tests]
        for h in hits:
            rid = hit_run_id(runs, index.graph, h.uid, h.run_id)
            item_ids.append(rid)
            test_ids.setdefault(rid.run_id, rid)
            key = (h.uid, rid.run_id)
            if key not in to_run:
                to_run[key] = changes.TestToRun(
                    h.uid, h.file, h.why, rid.run_id, list(h.reasons), h.stale, h.stale_reason
                )
        item.run_ids = runs.select(item_ids)
    for uid in tests:
        key = (uid, test_ids[uid].run_id)
        if not any(k[0] == uid for k in to_run):
            file = index.graph.symbols.file[by_uid[uid]]
            to_run[key] = changes.TestToRun(uid, file, "reaches", test_ids[uid].run_id, ["reaches"])
    untested = [
        item.symbol.uid for item in reviewed if item.tested is False and not item.symbol.is_test
    ]
    summary = {
        **rep.summary,
        "dependents": len(union),
        "tests": len(tests),
        "untested": len(untested),
    }
    result = Review(
        schema=REVIEW_SCHEMA,
        base=base,
        merge_base=mb,
        head=head,
        summary=summary,
        files=rep.files,
        symbols=reviewed,
        dependents=sorted(union.values(), key=lambda d: (d.file, d.line, d.uid)),
        tests=tests,
        untested=untested,
        risk=rep.risk,
        risk_reasons=rep.risk_reasons,
        notes=notes,
        freshness=rep.freshness,
        tests_to_run=sorted(to_run.values(), key=lambda t: (t.file, t.uid, t.run_id)),
        run_ids=runs.select(test_ids.values()),
    )
    _cut(result, limit)
    return result


def _cut(r: Review, limit: int | None) -> None:
    """Cut every list to `limit` items (0 or None: none), the complete lengths beside."""
    for item in r.symbols:
        item.dependents_total, item.tests_total = len(item.dependents), len(item.tests)
    r.symbols_total, r.dependents_total = len(r.symbols), len(r.dependents)
    r.tests_total, r.untested_total = len(r.tests), len(r.untested)
    r.tests_to_run_total = len(r.tests_to_run)
    if not limit:
        return
    for item in r.symbols:
        del item.dependents[limit:]
        del item.tests[limit:]
    for cut in (r.symbols, r.dependents, r.tests, r.untested, r.tests_to_run):
        del cut[limit:]


def _indexed_uid(index, s: changes.ChangedSymbol) -> str | None:
    """The uid the index holds for a changed symbol (the new one at HEAD, else the old one)."""
    if not s.indexed:
        return None
    present = changes.indexed_uids(index, [u for u in (s.uid, s.moved_from) if u])
    return s.uid if s.uid in present else s.moved_from


# ----------------------------------------------------------------------------- markdown


def _code(text: str) -> str:
    return "`" + text.replace("`", "'") + "`"


def _lines(s: changes.ChangedSymbol) -> str:
    r = s.new_range or s.old_range
    return f"{r[0]}-{r[1]}" if r else ""


def _more(total: int, shown: int, what: str = "") -> list[str]:
    """The line under a list cut by `limit`: how much is left out ("N of M")."""
    if total <= shown:
        return []
    of = f" {what}" if what else ""
    return [f"- ... and {total - shown} more{of} ({shown} of {total} shown; --limit 0 lists all)"]


def to_markdown(r: Review, *, limit: int | None = None) -> str:
    """The review as a pull-request comment (`limit`: the tests to run listed, 0 or None:
    all; the other lists are cut by `review`)."""
    s = r.summary
    out = [
        f"### codeimpact review: {_code(r.base)} ({r.merge_base[:10]}) -> {r.head[:10]}",
        "",
        f"**Risk: {r.risk}**"
        + (f" ({'; '.join(r.risk_reasons)})" if r.risk_reasons else "")
        + f" · {s['files']} file(s) · {s['added']} added, {s['modified']} modified, "
        f"{s['deleted']} deleted symbol(s)",
        "",
    ]
    if not r.symbols:
        out.append("No symbols changed.")
    else:
        out += [
            "| change | symbol | lines | dependents to check | tests |",
            "| --- | --- | --- | --- | --- |",
        ]
        for item in r.symbols:
            sym = item.symbol
            change = sym.status + (
                f" (moved from {_code(sym.moved_from)})" if sym.moved_from else ""
            )
            tests = (
                "n/a"
                if item.tested is None
                else (str(item.tests_total) if item.tested else "**none**")
            )
            out.append(
                f"| {change} | {_code(sym.uid)} ({sym.kind}) | {_lines(sym)} "
                f"| {item.dependents_total} | {tests} |"
            )
        out += _more(r.symbols_total, len(r.symbols))
    if r.dependents:
        out += ["", "#### Callers outside the diff to check", ""]
        for item in r.symbols:
            for d in item.dependents:
                where = f"{d.file}:{d.at_line or d.line}"
                broken = " **(broken: it still uses what the change removed)**" if d.broken else ""
                out.append(
                    f"- {_code(d.uid)} ({where}) {d.relation} {_code(item.symbol.uid)}{broken}"
                )
            out += _more(item.dependents_total, len(item.dependents), f"of {item.symbol.uid}")
    if r.run_ids:
        shown = r.run_ids[:limit] if limit else r.run_ids
        out += ["", "#### Tests to run", ""] + [f"- {_code(t)}" for t in shown]
        out += _more(len(r.run_ids), len(shown))
    if r.untested:
        out += ["", "#### Changed symbols no test reaches", ""]
        out += [f"- {_code(u)}" for u in r.untested]
        out += _more(r.untested_total, len(r.untested))
    if r.notes:
        out += ["", "#### Notes", ""] + [f"- {n}" for n in r.notes]
    fresh = r.freshness
    if fresh.fresh is False:
        out += ["", f"_The index is stale: {'; '.join(fresh.reasons)}._"]
    return "\n".join(out) + "\n"
