"""`graph` subcommands: impact, blast-radius, deps, context, trace, cycles.

Each is a thin layer over the `Index` method of the same name: parse options, call,
print a compact table (counts before lists, `--limit` with "and N more") or the
result as JSON (`{"schema": "codeimpact.<command>/1", ..., "freshness": {...}}`).
An ambiguous target prints its candidates (as JSON with --json) and exits 3.
"""

from __future__ import annotations

import contextlib
from dataclasses import replace

import click

from codeimpact import options
from codeimpact.cli import (
    emit_diagram,
    emit_json,
    handle_errors,
    json_option,
    main,
    open_index,
    repo_option,
    require_fresh_option,
    to_jsonable,
)
from codeimpact.graph.errors import AmbiguousTarget, BadInput
from codeimpact.termout import escape, escaped

DEFAULT_CLI_LIMIT = options.DEFAULT_CLI_LIMIT
limit_option = options.limit


def check_tests_only(tests_only: bool, as_json: bool) -> None:
    if tests_only and as_json:
        raise BadInput("choose one of --json and --tests-only")


def print_run_ids(run_ids: list[str]) -> None:
    """One id a line, nothing at all when empty (control characters from a file name are
    shown escaped: raw they could act on the terminal, or split a line in two)."""
    for run_id in run_ids:
        click.echo(escape(run_id))


def emit(command: str, result) -> None:
    emit_json({"schema": f"codeimpact.{command}/1", **to_jsonable(result)})


@contextlib.contextmanager
def explain_ambiguity(as_json: bool, limit: int | None = DEFAULT_CLI_LIMIT):
    """Print the candidates of an AmbiguousTarget, then let handle_errors exit 3."""
    try:
        yield
    except AmbiguousTarget as e:
        if as_json:
            emit_json(
                {"schema": "codeimpact.ambiguous/1", "error": str(e), "candidates": e.candidates}
            )
        else:
            shown = escaped(e.candidates[: limit or None])
            click.echo(f"{len(e.candidates)} candidates:")
            click.echo(
                table(
                    [
                        [c["kind"], c["uid"], f"{c['file']}:{c['line']}" if c["file"] else ""]
                        for c in shown
                    ]
                )
            )
            more(len(e.candidates), len(shown))
        raise


# ---------------------------------------------------------------------- formatting


def table(rows: list[list[str]], indent: str = "  ") -> str:
    """Rows as left-aligned columns (the last column is not padded)."""
    if not rows:
        return ""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    lines = []
    for r in rows:
        cells = [c.ljust(w) for c, w in zip(r, widths)] + [r[-1]]
        lines.append((indent + "  ".join(cells)).rstrip())
    return "\n".join(lines)


def more(total: int, shown: int, indent: str = "  ") -> None:
    """Under a list cut by --limit: how much is left out ("N of M")."""
    if total > shown:
        click.echo(
            f"{indent}... and {total - shown} more ({shown} of {total} shown; --limit 0 lists all)"
        )


def where(file: str, line: int) -> str:
    return f"{file}:{line}" if file else "(external)"


def short(uid: str) -> str:
    """A uid's local name, or the file for a module (`pkg/a.py::` -> `pkg/a.py`)."""
    path, _, local = uid.partition("::")
    return local or path


def freshness_line(freshness) -> None:
    if freshness.fresh is False:
        click.echo("index is stale: " + "; ".join(freshness.reasons))


def plural(n: int, word: str) -> str:
    if n == 1:
        return f"{n} {word}"
    return f"{n} {word[:-1]}ies" if word.endswith("y") else f"{n} {word}s"


def describe(symbol) -> str:
    """`function pkg.mod.f (pkg/mod.py:12)`; externals have no location."""
    where_ = f" ({symbol.file}:{symbol.line})" if symbol.file else ""
    return f"{symbol.kind} {symbol.qualified_name}{where_}"


