"""`graph` subcommands for planners and reviewers: detect-changes, provenance, drift, gate,
review. Exit codes as documented in cli.py; drift and gate exit 1 when they fail.
"""

from __future__ import annotations

import sys

import click

from codeimpact import options
from codeimpact.cli import (
    emit_json,
    handle_errors,
    json_option,
    main,
    open_index,
    repo_option,
    require_fresh_option,
    to_jsonable,
)
from codeimpact.cli_query import check_tests_only, more, print_run_ids, table, where
from codeimpact.graph.errors import BadInput, NoIndex
from codeimpact.termout import escaped, plural


def _with_schema(schema: str, obj) -> dict:
    """The JSON of `obj` with the schema key first, as every --json output starts."""
    body = to_jsonable(obj)
    body.pop("schema", None)
    return {"schema": schema, **body}


def _range(r: list[int] | None) -> str:
    return f"{r[0]}-{r[1]}" if r else "-"


# ---------------------------------------------------------------------- detect-changes
@main.command("detect-changes")
@options.of("detect-changes")
@handle_errors
def detect_changes(
    scope, base, depth, min_confidence, limit, if_incomplete, path, as_json, require_fresh,
    tests_only,
):  # fmt: skip
    """Map the git diff of a scope to changed symbols, and give their blast radius."""
    from codeimpact.query.changes import detect_changes as run

    check_tests_only(tests_only, as_json)
    scope = scope or ("compare" if base else "unstaged")
    with open_index(path, require_fresh) as index:
        rep = run(
            index, scope, base, depth=depth, min_confidence=min_confidence, limit=limit,
            if_incomplete=if_incomplete,
        )  # fmt: skip
    if tests_only:
        print_run_ids(rep.run_ids)
        return
    if as_json:
        emit_json(_with_schema("codeimpact.detect-changes/1", rep))
        return
    print_changes(escaped(rep), limit)


def print_changes(rep, limit: int | None) -> None:
    """The text of a detect-changes report: every list one item a line, cut lists "N of M"."""
    s = rep.summary
    against = f" against {rep.base} ({(rep.base_commit or '')[:10]})" if rep.base else ""
    click.echo(
        f"{s['added'] + s['modified'] + s['deleted']} changed symbol(s) in {s['files']} file(s) "
        f"(scope {rep.scope}{against}): {s['added']} added, {s['modified']} modified, "
        f"{s['deleted']} deleted"
    )
    for sym in rep.symbols:
        moved = f"  (from {sym.moved_from})" if sym.moved_from else ""
        click.echo(
            f"  {sym.status:<8}  {sym.kind:<9} {sym.uid}  "
            f"{_range(sym.old_range)} -> {_range(sym.new_range)}{moved}"
        )
    more(rep.symbols_total, len(rep.symbols))
    for f in rep.files:
        if f.notes:
            click.echo(f"  {f.path}: {'; '.join(f.notes)}")
    impact = rep.impact
    reasons = f" ({'; '.join(rep.risk_reasons)})" if rep.risk_reasons else ""
    if impact and impact.counts:
        c = impact.counts
        click.echo(
            f"impact: {c.total} dependent(s), {c.direct} direct, in {c.files} file(s); "
            f"risk {rep.risk}{reasons}"
        )
    else:
        click.echo(f"impact: no indexed dependents; risk {rep.risk}{reasons}")
    if impact and impact.broken:
        click.echo(f"\nbroken ({impact.broken_total}): they still use what the change removed")
        rows = [
            [b.uid, where(b.file, b.at_line or b.line), b.relation, b.of]
            + (["(in the diff)"] if b.in_diff else [""])
            for b in impact.broken
        ]
        click.echo(table(rows))
        more(impact.broken_total, len(impact.broken))
    for group in impact.groups if impact else []:
        click.echo(f"\nd={group.depth} {group.label} ({group.count})")
        click.echo(
            table(
                [
                    [e.kind, e.uid, where(e.file, e.line), e.relation, f"{e.confidence:.2f}"]
                    for e in group.entries
                ]
            )
        )
        more(group.count, len(group.entries))
    if rep.run_ids:
        # what to run, as the runner takes it (each test's entry is in the JSON)
        shown = rep.run_ids[: limit or None]
        click.echo(f"\ntests to run ({len(rep.run_ids)})")
        click.echo(table(_run_rows(shown, rep.tests)))
        more(len(rep.run_ids), len(shown))
    comp = impact.completeness if impact else None
    if comp is not None and comp.status == "lower-bound":
        click.echo(f"completeness: lower-bound{'' if comp.reasons else ' (unresolved calls)'}")
        for reason in comp.reasons:
            click.echo(f"  {reason}")
    fb = rep.fallback
    if fb is not None and fb.applied:
        click.echo(
            f"fallback (--if-incomplete {fb.mode}): {plural(fb.tests_added, 'test file')} "
            "added that import a changed module (why=imports)"
        )
    elif fb is not None:
        click.echo(f"fallback (--if-incomplete {fb.mode}) not needed: {fb.reason}")
    for note in rep.notes:
        click.echo(f"note: {note}")


