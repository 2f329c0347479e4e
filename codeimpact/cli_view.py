"""`graph view`: an HTML page with an interactive graph of a symbol's impact."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import click

from codeimpact.cli import handle_errors, main, open_index, repo_option, require_fresh_option
from codeimpact.graph.errors import BadInput


@main.command()
@click.argument("target")
@click.option(
    "--output",
    "--out",
    "out",
    type=click.Path(dir_okay=False, writable=True),
    default=None,
    help="The HTML file to write (default: a new file in the temporary folder).",
)
@click.option("--depth", type=int, default=3, show_default=True, help="Max hops each way.")
@click.option(
    "--relation",
    default=None,
    help="Comma-separated relations to follow (default: CALLS,IMPORTS,EXTENDS,IMPLEMENTS,"
    "REFERENCES).",
)
@click.option(
    "--min-confidence",
    type=float,
    default=0.0,
    show_default=True,
    help="Ignore edges resolved with a lower confidence.",
)
@click.option(
    "--tests/--no-tests", "include_tests", default=True, help="Draw test code (default: yes)."
)
@repo_option
@require_fresh_option
@handle_errors
def view(target, out, depth, relation, min_confidence, include_tests, path, require_fresh):
    """Write a self-contained HTML page with an interactive graph of TARGET's impact, and
    print where it is (a new file in the temporary folder unless --output names one; never
    inside the repository unless you name it there).

    No network needed to open it: pan, zoom, click a node for details, filter by
    direction, depth and relation.
    """
    from codeimpact import termout
    from codeimpact.cli_query import explain_ambiguity
    from codeimpact.view import to_html, view_data

    with open_index(path, require_fresh) as index, explain_ambiguity(False):
        data = view_data(index, target, depth, relation, min_confidence, include_tests)
    page = to_html(data)
    dest = _write(Path(out), page) if out else _write_temporary(page)
    click.echo(
        termout.escape(
            f"wrote {dest}: "
            f"{termout.plural(len(data.nodes), 'node')}, {termout.plural(len(data.edges), 'edge')}"
            + (f" ({'; '.join(data.notes)})" if data.notes else "")
        )
    )


def _write(dest: Path, page: str) -> Path:
    try:
        dest.write_text(page, encoding="utf-8")
    except OSError as e:
        raise BadInput(f"cannot write {dest}: {e.strerror or e}") from None
    return dest.resolve()


def _write_temporary(page: str) -> Path:
    """A new file of its own in the temporary folder (readable by this user only)."""
    try:
        fd, name = tempfile.mkstemp(prefix="codeimpact-view-", suffix=".html")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(page)
    except OSError as e:
        where = tempfile.gettempdir()
        raise BadInput(f"cannot write the page to {where}: {e.strerror or e}") from None
    return Path(name)
