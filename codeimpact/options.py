"""The parameters of the question commands, declared once.

The CLI puts them on its commands (`@options.of("impact")`) and the tool table
(`tools`) reads them for the MCP input schemas (`options.params("impact")`), so the
two cannot drift apart and neither has to import the other. Only click lives here.
"""

from __future__ import annotations

from collections.abc import Callable

import click

Decorator = Callable[[Callable], Callable]

# ---------------------------------------------------------------------- shared
# The options every query command takes; use all three on a new command.
repo = click.option("--repo", "path", default=".", help="The indexed repository (default: .).")
as_json = click.option("--json", "as_json", is_flag=True, help="Print JSON (documented shape).")
require_fresh = click.option(
    "--require-fresh",
    is_flag=True,
    help="Fail with exit 1 instead of answering from a stale index.",
)
# A diagram of the result instead of the text (impact, trace, context).
diagram_format = click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "mermaid", "dot"]),
    default="text",
    show_default=True,
    help="mermaid or dot: print a diagram of the result (GitHub Markdown / Graphviz).",
)

DEFAULT_CLI_LIMIT = 20  # rows per list in tables and JSON; counts are always complete
limit = click.option(
    "--limit",
    type=int,
    default=DEFAULT_CLI_LIMIT,
    show_default=True,
    help="Items listed per group (counts stay complete); 0 lists everything.",
)
relation = click.option(
    "--relation", default=None, help="Comma-separated relations (default: all five)."
)
min_confidence = click.option("--min-confidence", type=float, default=0.0, show_default=True)

# The filters impact and blast-radius share.
traversal: list[Decorator] = [
    click.option(
        "--direction",
        default="upstream",
        show_default=True,
        help="upstream: what depends on the target; downstream: what it depends on.",
    ),
    click.option("--depth", type=int, default=3, show_default=True, help="Max hops."),
    click.option(
        "--relation",
        default=None,
        help="Comma-separated relations to follow "
        "(default: CALLS,IMPORTS,EXTENDS,IMPLEMENTS,REFERENCES).",
    ),
    click.option(
        "--min-confidence",
        type=float,
        default=0.0,
        show_default=True,
        help="Ignore edges resolved with a lower confidence.",
    ),
    click.option("--include-tests", is_flag=True, help="List test code among the dependents."),
]
query_common: list[Decorator] = [repo, as_json, require_fresh]
# The tests to run alone, as their runner's ids (blast-radius, detect-changes, review).
tests_only = click.option(
    "--tests-only",
    is_flag=True,
    help="Print only the tests to run, one runnable id a line (pytest `path::Class::test`, "
    "...), each once, sorted; nothing when no test is reached. --limit does not cut it.",
)

# ---------------------------------------------------------------------- per command
COMMANDS: dict[str, list[Decorator]] = {
    "status": [
        click.argument("path", default=".", type=click.Path(file_okay=True, dir_okay=True)),
        click.option(
            "--check",
            is_flag=True,
            help="Exit 0 if fresh, 1 if stale (reasons on stderr), 2 if there is no readable "
            "index.",
        ),
        as_json,
    ],
    "search": [
        click.argument("name"),
        click.option(
            "--kind", default=None, help="Only symbols of this kind (function, class, method, ...)."
        ),
        click.option(
            "--limit",
            default=50,
            show_default=True,
            help="Symbols listed (the count stays complete); 0 lists everything.",
        ),
        *query_common,
    ],
    "cypher": [
        click.argument("query"),
        click.option(
            "--param",
            "params",
            multiple=True,
            help="A query parameter, name=value (JSON values are parsed).",
        ),
        click.option(
            "--limit",
            type=int,
            default=10_000,
            show_default=True,
            help="Rows returned at most; 0 returns every row (the MCP server caps at "
            "10,000 rows and 1 MB whatever is asked).",
        ),
        click.option(
            "--timeout",
            type=float,
            default=30.0,
            show_default=True,
            help="Seconds the query may run; 0 for no limit (the MCP server allows 60 at most).",
        ),
        *query_common,
    ],
    "impact": [
        click.argument("target"),
        *traversal,
        limit,
        *query_common,
        diagram_format,
    ],
    "blast-radius": [
        click.argument("targets", nargs=-1, required=True),
        *traversal,
        limit,
        *query_common,
        tests_only,
    ],
    "deps": [click.argument("target"), relation, min_confidence, limit, *query_common],
    "context": [click.argument("target"), limit, *query_common, diagram_format],
    "trace": [
        click.argument("source", metavar="FROM"),
        click.argument("target", metavar="TO"),
        relation,
        min_confidence,
        *query_common,
        diagram_format,
    ],
    "detect-changes": [
        click.option(
            "--scope",
            type=click.Choice(["unstaged", "staged", "all", "compare"]),
            default=None,
            help="unstaged: working tree vs git's index (+ untracked; the default); staged: "
            "index vs HEAD; all: working tree vs HEAD (+ untracked); compare: --base REF's "
            "merge base vs the working tree (the default when --base is given).",
        ),
        click.option("--base", default=None, help="The REF to compare with (--scope compare)."),
        click.option("--depth", default=3, show_default=True, help="Blast radius depth."),
        click.option("--min-confidence", default=0.0, show_default=True, type=float),
        click.option(
            "--limit",
            default=50,
            show_default=True,
            help="Items listed per list: changed symbols, dependents per depth group, broken "
            "dependents, tests (0: all); counts are always complete.",
        ),
        click.option(
            "--if-incomplete",
            type=click.Choice(["keep", "importers"]),
            default="keep",
            show_default=True,
            help="When the tests to run may miss some (completeness lower-bound): keep the "
            "graph's selection, or add the tests of the test files that import a changed "
            "module, directly or through other modules or a conftest.py above them (each "
            "marked why=imports): more tests, fewer missed.",
        ),
        *query_common,
        tests_only,
    ],
    "review": [
        click.option(
            "--base",
            default=None,
            help="The branch to review against (default: origin's HEAD, main or master).",
        ),
        click.option(
            "--format",
            "fmt",
            type=click.Choice(["text", "markdown"]),
            default="text",
            show_default=True,
            help="markdown: a pull-request comment.",
        ),
        click.option(
            "--depth", default=3, show_default=True, help="Blast radius depth for the risk."
        ),
        click.option(
            "--limit",
            default=50,
            show_default=True,
            help="Items listed per list: changed symbols, each one's dependents and tests, "
            "untested symbols, tests to run (0: all); counts are always complete.",
        ),
        *query_common,
        tests_only,
    ],
}


def of(command: str) -> Decorator:
    """The decorator that gives a CLI command its declared parameters, in order."""

    def apply(fn: Callable) -> Callable:
        for decorate in reversed(COMMANDS[command]):
            fn = decorate(fn)
        return fn

    return apply


def params(command: str) -> list[click.Parameter]:
    """The command's parameters as click objects, in the order `--help` lists them."""

    def holder() -> None:
        pass

    of(command)(holder)
    return list(reversed(holder.__click_params__))  # click collects them last first