def print_impact(result, heading: str) -> None:
    from codeimpact.query.selection import how_selected

    c = result.counts
    click.echo(heading)
    tests_note = "tests listed" if result.include_tests else "tests excluded"
    click.echo(
        f"{result.direction}, depth {result.depth}, {','.join(result.relations)}, "
        f"min confidence {result.min_confidence:g}, {tests_note}"
        + (f", {plural(result.members, 'member')} included" if result.members else "")
    )
    freshness_line(result.freshness)
    noun = "dependent" if result.direction == "upstream" else "dependency"
    click.echo(
        f"risk {result.risk.level}"
        + (": " + "; ".join(result.risk.reasons) if result.risk.reasons else "")
    )
    click.echo(
        f"{plural(c.total, noun)} ({c.direct} direct) in {plural(c.files, 'file')}, "
        f"{plural(c.modules, 'module')}; {plural(c.tests, 'test')} in "
        f"{plural(c.test_files, 'file')} reach it; {c.untested} untested"
    )
    comp = result.completeness
    if comp.status == "lower-bound" and comp.unresolved_sites:
        click.echo(
            f"completeness: lower-bound ({plural(comp.unresolved_sites, 'unresolved call site')}"
            " might add to it)"
        )
    else:
        click.echo(f"completeness: {comp.status}")
    for reason in comp.reasons:
        click.echo(f"  {reason}")
    for group in result.groups:
        click.echo(f"\nd={group.depth} {group.label} ({group.count})")
        rows = []
        for e in group.entries:
            via = " -> ".join(short(u) for u in e.path[1:-1])
            rows.append(
                [
                    e.kind,
                    e.qualified_name,
                    where(e.file, e.line),
                    e.relation,
                    f"{e.confidence:.2f}",
                    f"via {via}" if via else "",
                ]
            )
        click.echo(table(rows))
        more(group.count, len(group.entries))
    if result.files:
        click.echo(f"\nfiles ({c.files})")
        click.echo(table([[f.path, str(f.count)] for f in result.files]))
        more(c.files, len(result.files))
    if result.modules:
        click.echo(f"\nmodules ({c.modules})")
        click.echo(table([[m.path, str(m.count)] for m in result.modules]))
        more(c.modules, len(result.modules))
    click.echo(f"\ntests ({c.tests} in {plural(c.test_files, 'file')})")
    if result.tests:
        click.echo(
            table(
                [
                    [
                        t.run_id or t.qualified_name,  # what the runner takes
                        where(t.file, t.line),
                        how_selected(t.depth, t.reasons, t.stale),
                    ]
                    for t in result.tests
                ]
            )
        )
        more(c.tests, len(result.tests))
    else:
        click.echo("  none reach it")


# ---------------------------------------------------------------------- commands


@main.command()
@options.of("impact")
@handle_errors
def impact(
    target,
    direction,
    depth,
    relation,
    min_confidence,
    include_tests,
    limit,
    path,
    as_json,
    require_fresh,
    fmt,
):
    """What depends on TARGET (or what it depends on), grouped by depth, with a risk level.

    TARGET is a uid, a qualified name, a name, a file path or path:LINE.
    """
    with open_index(path, require_fresh) as index, explain_ambiguity(as_json, limit):
        result = index.impact(
            target, direction, depth, relation, min_confidence, include_tests, limit
        )
    if fmt != "text":
        emit_diagram(fmt, result, as_json)
        return
    if as_json:
        emit("impact", result)
        return
    result = escaped(result)
    print_impact(result, f"impact of {describe(result.target)}")