def _run_rows(run_ids: list[str], tests) -> list[list[str]]:
    """One row a runner id; a test selected only by stale observed coverage says so (its
    code changed since it was seen running it: it may not run it any more)."""
    stale = {t.run_id for t in tests if t.stale} - {t.run_id for t in tests if not t.stale}
    return [
        [r, "(stale: seen running it before the change)"] if r in stale else [r] for r in run_ids
    ]


# ---------------------------------------------------------------------- provenance / drift
@main.command()
@click.argument("paths", nargs=-1, required=True)
@repo_option
@json_option
@require_fresh_option
@handle_errors
def provenance(paths, path, as_json, require_fresh):
    """Record HEAD, the dirty working tree and the symbols of PATHS (repository-relative)."""
    from codeimpact.query.provenance import RECORD_SCHEMA
    from codeimpact.query.provenance import provenance as run

    with open_index(path, require_fresh) as index:
        rec = run(index, list(paths))
    if as_json:
        emit_json(_with_schema(RECORD_SCHEMA, rec))
        return
    rec = escaped(rec)
    click.echo(
        f"HEAD {rec.head or '(no commits)'}; dirty digest {rec.dirty_digest or '-'} "
        f"({len(rec.dirty)} changed or untracked path(s))"
    )
    for p in rec.paths:
        if not p.exists:
            click.echo(f"  {p.path}: missing")
            continue
        click.echo(
            f"  {p.path}: sha256 {p.sha256[:16]}, {len(p.symbols)} symbol(s)"
            + ("" if p.symbols_from in ("index", None) else f" ({p.symbols_from})")
        )
    click.echo("(use --json for the record to store)")


@main.command()
@click.argument("record", type=click.Path(dir_okay=False))
@repo_option
@json_option
@handle_errors
def drift(record, path, as_json):
    """Compare a stored provenance RECORD with now; exit 1 when a referenced path drifted."""
    from codeimpact.query.provenance import DRIFT_SCHEMA, load_record
    from codeimpact.query.provenance import drift as run

    data = load_record(record)
    try:
        index = open_index(path)
    except NoIndex:
        index = None  # drift needs no index: the symbols are extracted
    try:
        rep = run(path, data, index)
    finally:
        if index is not None:
            index.close()
    if as_json:
        emit_json(_with_schema(DRIFT_SCHEMA, rep))
    else:
        rep = escaped(rep)
        head = "moved" if rep.head.moved else "unchanged"
        click.echo(
            f"{'DRIFTED' if rep.drifted else 'no drift'}: {rep.summary['drifted']} of "
            f"{rep.summary['paths']} path(s) changed; HEAD {head}"
        )
        for p in rep.paths:
            if p.status == "unchanged":
                continue
            click.echo(f"  {p.path}: {p.status}")
            for label, items in (
                ("added", p.added),
                ("modified", p.modified),
                ("deleted", p.deleted),
            ):
                for d in items:
                    click.echo(
                        f"    {label:<8}  {d.uid}  {_range(d.old_range)} -> {_range(d.new_range)}"
                    )
        for note in rep.notes:
            click.echo(f"note: {note}")
    if rep.drifted:
        sys.exit(1)


