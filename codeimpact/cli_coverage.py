"""`graph coverage import|status|clear`: observed test -> function links from coverage.py."""

from __future__ import annotations

import click

from codeimpact.cli import emit_json, handle_errors, json_option, main, open_index, repo_option
from codeimpact.termout import escape, escaped, plural

SHOWN = 10  # skipped or stale files named in the text output (the JSON lists every one)


@main.group()
def coverage() -> None:
    """Observed coverage: which tests ran which functions (coverage.py per-test contexts)."""


@coverage.command("import")
@click.argument("data_file", required=False, type=click.Path(dir_okay=True))
@repo_option
@json_option
@click.option(
    "--recorded-root",
    default=None,
    help="Where the repository was when the tests ran (a CI checkout), if elsewhere.",
)
@click.option(
    "--commit",
    "commit",
    default=None,
    metavar="REV",
    help="The commit the tests ran at, when this checkout differs: lines are mapped on the "
    "files as they were there, and links into files changed since are stale.",
)
@click.option(
    "--wait",
    "lock_wait",
    type=float,
    default=0.0,
    help="Seconds to wait for a running analyze's lock.",
)
@handle_errors
def import_(data_file, path, as_json, recorded_root, commit, lock_wait):
    """Record the test -> function links of coverage.py DATA_FILE (default: .coverage in the
    repository), recorded with per-test contexts: `pytest --cov=PKG --cov-context=test`, or
    `coverage run -m pytest` with `dynamic_context = test_function` in coverage.py's
    configuration. Run `graph analyze` first, in the checkout the tests ran in.

    Replaces the links of an earlier import. Exit 2 when DATA_FILE is missing, is not
    coverage data, records no per-test contexts (static labels only) or names no test of
    the index; exit 5 while an analyze holds the lock."""
    from codeimpact.indexer.coverage_import import import_coverage

    report = import_coverage(
        path, data_file, recorded_root=recorded_root, commit=commit, lock_wait=lock_wait
    )
    if as_json:
        emit_json(report)
        return
    report = escaped(report)
    click.echo(escape(report.summary()))
    if report.unmatched_sample:
        shown = ", ".join(report.unmatched_sample[:3])
        click.echo(
            f"  {plural(report.unmatched_contexts, 'context')} matched no test of the index "
            f"(e.g. {shown})"
        )
    _files("lines not used", [(f.path, f.reason) for f in report.skipped_files])
    for note in report.notes:
        click.echo(f"  note: {note}")


def _files(title: str, rows: list[tuple[str, str]]) -> None:
    if not rows:
        return
    click.echo(f"  {title}: {plural(len(rows), 'file')}")
    for p, reason in rows[:SHOWN]:
        click.echo(f"    {reason}" if reason.startswith(p + " ") else f"    {p}: {reason}")
    if len(rows) > SHOWN:
        click.echo(f"    ... and {len(rows) - SHOWN} more")


@coverage.command("status")
@repo_option
@json_option
@handle_errors
def status(path, as_json):
    """What observed coverage the index holds, and which of its links are stale now."""
    from codeimpact.query.observed import coverage_status

    with open_index(path) as index:
        st = coverage_status(index)
    if as_json:
        emit_json(st)
        return
    st = escaped(st)
    if not st.imported:
        click.echo(
            "no observed coverage: run pytest with --cov=PKG --cov-context=test, "
            "then `graph coverage import`"
        )
        return
    click.echo(
        f"observed at {(st.commit or 'no commit')[:12]} ({st.context_kind} contexts, "
        f"imported {st.imported_at}): {plural(st.tests, 'test')}, "
        f"{plural(st.functions, 'function')}, {plural(st.links, 'link')}"
    )
    if st.tests_gone or st.functions_gone:
        click.echo(
            f"  no longer in the index: {plural(st.tests_gone, 'test')}, "
            f"{plural(st.functions_gone, 'function')} (their links are not used)"
        )
    if st.stale_links:
        click.echo(f"  stale: {plural(st.stale_links, 'link')}")
    _files("changed since the observation", [(f["path"], f["reason"]) for f in st.stale_files])
    _files("lines not used at import", [(f["path"], f["reason"]) for f in st.skipped_files])


@coverage.command("clear")
@repo_option
@handle_errors
def clear(path):
    """Forget the observed coverage (the graph is left as it is)."""
    from codeimpact.graph import layout
    from codeimpact.graph.observed import remove_observed
    from codeimpact.indexer.pipeline import check_repo

    repo = check_repo(path)
    idx = layout.index_dir(repo)
    if not idx.is_dir():
        click.echo(f"no index at {escape(str(repo))}")
        return
    with layout.writer_lock(idx):
        removed = remove_observed(idx)
    click.echo("observed coverage removed" if removed else "no observed coverage to remove")
