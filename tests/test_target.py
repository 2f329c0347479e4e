"""Target resolution on a real index: every accepted form, ambiguity, absence, exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from codeimpact.graph.errors import AmbiguousTarget, BadInput, TargetNotFound
from codeimpact.query.index import Index
from conftest import git, write_files

FILES = {
    "pkg/__init__.py": "",
    "pkg/shapes.py": """
        import math


        class Circle:
            def __init__(self, r):
                self.r = r

            def area(self):
                # a comment line inside area
                return math.pi * self.r**2


        class Square:
            def area(self):
                return 1


        def area(shape):
            return shape.area()
        """,
    "pkg/util.py": """
        def helper():
            return 1


        def unique_thing():
            return helper()
        """,
    "other/util.py": """
        def helper():
            return 2
        """,
}
# pkg/shapes.py lines: 1 import, 4 class Circle, 5 __init__, 8 area, 9 comment,
# 10 return, 13 class Square, 14 Square.area, 18 def area (module-level function).


def build(root):
    from codeimpact.indexer.build import analyze
    from codeimpact.indexer.config import IndexConfig, RunOptions

    root.mkdir()
    write_files(root, FILES)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    analyze(root, IndexConfig(), RunOptions(workers=1))
    return root


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    return build(tmp_path_factory.mktemp("target") / "repo")


@pytest.fixture(scope="module")
def index(repo):
    with Index.open(repo) as ix:
        yield ix


def uid_of(index, text):
    return index.resolve(text).symbol.uid


def test_uid_qualified_name_and_unique_bare_name(index):
    assert uid_of(index, "pkg/shapes.py::Circle.area") == "pkg/shapes.py::Circle.area"
    assert uid_of(index, "pkg/shapes.py::") == "pkg/shapes.py::"
    assert uid_of(index, "pkg.shapes.Circle.area") == "pkg/shapes.py::Circle.area"
    assert uid_of(index, "pkg.shapes") == "pkg/shapes.py::"
    assert uid_of(index, "unique_thing") == "pkg/util.py::unique_thing"
    assert index.resolve("unique_thing").matched_by == "name"
    # an external symbol is a target too (who uses math?)
    assert uid_of(index, "<external>::math") == "<external>::math"


def test_dotted_tail_of_a_qualified_name(index):
    t = index.resolve("Circle.area")
    assert (t.symbol.uid, t.matched_by) == ("pkg/shapes.py::Circle.area", "suffix")
    assert uid_of(index, "shapes.Square") == "pkg/shapes.py::Square"


def test_path_is_the_module_symbol(index, repo):
    assert uid_of(index, "pkg/shapes.py") == "pkg/shapes.py::"
    assert uid_of(index, "./pkg/shapes.py") == "pkg/shapes.py::"
    assert uid_of(index, str(repo / "pkg" / "util.py")) == "pkg/util.py::"


@pytest.mark.parametrize(
    "line, expected",
    [
        (1, "pkg/shapes.py::"),  # top-level code belongs to the module
        (4, "pkg/shapes.py::Circle"),
        (6, "pkg/shapes.py::Circle.__init__"),
        (9, "pkg/shapes.py::Circle.area"),  # a comment inside the method: still the method
        (10, "pkg/shapes.py::Circle.area"),
        (7, "pkg/shapes.py::Circle"),  # blank line between methods: the class
        (14, "pkg/shapes.py::Square.area"),
        (19, "pkg/shapes.py::area"),
    ],
)
def test_path_line_is_the_innermost_symbol(index, line, expected):
    t = index.resolve(f"pkg/shapes.py:{line}")
    assert (t.symbol.uid, t.matched_by) == (expected, "path:line")


def test_ambiguous_name_lists_candidates(index):
    with pytest.raises(AmbiguousTarget) as err:
        index.resolve("area")
    assert err.value.exit_code == 3
    assert err.value.candidates == [
        {
            "uid": "pkg/shapes.py::Circle.area",
            "kind": "method",
            "qualified_name": "pkg.shapes.Circle.area",
            "file": "pkg/shapes.py",
            "line": 8,
        },
        {
            "uid": "pkg/shapes.py::Square.area",
            "kind": "method",
            "qualified_name": "pkg.shapes.Square.area",
            "file": "pkg/shapes.py",
            "line": 14,
        },
        {
            "uid": "pkg/shapes.py::area",
            "kind": "function",
            "qualified_name": "pkg.shapes.area",
            "file": "pkg/shapes.py",
            "line": 18,
        },
    ]
    with pytest.raises(AmbiguousTarget) as err:
        index.resolve("helper")
    assert [c["uid"] for c in err.value.candidates] == [
        "other/util.py::helper",
        "pkg/util.py::helper",
    ]


def test_not_found(index, repo, tmp_path):
    for text in ("no_such_symbol", "pkg/missing.py", "pkg/shapes.py:500", "Nope.area"):
        with pytest.raises(TargetNotFound) as err:
            index.resolve(text)
        assert err.value.exit_code == 4
    # a path outside the repository never resolves, even if the file exists
    outside = tmp_path / "pkg" / "shapes.py"
    outside.parent.mkdir()
    outside.write_text("x = 1\n")
    with pytest.raises(TargetNotFound):
        index.resolve(str(outside))
    with pytest.raises(TargetNotFound):
        index.resolve("../repo/pkg/shapes.py")
    with pytest.raises(BadInput):
        index.resolve("   ")


def run_cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "codeimpact", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "CODEIMPACT_DEBUG": ""},
    )


def test_cli_exit_codes_for_ambiguous_and_missing_targets(repo):
    out = run_cli("impact", "area", "--repo", str(repo))
    assert out.returncode == 3
    assert out.stderr.count("\n") == 1 and "ambiguous target 'area'" in out.stderr
    assert "3 candidates" in out.stdout and "pkg/shapes.py::Square.area" in out.stdout

    out = run_cli("context", "area", "--repo", str(repo), "--json")
    assert out.returncode == 3
    payload = json.loads(out.stdout)
    assert payload["schema"] == "codeimpact.ambiguous/1"
    assert [c["line"] for c in payload["candidates"]] == [8, 14, 18]

    out = run_cli("deps", "no_such_symbol", "--repo", str(repo))
    assert out.returncode == 4
    assert out.stdout == ""
    assert out.stderr.strip() == (
        "graph: no symbol matches 'no_such_symbol' (try `graph search no_such_symbol`)"
    )
    assert "Traceback" not in out.stderr

    out = run_cli("trace", "unique_thing", "pkg/shapes.py:10", "--repo", str(repo), "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["found"] is False
