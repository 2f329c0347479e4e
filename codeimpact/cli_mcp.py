"""`graph mcp` (serve the tools to agents over MCP) and `graph view` (an HTML impact page)."""

from __future__ import annotations

from pathlib import Path

import click

from codeimpact.cli import handle_errors, main, open_index, repo_option, require_fresh_option
from codeimpact.graph.errors import BadInput


@main.command("mcp")
@click.argument("path", default=".", type=click.Path(file_okay=True, dir_okay=True))
@click.option("--http", is_flag=True, help="Serve streamable HTTP on 127.0.0.1 instead of stdio.")
@click.option(
    "--port",
    type=click.IntRange(1, 65535),
    default=8765,
    show_default=True,
    help="The HTTP port (with --http).",
)
@handle_errors
def mcp_command(path, http, port):
    """Serve the index of PATH to agents over the Model Context Protocol (stdio by default).

    Tools: status, search, context, impact, deps, blast_radius, detect_changes, trace,
    review, cypher (all read-only). The server reopens the index when `graph analyze`
    publishes a new one.
    """
    from codeimpact import mcp as server

    repo = server.check_repo(path)
    if http:
        server.serve_http(repo, port)
    else:
        server.serve_stdio(repo)


@main.command()
@click.argument("target")
@click.option(
    "--out",
    type=click.Path(dir_okay=False, writable=True),
    default="codeimpact-view.html",
    show_default=True,
    help="The HTML file to write.",
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
    """Write a self-contained HTML page with an interactive graph of TARGET's impact.

    No network needed to open it: pan, zoom, click a node for details, filter by
    direction, depth and relation.
    """
    from codeimpact import termout
    from codeimpact.cli_query import explain_ambiguity
    from codeimpact.view import to_html, view_data

    with open_index(path, require_fresh) as index, explain_ambiguity(False):
        data = view_data(index, target, depth, relation, min_confidence, include_tests)
    dest = Path(out)
    try:
        dest.write_text(to_html(data), encoding="utf-8")
    except OSError as e:
        raise BadInput(f"cannot write {out}: {e.strerror or e}") from None
    click.echo(
        termout.escape(
            f"wrote {termout.relpath(dest, Path.cwd())}: "
            f"{termout.plural(len(data.nodes), 'node')}, {termout.plural(len(data.edges), 'edge')}"
            + (f" ({'; '.join(data.notes)})" if data.notes else "")
        )
    )
