"""Terminal output: aligned tables, counts before lists, "and N more", colour only on a terminal."""

from __future__ import annotations

import io
import os
import pty
import subprocess
import sys
from pathlib import Path

from codeimpact import termout

GRAPH = str(Path(sys.executable).with_name("graph"))


def test_table_aligns_on_the_text_not_the_colour_codes():
    style = termout.Style(True)
    out = termout.table(
        [["function", "pkg.a.f", "a.py:1"], ["class", "pkg.b.LongName", "b.py:10"]],
        colours=[style.dim, style.bold, None],
    )
    plain = termout.table(
        [["function", "pkg.a.f", "a.py:1"], ["class", "pkg.b.LongName", "b.py:10"]]
    )
    assert plain.splitlines() == [
        "  function  pkg.a.f         a.py:1",
        "  class     pkg.b.LongName  b.py:10",
    ]
    strip = out.replace("\x1b[2m", "").replace("\x1b[1m", "").replace("\x1b[0m", "")
    assert strip == plain
    assert "\x1b[1mpkg.b.LongName\x1b[0m" in out
    assert termout.table([]) == ""
    assert termout.table([["a", "b"]], header=["KIND", "NAME"]).splitlines() == [
        "  KIND  NAME",
        "  a     b",
    ]


def test_limits_counts_and_paths(tmp_path):
    shown, left = termout.limited(list(range(7)), 3)
    assert (shown, left) == ([0, 1, 2], 4)
    assert termout.limited([1, 2], 0) == ([1, 2], 0)  # 0: everything
    assert termout.more_line(4) == "  ... and 4 more"
    assert termout.more_line(0) is None
    assert termout.plural(1, "file") == "1 file" and termout.plural(2, "file") == "2 files"
    assert termout.plural(2, "dependency", "dependencies") == "2 dependencies"
    (tmp_path / "pkg").mkdir()
    assert termout.relpath(tmp_path / "pkg" / "a.py", tmp_path) == "pkg/a.py"
    assert termout.relpath("/elsewhere/x.py", tmp_path) == "/elsewhere/x.py"
    assert termout.location("", 3) == "(external)"


def test_colour_only_on_a_terminal_and_never_with_no_color():
    class Tty(io.StringIO):
        def isatty(self):
            return True

    assert termout.colour_enabled(Tty(), environ={}) is True
    assert termout.colour_enabled(Tty(), environ={"NO_COLOR": "1"}) is False
    assert termout.colour_enabled(Tty(), environ={"NO_COLOR": ""}) is True  # empty: not set
    assert termout.colour_enabled(io.StringIO(), environ={}) is False
    assert termout.Style(False).bold("x") == "x"
    assert termout.Style(True).risk("HIGH") == "\x1b[31mHIGH\x1b[0m"


def _in_a_terminal(args: list[str], env: dict[str, str]) -> str:
    """Run `args` with stdout on a pseudo-terminal; what it printed."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(args, stdout=follower, stderr=subprocess.PIPE, env=env)
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:  # the child closed its end
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=60)
    os.close(leader)
    return b"".join(chunks).decode()


def test_search_counts_first_limits_and_colours_only_on_a_terminal(make_repo, index_repo):
    names = "".join(f"def handler_{i}():\n    return {i}\n\n\n" for i in range(5))
    repo = make_repo({"app.py": names})
    index_repo(repo)
    args = [GRAPH, "search", "handler", "--limit", "2", "--repo", str(repo)]
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    piped = subprocess.run(args, capture_output=True, text=True, env=env, timeout=60)
    assert piped.returncode == 0, piped.stderr
    lines = piped.stdout.splitlines()
    assert lines[0] == "5 symbols match 'handler'"
    assert len(lines) == 4 and lines[-1] == "  ... and 3 more"
    assert lines[1].split() == ["function", "app.handler_0", "app.py:1"]
    assert "\x1b[" not in piped.stdout  # piped: plain text
    coloured = _in_a_terminal(args, env)
    assert "\x1b[1mapp.handler_0\x1b[0m" in coloured
    assert "\x1b[" not in _in_a_terminal(args, {**env, "NO_COLOR": "1"})


def test_escape_shows_control_characters_and_keeps_the_rest():
    assert termout.escape("a\x1b[31mred.py") == "a\\x1b[31mred.py"
    assert (
        termout.escape("tab\there\nnew\r\x07\x7f\x9b") == "tab\\x09here\\x0anew\\x0d\\x07\\x7f\\x9b"
    )
    assert termout.escape("x\udcffy") == "x\\xffy"  # an undecodable byte (surrogateescape)
    assert termout.escape("rtl\u202eevil") == "rtl\\u202eevil"  # a bidi override
    plain = "pkg/café_中.py::C.m \\ back"
    assert termout.escape(plain) is plain  # nothing to do: the same string


def test_escaped_copies_a_result_with_every_string_escaped():
    from dataclasses import dataclass
    from typing import NamedTuple

    class Hit(NamedTuple):
        file: str
        line: int

    @dataclass
    class Result:
        name: str
        hits: list
        extra: dict

    raw = Result("a\x1bb", [Hit("f\x1b.py", 3)], {"k\x07": ("v\x00", None)})
    out = termout.escaped(raw)
    assert out == Result("a\\x1bb", [Hit("f\\x1b.py", 3)], {"k\\x07": ("v\\x00", None)})
    assert raw.name == "a\x1bb"  # the result itself is untouched (JSON needs it raw)


def test_a_control_character_in_a_file_name_shows_escaped_in_every_text_output(
    make_repo, index_repo
):
    evil = "a\x1b[31mred.py"
    repo = make_repo({evil: "def evil():\n    return 1\n", "b.py": "def evil():\n    return 2\n"})
    index_repo(repo)
    (repo / evil).write_text("def evil():\n    return 3\n")  # stale: the reasons name it
    shown = "a\\x1b[31mred.py"
    uid = f"{evil}::evil"

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([GRAPH, *args], capture_output=True, text=True, timeout=60)

    for args in (
        ["search", "evil"],
        ["impact", uid],
        ["context", uid],
        ["deps", uid],
        ["impact", uid, "--format", "mermaid"],
        ["detect-changes"],
    ):
        res = run(*args, "--repo", str(repo))
        assert res.returncode == 0, (args, res.stderr)
        assert "\x1b" not in res.stdout, args  # never raw
        assert shown in res.stdout, (args, res.stdout)  # and never stripped
    for res in (run("status", str(repo)), run("impact", "evil", "--repo", str(repo))):
        assert "\x1b" not in res.stdout and shown in res.stdout  # reasons, candidates
    res = run("impact", f"{evil}:9", "--repo", str(repo))
    assert res.returncode != 0 and "\x1b" not in res.stderr and "\\x1b" in res.stderr