# ---------------------------------------------------------------------- gate
@main.command()
@click.option("--require-fresh", is_flag=True, help="Check that the index is fresh.")
@click.option("--require-clean", is_flag=True, help="Check that the working tree is clean.")
@click.option(
    "--allow",
    "allow",
    multiple=True,
    help="A glob (repository-relative; ** spans folders) the named files must match.",
)
@click.option("--files", "files", multiple=True, help="A file the task will touch.")
@repo_option
@json_option
@handle_errors
def gate(require_fresh, require_clean, allow, files, path, as_json):
    """Cheap pre-checks before a task runs; exit 0 when all pass, 1 when one fails."""
    from codeimpact.query.gate import gate as run

    result = run(
        path,
        require_fresh=require_fresh,
        require_clean=require_clean,
        allow=list(allow),
        files=list(files),
    )
    if as_json:
        emit_json(result.to_dict())
    else:
        shown = escaped(result)
        click.echo("gate: PASS" if shown.passed else f"gate: FAIL: {shown.reason}")
        for c in shown.checks:
            click.echo(f"  [{'ok' if c.passed else 'FAIL'}] {c.name}: {c.detail}")
    if not result.passed:
        sys.exit(1)


# ---------------------------------------------------------------------- review
@main.command()
@options.of("review")
@handle_errors
def review(base, fmt, depth, limit, path, as_json, require_fresh, tests_only):
    """The branch's changes since its merge base: symbols, callers to check, tests, gaps."""
    from codeimpact.query.review import REVIEW_SCHEMA, to_markdown
    from codeimpact.query.review import review as run

    if as_json and fmt == "markdown":
        raise BadInput("choose one of --json and --format markdown")
    if tests_only and fmt == "markdown":
        raise BadInput("choose one of --tests-only and --format markdown")
    check_tests_only(tests_only, as_json)
    with open_index(path, require_fresh) as index:
        rep = run(index, base, depth=depth, limit=limit)
    if tests_only:
        print_run_ids(rep.run_ids)
        return
    if as_json:
        emit_json(_with_schema(REVIEW_SCHEMA, rep))
        return
    rep = escaped(rep)
    if fmt == "markdown":
        click.echo(to_markdown(rep, limit=limit), nl=False)
        return
    s = rep.summary
    click.echo(
        f"review of {rep.head[:10]} against {rep.base} (merge base {rep.merge_base[:10]}): "
        f"{s['added']} added, {s['modified']} modified, {s['deleted']} deleted; risk {rep.risk}"
    )
    for item in rep.symbols:
        sym = item.symbol
        tests = "?" if item.tested is None else str(item.tests_total)
        click.echo(
            f"  {sym.status:<8}  {sym.uid}  dependents {item.dependents_total}, tests {tests}"
        )
        for d in item.dependents:
            what = "broken" if d.broken else "check"  # broken: it still uses what was removed
            click.echo(f"      {what} {d.uid} ({d.file}:{d.at_line or d.line}, {d.relation})")
        more(item.dependents_total, len(item.dependents), "      ")
    more(rep.symbols_total, len(rep.symbols))
    # one item a line: a branch can reach hundreds of tests
    if rep.untested:
        click.echo(f"untested ({rep.untested_total})")
        click.echo(table([[uid] for uid in rep.untested]))
        more(rep.untested_total, len(rep.untested))
    if rep.run_ids:
        shown = rep.run_ids[: limit or None]
        click.echo(f"tests to run ({len(rep.run_ids)})")
        click.echo(table(_run_rows(shown, rep.tests_to_run)))
        more(len(rep.run_ids), len(shown))
    for note in rep.notes:
        click.echo(f"note: {note}")
