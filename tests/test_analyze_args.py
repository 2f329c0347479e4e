"""`graph analyze` read without click (codeimpact/analyze_command.py): the reading agrees with
click's for every argument list it takes, it leaves to click only what click refuses or
alone handles (--watch, help), and the console script runs an analyze without importing
click, with click's answers where click reads the arguments."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import click
import pytest

from codeimpact import analyze_command
from codeimpact.cli import analyze as click_analyze

CASES = [
    [], ["."], ["repo"], ["repo", "--json"], ["--json", "repo"], ["--index-only", "--force"],
    ["--workers", "2"], ["--workers=2"], ["--workers", "x"], ["--workers"], ["--workers="],
    ["--workers", "--force"], ["--workers", "-1"], ["--workers", " 3 "], ["--workers", "1_000"],
    ["--workers", "2", "--workers", "3"], ["--force=1"], ["--json="], ["--wait", "0.5"],
    ["--wait", "1e3"], ["--wait", "nan"], ["--wait", "x"], ["--max-file-size", "100"],
    ["--buffer-pool-mb", "64", "--memory-budget-mb", "100"], ["a", "b"], ["--"], ["--", "x"],
    ["-h"], ["--help"], ["--watch"], ["--watch", "r"], ["--jso"], ["-"], ["-", "--json"],
    ["--index-only", "--index-only"], ["-x"], ["--version"], [""], ["r", "--wait=2"],
]  # fmt: skip
TOKENS = ["r", "s", "--json", "--force", "--index-only", "--workers", "--workers=1", "2", "x",
          "--wait", "0.25", "--max-file-size", "-3", "--buffer-pool-mb=8", "--", "-h", "--watch",
          "--memory-budget-mb", "--nope", "-"]  # fmt: skip


def click_reading(args: list[str]) -> dict | None:
    """What click gives the command for `args`, or None where it refuses them (or exits)."""
    try:
        ctx = click_analyze.make_context("analyze", list(args))
    except (click.exceptions.Exit, click.ClickException):
        return None
    return ctx.params


def generated() -> list[list[str]]:
    rnd = random.Random(20261206)
    return [[rnd.choice(TOKENS) for _ in range(rnd.randint(0, 5))] for _ in range(600)]


@pytest.mark.parametrize("args", CASES + generated(), ids=lambda a: " ".join(a) or "(none)")
def test_the_reading_is_clicks(args):
    ours, theirs = analyze_command.read_args(args), click_reading(args)
    if ours is not None:
        assert ours.keys() == theirs.keys()
        assert all(v == theirs[k] or v != v and theirs[k] != theirs[k] for k, v in ours.items())
    else:  # left to click: refused by it, or what only it reads (values are checked late)
        flags = [a.partition("=")[0] for a in args if a.startswith("--")]
        assert theirs is None or theirs["watch"] or "--" in args or len(set(flags)) < len(flags)


def test_the_click_command_is_built_from_the_declarations():
    names = [p.name for p in click_analyze.params]
    assert names == ["path", *(p.dest for p in analyze_command.PARAMS)]
    for param, declared in zip(click_analyze.params[1:], analyze_command.PARAMS, strict=True):
        assert (param.opts, param.help, param.is_flag) == (
            [declared.flag], declared.help, declared.kind is bool)  # fmt: skip


PROBE = """
import gc, sys
from codeimpact import analyze_command
from codeimpact.console import _main, prepare
prepare()
gc.set_threshold(1000)  # any run allocates more: a collector left on would pass once
collections = []
gc.callbacks.append(lambda phase, info: phase == "start" and collections.append(info))
try:
    _main(sys.argv[1:])
except SystemExit as e:
    code = e.code
else:
    code = 0
print("click" in sys.modules, code, len(collections), file=sys.stderr)
"""


def console(*args: str) -> tuple[str, list[str], bool, int]:
    out, err, loaded, code, _ = console_run(*args)
    return out, err, loaded, code


def console_run(*args: str) -> tuple[str, list[str], bool, int, int]:
    """stdout, stderr's lines, whether click was imported, the exit code and the number of
    the cyclic collector's passes of `graph ARGS` as the console script runs it."""
    proc = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True)
    *lines, last = proc.stderr.splitlines()
    loaded, code, collections = last.split()
    return proc.stdout, lines, loaded == "True", int(code), int(collections)


def test_an_analyze_runs_without_click(make_repo):
    files = {f"pkg/m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(4)}
    repo = make_repo({**files, "pkg/a.py": "def f():\n    return 1\n"})
    out, err, loaded, code = console("analyze", "--index-only", "--json", str(repo))
    assert (code, err, loaded) == (0, [], False)
    assert json.loads(out)["mode"] == "full"
    (repo / "pkg/a.py").write_text("def f():\n    return 2\n\n\ndef g():\n    return f()\n")
    out, err, loaded, code = console("analyze", str(repo), "--index-only")
    assert (code, err, loaded) == (0, [], False)
    assert out.startswith("updated the index of 5 files (1 modified; re-parsed 1")


def test_an_error_is_one_line_and_its_exit_code_without_click(tmp_path):
    out, err, loaded, code = console("analyze", "--index-only", str(tmp_path / "missing"))
    assert (out, loaded, code) == ("", False, 2)
    assert len(err) == 1 and err[0].startswith("graph: ") and "missing" in err[0]


@pytest.mark.parametrize(
    "args, expected",
    [
        (["--workers", "x"], "'x' is not a valid integer"),
        (["a", "b"], "unexpected extra"),
        (["--help"], "Usage: "),
    ],  # fmt: skip
)
def test_what_click_reads_it_answers(tmp_path, args, expected):
    out, err, loaded, code = console("analyze", *args)
    assert loaded and expected in out + "\n".join(err)
    assert code == (0 if args == ["--help"] else 2)


def test_an_edit_ends_without_a_pass_of_the_collector(make_repo):
    """The run keeps the collector paused; the process ends right after its report, so the
    report does not pay for a pass over every object the run made."""
    files = {f"pkg/m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(4)}
    repo = make_repo({**files, "pkg/a.py": "def f():\n    return 1\n"})
    assert console_run("analyze", "--index-only", str(repo))[3] == 0
    (repo / "pkg/a.py").write_text("def f():\n    return 2\n")
    out, err, _, code, collections = console_run("analyze", "--index-only", "--json", str(repo))
    assert (code, err, json.loads(out)["mode"], collections) == (0, [], "incremental", 0)
