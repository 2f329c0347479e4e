"""`graph analyze`: its parameters declared once, its argument list read without click, and
the run itself.

`analyze` is the command a CI job, an editor hook or an agent runs after every change, and
on a one-file edit the interpreter's start-up is a large part of its time: importing click
(with inspect, uuid, platform and gettext: ~19 ms of CPU, as much as the edit's own
extraction) to read nine plain options is not worth it. `read_args` reads an argument list
as click reads it for this command, and answers None for anything else (help, --watch, a
value that is not a number, an unknown option, a second path): click then reads it and
says what is wrong (`cli.analyze`, built from the same PARAMS; tests/test_analyze_args.py
holds the two readings equal). Nothing here imports click.
"""

from __future__ import annotations

import sys
from pathlib import Path

from codeimpact.graph.errors import CodeImpactError
from codeimpact.present import handle_errors, json_text, to_jsonable
from codeimpact.termout import escape


class Param:
    """One option of `graph analyze`: `flag` on the command line, `dest` in the run's
    values; `kind` is bool for a flag (no value), else the type its value is read as."""

    __slots__ = ("flag", "dest", "kind", "default", "help", "show_default")

    def __init__(self, flag: str, dest: str, kind: type, default: object, help: str,
                 show_default: bool = False) -> None:  # fmt: skip
        self.flag, self.dest, self.kind, self.default = flag, dest, kind, default
        self.help, self.show_default = help, show_default


PATH_HELP = "PATH"  # the one argument: the repository (default: the current directory)
PARAMS = (
    Param("--index-only", "index_only", bool, False, "Build or update the index and nothing else."),
    Param("--force", "force", bool, False, "Rebuild from scratch, ignoring the facts cache."),
    Param("--json", "as_json", bool, False, "Print the summary as JSON."),
    Param("--workers", "workers", int, 0,
          "Extraction and resolution processes (default: one per core)."),
    Param("--max-file-size", "max_file_size", int, None,
          "Skip files larger than this many bytes (default 16 MiB)."),
    Param("--buffer-pool-mb", "buffer_pool_mb", int, 512, "Kùzu buffer pool for the write.",
          show_default=True),
    Param("--memory-budget-mb", "memory_budget_mb", int, 3072,
          "Resolve in worker processes only while their memory would fit in this.",
          show_default=True),
    Param("--wait", "lock_wait", float, 0.0, "Seconds to wait for another analyze's lock."),
    Param("--watch", "watch", bool, False,
          "Stay running; re-index as files change (Ctrl-C stops)."),
)  # fmt: skip
_BY_FLAG = {p.flag: p for p in PARAMS}
_CLICK_ONLY = frozenset({"watch"})  # a long-running loop: its start-up does not matter


def read_args(args: list[str]) -> dict[str, object] | None:
    """The values click gives `analyze` for `args` (PARAMS' dests and "path"), or None when
    click should read them: an option it alone handles, anything it would refuse."""
    values: dict[str, object] = {p.dest: p.default for p in PARAMS}
    values["path"] = "."
    path_given = False
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg[:1] != "-" or arg == "-":
            if path_given:
                return None
            values["path"], path_given = arg, True
            continue
        flag, has_value, value = arg.partition("=")
        param = _BY_FLAG.get(flag)
        if param is None or param.dest in _CLICK_ONLY:
            return None  # "--", -h, --help, a misspelt option: click's
        if param.kind is bool:
            if has_value:
                return None
            values[param.dest] = True
            continue
        if not has_value:
            if i == len(args):
                return None
            value = args[i]
            i += 1
        try:
            values[param.dest] = param.kind(value)
        except ValueError:
            return None
    return values


def say(text: str, err: bool = False) -> None:
    """A line to stdout (or stderr), flushed, as click.echo writes it."""
    stream = sys.stderr if err else sys.stdout
    stream.write(text + "\n")
    stream.flush()


@handle_errors
def analyze(path: str, index_only: bool, force: bool, as_json: bool, workers: int,
            max_file_size: int | None, buffer_pool_mb: int, memory_budget_mb: int,
            lock_wait: float, watch: bool) -> None:  # fmt: skip
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
            say(escape(line))
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
        say(f"graph: note: {line}", err=True)
    if as_json:
        say(json_text(to_jsonable({"schema": "codeimpact.analyze/1", **to_jsonable(report)})))
    else:
        say(escape(report.summary()))


def _register(repo: Path | None = None, report=None) -> None:
    """Record the repository in the user's registry (`graph list`): from the run's report
    when there is one, else from its index; a registry that cannot be written is said in
    one line and does not fail the analyze, whose index is written."""
    from codeimpact.registry import record_repo, record_run

    try:
        record_run(report) if report is not None else record_repo(repo)
    except CodeImpactError as e:
        say(f"graph: warning: not registered: {escape(str(e).splitlines()[0])}", err=True)


class _ProgressBar:
    """One bar per phase (extract, resolve): a new phase closes the bar of the last. Only a
    terminal sees it (click imported then, for its bar)."""

    def __init__(self) -> None:
        self.bar = None
        self.phase = None

    def update(self, phase: str, done: int, total: int) -> None:
        if self.bar is None or phase != self.phase:
            import click

            self.close()
            self.bar = click.progressbar(length=total, label=phase, file=sys.stderr)
            self.bar.__enter__()
            self.phase = phase
        self.bar.update(done - self.bar.pos)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
            self.bar = None
