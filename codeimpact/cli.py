"""The `graph` command line: a thin layer over the Python API.

Exit codes (documented in the README): 0 success; 1 a check failed (stale
index, drift, gate); 2 bad input, no index or an unreadable index; 3 an
ambiguous target (candidates printed); 4 target not found; 5 the index is
locked by another analyze; 70 an internal error (a bug: please report it).
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import json
import os
import sys
from pathlib import Path
from typing import Any

import click

from codeimpact import options
from codeimpact.graph import QUIET_BLAS
from codeimpact.graph.errors import BadInput, CodeImpactError
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
@main.command()
@click.argument("path", default=".", type=click.Path(file_okay=True, dir_okay=True))
@click.option("--index-only", is_flag=True, help="Build or update the index and nothing else.")
@click.option("--force", is_flag=True, help="Rebuild from scratch, ignoring the facts cache.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@click.option(
    "--workers",
    type=int,
    default=0,
    help="Extraction and resolution processes (default: one per core).",
)
@click.option(
    "--max-file-size",
    type=int,
    default=None,
    help="Skip files larger than this many bytes (default 16 MiB).",
)
@click.option(
    "--buffer-pool-mb",
    type=int,
    default=512,
    show_default=True,
    help="Kùzu buffer pool for the write.",
)
@click.option(
    "--memory-budget-mb",
    type=int,
    default=3072,
    show_default=True,
    help="Resolve in worker processes only while their memory would fit in this.",
)
@click.option(
    "--wait",
    "lock_wait",
    type=float,
    default=0.0,
    help="Seconds to wait for another analyze's lock.",
)
@click.option(
    "--watch", is_flag=True, help="Stay running; re-index as files change (Ctrl-C stops)."
)
@handle_errors
def analyze(
    path,
    index_only,
    force,
    as_json,
    workers,
    max_file_size,
    buffer_pool_mb,
    memory_budget_mb,
    lock_wait,
    watch,
):
    """Index PATH (default: the current directory) into PATH/.codeimpact/, and record it in
    the user's registry (`graph list`) unless --index-only."""
    from codeimpact.indexer.config import DEFAULT_MAX_FILE_SIZE, IndexConfig, RunOptions
    from codeimpact.indexer.pipeline import analyze as run

    config = IndexConfig(max_file_size=max_file_size or DEFAULT_MAX_FILE_SIZE)
    show_progress = not as_json and sys.stderr.isatty()
    options = RunOptions(
        force=force,
        workers=workers,
        buffer_pool=buffer_pool_mb * 1024 * 1024,
        memory_budget_mb=memory_budget_mb,
        progress=show_progress,
        lock_wait=lock_wait,
    )
    if watch:
        from codeimpact.indexer.pipeline import check_repo
        from codeimpact.indexer.watch import watch as watch_loop

        options.progress = False
        repo = check_repo(path)
        registered = index_only  # once, after the first analyze

        def echo(line: str) -> None:
            nonlocal registered
            click.echo(escape(line))
            if not registered:
                registered = True
                _register(repo)

        watch_loop(repo, config, options, echo=echo)
        return
    bar = _ProgressBar() if show_progress else None
    try:
        report = run(path, config, options, progress=bar.update if bar else None)
    finally:
        if bar:
            bar.close()
    if not index_only:
        _register(report=report)
    for line in report.notes:
        click.echo(f"graph: note: {line}", err=True)
    if as_json:
        emit_json({"schema": "codeimpact.analyze/1", **to_jsonable(report)})
    else:
        click.echo(escape(report.summary()))


def _register(repo: Path | None = None, report=None) -> None:
    """Record the repository in the user's registry (`graph list`): from the run's report
    when there is one, else from its index; a registry that cannot be written is said in
    one line and does not fail the analyze, whose index is written."""
    from codeimpact.registry import record_repo, record_run

    try:
        record_run(report) if report is not None else record_repo(repo)
    except CodeImpactError as e:
        click.echo(f"graph: warning: not registered: {escape(str(e).splitlines()[0])}", err=True)


class _ProgressBar:
    """One bar per phase (extract, resolve): a new phase closes the bar of the last."""

    def __init__(self):
        self.bar = None
        self.phase = None

    def update(self, phase: str, done: int, total: int) -> None:
        if self.bar is None or phase != self.phase:
            self.close()
            self.bar = click.progressbar(length=total, label=phase, file=sys.stderr)
            self.bar.__enter__()
            self.phase = phase
        self.bar.update(done - self.bar.pos)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
            self.bar = None


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


def run() -> None:
    """The `graph` console script: `main` (OpenBLAS on one thread, the cyclic collector run
    less often), then an exit that skips the interpreter's teardown.

    Everything a command writes is closed by the time `main` returns, so freeing every
    module and object one by one (0.04-0.07 s after a full build of Django) buys nothing.
    Only the console script does this: `main` itself stays an ordinary click command, for
    callers in this process (tests, the API).
    """
    # numpy's OpenBLAS on one thread (graph/__init__.py QUIET_BLAS): a thread per core spins
    # ~0.1 s of CPU at its import, taken from the extraction workers
    for name, value in QUIET_BLAS.items():
        os.environ.setdefault(name, value)
    # A query loads tens of thousands of acyclic strings and lists (the symbol table) after
    # importing its modules; collecting every 700 allocations walked them again and again:
    # 8% of `graph impact` on Django (median of 8: 0.58 -> 0.53 s). Cycles are still found.
    gc.set_threshold(50_000, 20, 20)
    code: int | str | None = 0
    try:
        main()
    except SystemExit as e:
        code = e.code
    if not isinstance(code, int):
        if code is not None:
            click.echo(code, err=True)  # what sys.exit(message) would have printed
        code = 0 if code is None else 1
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe (`graph ... | head`)
            stream.flush()
    os._exit(code)


if __name__ == "__main__":
    run()
