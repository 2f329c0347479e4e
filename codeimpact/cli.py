"""The `graph` command line: a thin layer over the Python API.

Exit codes (documented in the README): 0 success; 1 a check failed (stale
index, drift, gate); 2 bad input, no index or an unreadable index; 3 an
ambiguous target (candidates printed); 4 target not found; 5 the index is
locked by another analyze; 70 an internal error (a bug: please report it).
"""

from __future__ import annotations

import importlib
import json
import sys
from typing import Any

import click

from codeimpact import analyze_command, options
from codeimpact.graph.errors import BadInput
from codeimpact.present import (
    cypher_result,
    handle_errors,
    json_text,
    search_result,
    to_jsonable,
)
from codeimpact.termout import escape


def emit_json(obj: Any) -> None:
    click.echo(json_text(to_jsonable(obj)))


# command -> the module defining it (`codeimpact.cli_*`), which attaches it to `main` when
# imported: a run imports the module of its own command only (`analyze` and the two below
# are defined here), not the other seven with what they import
LAZY_COMMANDS = {
    **dict.fromkeys(("impact", "blast-radius", "deps", "context", "trace", "cycles"), "cli_query"),
    **dict.fromkeys(("detect-changes", "provenance", "drift", "gate", "review"), "cli_changes"),
    "coverage": "cli_coverage",
    "mcp": "cli_mcp",
    "list": "cli_registry",
    "forget": "cli_registry",
    "status": "cli_status",
    "clean": "cli_status",
    "view": "cli_view",
}


class _LazyGroup(click.Group):
    """The top group: a command's module is imported when the command is looked up."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *LAZY_COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in LAZY_COMMANDS:
            importlib.import_module(f"codeimpact.{LAZY_COMMANDS[cmd_name]}")
        return self.commands.get(cmd_name)


def all_commands() -> dict[str, click.Command]:
    """Every command of `main` by name, their modules imported (what help lists)."""
    return {name: main.get_command(None, name) for name in main.list_commands(None)}


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="codeimpact")
def main() -> None:
    """codeimpact: index a repository into a code graph and ask what a change breaks."""


# ---------------------------------------------------------------------- analyze
def _analyze_command() -> click.Command:
    """`analyze` as a click command, from the parameters declared in `analyze_command`
    (which the console script reads without click: `codeimpact.console`)."""

    def command(**values: Any) -> None:
        analyze_command.analyze(**values)

    command.__doc__ = analyze_command.analyze.__doc__
    for p in reversed(analyze_command.PARAMS):  # as decorators would, the last one first
        if p.kind is bool:
            command = click.option(p.flag, p.dest, is_flag=True, help=p.help)(command)
        else:
            command = click.option(p.flag, p.dest, type=p.kind, default=p.default,
                                   show_default=p.show_default, help=p.help)(command)  # fmt: skip
    path = click.argument("path", default=".", type=click.Path(file_okay=True, dir_okay=True))
    return main.command("analyze")(path(command))


analyze = _analyze_command()


# ---------------------------------------------------------------------- lookups
def open_index(path: str, require_fresh: bool = False):
    """The index every query command reads (exit 1 with --require-fresh on a stale one)."""
    from codeimpact.query.index import Index

    return Index.open(path, require_fresh=require_fresh)


# The options every query command takes (declared in `options`); use all three on a new one.
repo_option = options.repo
json_option = options.as_json
require_fresh_option = options.require_fresh
format_option = options.diagram_format  # a diagram of the result instead of the text


def emit_diagram(fmt: str, result, as_json: bool) -> None:
    if as_json:
        raise BadInput("choose one of --json and --format mermaid|dot")
    from codeimpact.render import render
    from codeimpact.termout import escaped

    click.echo(render(fmt, escaped(result)), nl=False)


def _parse_param(raw: str) -> tuple[str, Any]:
    if "=" not in raw:
        raise click.BadParameter(f"expected name=value, got {raw!r}")
    name, value = raw.split("=", 1)
    try:
        parsed = json.loads(value)
    except ValueError:
        parsed = value
    return name, parsed


@main.command()
@options.of("cypher")
@handle_errors
def cypher(query, params, limit, timeout, path, as_json, require_fresh):
    """Run one read-only Cypher QUERY against the index (reading clauses only)."""
    with open_index(path, require_fresh) as index:
        found = cypher_result(
            index,
            query,
            dict(_parse_param(p) for p in params),
            as_json,
            limit=limit,
            timeout=timeout,
        )
    if as_json:
        emit_json(found)
        return
    result = found["result"]
    click.echo("\t".join(escape(c) for c in result.columns))
    for row in result.rows:
        click.echo("\t".join("" if v is None else escape(str(v)) for v in row))
    if result.truncated:
        of = f" of {result.total}" if result.total is not None else ""
        click.echo(
            f"graph: showing {len(result.rows)}{of} rows (--limit N for more, 0 for all)",
            err=True,
        )


@main.command()
@options.of("search")
@handle_errors
def search(name, kind, limit, path, as_json, require_fresh):
    """Find symbols by name or qualified-name substring."""
    from codeimpact import termout

    with open_index(path, require_fresh) as index:
        found = search_result(index, name, kind, limit, with_freshness=as_json)
    if as_json:
        emit_json(found)
        return
    hits, total = termout.escaped(found["results"]), found["total"]
    if not hits:
        click.echo("no symbols match")
        return
    style = termout.Style.for_stream(sys.stdout)
    click.echo(
        f"{termout.plural(total, 'symbol')} match{'es' if total == 1 else ''} "
        f"{termout.escape(repr(name))}"
    )
    rows = [[h.kind, h.qualified_name, termout.location(h.file, h.start_line)] for h in hits]
    click.echo(termout.table(rows, colours=[style.dim, style.bold, None]))
    more = termout.more_line(total - len(hits))
    if more:
        click.echo(more)


if __name__ == "__main__":
    from codeimpact.console import run

    run()
