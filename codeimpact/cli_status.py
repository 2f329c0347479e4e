"""`graph status` (is the index fresh, and if not, why) and `graph clean` (remove it)."""

from __future__ import annotations

import sys

import click

from codeimpact import options
from codeimpact.cli import emit_json, handle_errors, main, open_index
from codeimpact.graph.layout import check_repo
from codeimpact.termout import escape, escaped


@main.command()
@options.of("status")
@handle_errors
def status(path, check, as_json):
    """Say whether the index of PATH still describes it, and if not, why.

    A damaged index (a file that differs from its checksum) exits 1 however it is asked."""
    from codeimpact.graph.manifest import Damaged
    from codeimpact.query.status import collect, damaged_status

    repo = check_repo(path)
    try:
        with open_index(str(repo)) as index:
            st = collect(index, exact=True)
    except Damaged as e:  # its database must not be opened: all that is known is the damage
        st = damaged_status(repo, e)
    if as_json:
        emit_json(st)
    text = escaped(st)  # names from the repository, for the terminal
    if not as_json and not check:
        _print_status(text)
    if check and not st.fresh:
        for reason in text.reasons:
            click.echo(f"graph: stale: {reason}", err=True)
        sys.exit(1)
    if st.damaged:
        sys.exit(1)


def _extraction_line(extraction: dict) -> str:
    """Which path extracts facts in this process (the native one, or why not)."""
    if extraction.get("native"):
        return "native"
    return f"pure Python ({extraction.get('reason') or 'native path off'})"


def _print_status(st) -> None:
    if st.damaged and st.schema_version.indexed is None:  # the database was not opened
        click.echo(f"{'index:':<8} generation {st.generation}, damaged")
        click.echo(f"{'fresh:':<8} no")
        click.echo("stale because:")
        for reason in st.reasons:
            click.echo(f"  - {reason}")
        return
    rows = [
        ("index", f"generation {st.generation}, written {st.indexed_at or 'at an unknown time'}"),
        ("fresh", "yes" if st.fresh else "no"),
        (
            "schema",
            f"version {st.schema_version.indexed}"
            + (
                " (current)"
                if st.schema_version.ok
                else f" (this codeimpact reads {st.schema_version.current})"
            ),
        ),
        ("identity", "current" if st.identity.current else _identity_line(st.identity.changed)),
        ("commit", _commit_line(st.commit)),
        ("drift", _drift_line(st.drift)),
        ("incomplete", _incomplete_line(st.incomplete)),
        ("extraction", _extraction_line(st.extraction)),
    ]
    if st.damaged:
        rows.append(("damaged", "; ".join(f"{d['file']} ({d['detail']})" for d in st.damaged)))
    if st.analyzing:
        rows.append(("analyzing", f"pid {st.analyzing['pid']} since {st.analyzing['since']}"))
    width = max(len(k) for k, _ in rows) + 1
    for key, value in rows:
        click.echo(f"{key + ':':<{width}} {value}")
    if st.reasons:
        click.echo("stale because:")
        for reason in st.reasons:
            click.echo(f"  - {reason}")


def _identity_line(changed: list[dict]) -> str:
    if not changed:
        return "changed"
    return "changed: " + ", ".join(
        f"{c['component']} {c['indexed']} -> {c['current']}" for c in changed
    )


def _commit_line(c) -> str:
    if not c.git:
        return "not a git work tree" + (f" (indexed at {c.indexed[:12]})" if c.indexed else "")
    where = f"branch {c.branch}" if c.branch else "detached HEAD" if c.detached else "no branch"
    if c.shallow:
        where += ", shallow clone"
    head = c.head[:12] if c.head else "no commit yet"
    if c.indexed == c.head:
        return f"{head} = HEAD ({where})"
    indexed = c.indexed[:12] if c.indexed else "no commit"
    if c.behind is None:
        distance = "distance unknown"
    else:
        distance = f"{c.behind} behind" + (f", {c.ahead} ahead" if c.ahead else "")
    return f"indexed {indexed}, HEAD {head} ({distance}; {where})"


def _drift_line(d) -> str:
    if not d.known:
        return "not measured"
    if not (d.changed or d.added or d.deleted):
        return "none"
    return f"{len(d.changed)} changed, {len(d.added)} added, {len(d.deleted)} deleted"


def _incomplete_line(records: list[dict]) -> str:
    if not records:
        return "none"
    shown = "; ".join(f"{r['code']} {r['path']}".strip() for r in records[:5])
    return f"{len(records)} ({shown}{'; ...' if len(records) > 5 else ''})"


@main.command()
@click.argument("path", default=".", type=click.Path(file_okay=True, dir_okay=True))
@handle_errors
def clean(path):
    """Remove the index of PATH (its .codeimpact/ folder)."""
    from codeimpact.graph import layout

    repo = check_repo(path)
    if layout.remove_index(repo):
        click.echo(f"removed {escape(str(layout.index_dir(repo)))}")
    else:
        click.echo(f"no index at {escape(str(repo))}")