@main.command("blast-radius")
@options.of("blast-radius")
@handle_errors
def blast_radius(
    targets,
    direction,
    depth,
    relation,
    min_confidence,
    include_tests,
    limit,
    path,
    as_json,
    require_fresh,
    tests_only,
):
    """The union impact of several TARGETS, deduplicated, with the tests to run."""
    check_tests_only(tests_only, as_json)
    with open_index(path, require_fresh) as index, explain_ambiguity(as_json, limit):
        result = index.blast_radius(
            list(targets),
            direction,
            depth,
            relation,
            min_confidence,
            include_tests,
            0 if tests_only else limit,  # every test, whatever --limit says
        )
        if tests_only:
            from codeimpact.query.selection import run_ids_of_hits

            print_run_ids(run_ids_of_hits(index.graph, result.tests))
            return
    if as_json:
        emit("blast-radius", result)
        return
    result = escaped(result)
    names = ", ".join(t.qualified_name for t in result.targets[:5])
    if len(result.targets) > 5:
        names += f", ... ({len(result.targets)} targets)"
    print_impact(result, f"blast radius of {names}")
    if result.test_files:
        click.echo(f"\ntest files to run ({len(result.test_files)})")
        for f in result.test_files:
            click.echo(f"  {f}")


def print_neighbours(title: str, groups: dict, counts: dict) -> None:
    click.echo(f"\n{title} ({counts['total']})")
    if not groups:
        click.echo("  none")
    for rel, items in groups.items():
        click.echo(f"  {rel} ({counts[rel]})")
        click.echo(
            table(
                [
                    [
                        n.kind,
                        n.qualified_name,
                        where(n.file, n.line),
                        f"line {n.at_line}" if n.at_line else "",
                        f"{n.confidence:.2f} {n.reason}".rstrip(),
                    ]
                    for n in items
                ],
                indent="    ",
            )
        )
        more(counts[rel], len(items), indent="    ")


@main.command()
@options.of("deps")
@handle_errors
def deps(target, relation, min_confidence, limit, path, as_json, require_fresh):
    """TARGET's direct neighbours, both ways, by relation."""
    with open_index(path, require_fresh) as index, explain_ambiguity(as_json, limit):
        result = index.deps(target, relation, min_confidence, limit)
    if as_json:
        emit("deps", result)
        return
    result = escaped(result)
    click.echo(f"deps of {describe(result.target)}")
    freshness_line(result.freshness)
    print_neighbours("used by (upstream)", result.upstream, result.counts["upstream"])
    print_neighbours("uses (downstream)", result.downstream, result.counts["downstream"])


@main.command()
@options.of("context")
@handle_errors
def context(target, limit, path, as_json, require_fresh, fmt):
    """TARGET's definition (with source), container, members, callers, callees, imports,
    bases, subclasses and tests."""
    with open_index(path, require_fresh) as index, explain_ambiguity(as_json, limit):
        result = index.context(target, limit)
    if fmt != "text":
        emit_diagram(fmt, result, as_json)
        return
    if as_json:
        emit("context", result)
        return
    # tabs in the source are spaces on screen (the escape would show them as \x09)
    source = [line.expandtabs(4) for line in result.definition.source]
    result = escaped(replace(result, definition=replace(result.definition, source=source)))
    t, d = result.target, result.definition
    click.echo(f"{t.kind} {t.qualified_name}  {where(t.file, t.line)}-{t.end_line}")
    click.echo(f"uid {t.uid}" + ("  (test code)" if t.is_test else ""))
    freshness_line(result.freshness)
    if d.signature:
        click.echo(f"signature: {d.signature}")
    if d.source:
        if d.source_status == "changed":
            click.echo("(the file changed since it was indexed: lines may be off)")
        click.echo("")
        width = len(str(d.start_line + len(d.source)))
        for k, line in enumerate(d.source):
            click.echo(f"  {str(d.start_line + k).rjust(width)}  {line}")
        if d.truncated:
            click.echo(f"  ... (cut at {len(d.source)} lines)")
    elif d.source_status != "external":
        click.echo(f"(no source: {d.source_status})")

    def refs(title: str, items, total: int | None = None) -> None:
        count = len(items) if total is None else total
        if not items:
            click.echo(f"{title}: none")
            return
        click.echo(f"{title} ({count})")
        rows = []
        for s in items:
            row = [s.kind, s.qualified_name, where(s.file, s.line)]
            if hasattr(s, "relation"):  # a Neighbour: how the edge was resolved, and where
                row += [
                    f"line {s.at_line}" if s.at_line else "",
                    f"{s.confidence:.2f} {s.reason}".rstrip(),
                ]
            rows.append(row)
        click.echo(table(rows))
        more(count, len(items))

    click.echo("")
    click.echo(
        "container: "
        + (
            f"{result.container.kind} {result.container.qualified_name}"
            if result.container
            else "none"
        )
    )
    for title, name in (
        ("members", "members"),
        ("callers", "callers"),
        ("callees", "callees"),
        ("imports (of its module)", "imports"),
        ("imported by", "imported_by"),
        ("bases", "bases"),
        ("subclasses", "subclasses"),
        ("references", "references"),
        ("referenced by", "referenced_by"),
    ):
        refs(title, getattr(result, name), getattr(result, f"{name}_total"))
    if result.tests:
        click.echo(f"tests ({result.test_count})")
        click.echo(
            table(
                [
                    [h.run_id or h.qualified_name, where(h.file, h.line), f"d={h.depth}"]
                    for h in result.tests
                ]
            )
        )
        more(result.test_count, len(result.tests))
    else:
        click.echo("tests: none reach it")


