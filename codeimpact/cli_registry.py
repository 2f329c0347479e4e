"""`graph list` and `graph forget`: the repositories `graph analyze` registered."""

from __future__ import annotations

from pathlib import Path

import click

from codeimpact.cli import emit_json, handle_errors, json_option, main
from codeimpact.graph.errors import BadInput
from codeimpact.termout import escape, escaped, plural, table


@main.command("list")
@json_option
@handle_errors
def list_command(as_json):
    """The repositories analyzed without --index-only, and whether each index is fresh."""
    from codeimpact.registry import Registry, listing

    found = listing()
    if as_json:
        emit_json(found)
        return
    repos = escaped(found["repos"])
    if not repos:
        click.echo(f"no repository registered ({escape(str(Registry.default().path))})")
        return
    click.echo(plural(len(repos), "repository", "repositories") + " registered")
    rows = []
    for r in repos:
        state = {True: "fresh", False: "stale", None: "unknown"}[r["fresh"]]
        langs = ", ".join(f"{lang} {n}" for lang, n in r["languages"].items())
        commit = (r["indexed_commit"] or "no commit")[:12]
        rows.append([r["path"], state, commit, f"{r['files']} files", f"{r['symbols']} symbols",
                     langs])  # fmt: skip
    click.echo(table(rows))
    for r in repos:
        for reason in r["reasons"] if r["fresh"] is False else []:
            click.echo(f"  {r['path']}: {reason}")


@main.command()
@click.argument("path", type=click.Path(file_okay=True, dir_okay=True))
@handle_errors
def forget(path):
    """Remove PATH from the registry (its index is left as it is; `graph clean` removes it)."""
    from codeimpact.registry import Registry

    repo = str(Path(path).expanduser().resolve())
    if not Registry.default().forget(repo):
        raise BadInput(f"not registered: {repo} (see `graph list`)")
    click.echo(f"forgot {escape(repo)}")
