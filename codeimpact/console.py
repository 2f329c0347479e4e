"""The `graph` console script: `graph analyze` read and run without click when click would
read its arguments the same way (`analyze_command.read_args`), every other command through
click (`cli.main`); then an exit that skips the interpreter's teardown.

Everything a command writes is closed by the time it returns, so freeing every module and
object one by one (0.04-0.07 s after a full build of Django) buys nothing. Only the console
script does this: `cli.main` stays an ordinary click command, for callers in this process
(tests, the API).
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys

from codeimpact.graph import QUIET_BLAS


def run() -> None:
    prepare()
    code: int | str | None = 0
    try:
        _main(sys.argv[1:])
    except SystemExit as e:
        code = e.code
    if not isinstance(code, int):
        if code is not None:
            print(code, file=sys.stderr)  # what sys.exit(message) would have printed
        code = 0 if code is None else 1
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe (`graph ... | head`)
            stream.flush()
    os._exit(code)


def prepare() -> None:
    """The process's settings for a command: before anything is imported."""
    # numpy's OpenBLAS on one thread (graph/__init__.py QUIET_BLAS): a thread per core spins
    # ~0.1 s of CPU at its import, taken from the extraction workers
    for name, value in QUIET_BLAS.items():
        os.environ.setdefault(name, value)
    # A query loads tens of thousands of acyclic strings and lists (the symbol table) after
    # importing its modules; collecting every 700 allocations walked them again and again:
    # 8% of `graph impact` on Django (median of 8: 0.58 -> 0.53 s). Cycles are still found.
    gc.set_threshold(50_000, 20, 20)


def _main(args: list[str]) -> None:
    if args[:1] == ["analyze"]:
        from codeimpact import analyze_command

        values = analyze_command.read_args(args[1:])
        if values is not None:
            # The run pauses the collector and gives it back when it ends, with every
            # object it made still counted as young: the report's first allocations then
            # walked them all (one collection of 13-22 ms CPU on a Django edit) in a
            # process that exits right after (--watch, which stays, goes through click)
            gc.disable()
            analyze_command.analyze(**values)
            return
    from codeimpact.cli import main

    main(args)


if __name__ == "__main__":
    run()