@main.command()
@options.of("trace")
@handle_errors
def trace(source, target, relation, min_confidence, path, as_json, require_fresh, fmt):
    """A shortest dependency path from FROM to TO (or from TO to FROM if there is none)."""
    with open_index(path, require_fresh) as index, explain_ambiguity(as_json):
        result = index.trace(source, target, relation, min_confidence)
    if fmt != "text":
        emit_diagram(fmt, result, as_json)
        return
    if as_json:
        emit("trace", result)
        return
    result = escaped(result)
    a, b = result.source, result.target
    freshness_line(result.freshness)
    if not result.found:
        click.echo(f"no dependency path between {a.qualified_name} and {b.qualified_name}")
        return
    if result.direction == "reverse":
        click.echo(
            f"{a.qualified_name} does not depend on {b.qualified_name}; "
            f"the other way round ({plural(result.length, 'hop')}):"
        )
    else:
        click.echo(f"{a.qualified_name} -> {b.qualified_name} ({plural(result.length, 'hop')}):")
    rows = []
    for step in result.steps:
        edge = f"{step.relation} {step.confidence:.2f}" if step.relation else ""
        rows.append([step.kind, step.qualified_name, where(step.file, step.line), edge])
    click.echo(table(rows))


@main.command()
@click.option("--include-tests", is_flag=True, help="Include test modules.")
@click.option(
    "--include-deferred",
    is_flag=True,
    help="Count imports inside functions too (they run at call time, not at import time).",
)
@click.option(
    "--include-guarded",
    is_flag=True,
    help='Count imports under `if TYPE_CHECKING:` and `if __name__ == "__main__":` too '
    "(only a type checker, or a run as a script, follows them).",
)
@limit_option
@repo_option
@json_option
@require_fresh_option
@handle_errors
def cycles(include_tests, include_deferred, include_guarded, limit, path, as_json, require_fresh):
    """Import cycles between modules, of the imports that run when a module is imported
    (not those in functions, under `if TYPE_CHECKING:` or `if __name__ == "__main__":`,
    unless --include-deferred / --include-guarded)."""
    with open_index(path, require_fresh) as index:
        result = index.cycles(
            include_tests, include_deferred, limit, include_guarded=include_guarded
        )
    if as_json:
        emit("cycles", result)
        return
    result = escaped(result)
    freshness_line(result.freshness)
    click.echo(plural(result.count, "import cycle"))
    for k, cyc in enumerate(result.cycles, 1):
        click.echo(f"\n{k}. {cyc.size} modules; one loop:")
        click.echo(
            table(
                [[f"{step.file}:{step.line}", "imports", step.imports] for step in cyc.loop],
                indent="     ",
            )
        )
        if cyc.size > len(cyc.loop):
            click.echo(f"   all {cyc.size}:")
            click.echo(table([[m] for m in cyc.modules], indent="     "))
            more(cyc.size, len(cyc.modules), indent="     ")
    more(result.count, len(result.cycles), indent="")
