"""Every annotated fixture under tests/lang/<language>/ indexes to the edges it asserts.

The fixture format is described in tests/lang/harness.py. Each fixture is indexed as a
real project (real tree-sitter, real Kùzu on disk) and every assertion in it is checked;
a failure lists every assertion that does not hold, with what the index has instead.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from codeimpact.indexer.build import analyze
from codeimpact.indexer.config import IndexConfig, RunOptions
from lang import harness

LANG_DIR = Path(__file__).resolve().parent / "lang"
FIXTURES = sorted(p for p in LANG_DIR.glob("*/*") if p.is_file() and p.parent.name != "__pycache__")


def test_every_language_has_fixtures():
    assert {p.parent.name for p in FIXTURES} >= {"python", "typescript", "go", "java", "rust"}


@pytest.mark.parametrize("source", FIXTURES, ids=[f"{p.parent.name}/{p.name}" for p in FIXTURES])
def test_fixture(source, tmp_path):
    fx = harness.parse(source)
    assert fx.assertions, f"{source.name} asserts nothing"
    for rel, content in fx.files.items():
        target = tmp_path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content)
    report = analyze(tmp_path, IndexConfig(), RunOptions(workers=1))
    failures = harness.check(fx, harness.Graph(tmp_path), report)
    assert not failures, "\n".join(failures)


def test_the_harness_fails_what_does_not_hold(tmp_path):
    """Each kind of assertion fails when the index says otherwise (and names what it has)."""
    source = tmp_path / "wrong.py"
    source.write_text(
        "# exact: calls\n"
        "# expect: calls.builtin = 5\n"
        "# path: m.py\n"
        "def f():\n"
        "    return g()\n"
        "         # ^ calls: m.f\n"
        "def g():\n"
        "  # ^ defines: m.g class\n"
        "    f()\n"
        "  # ^ !calls: m.f\n"
        "    h()\n"
        "  # ^ calls: -\n"
        "    g()\n"
    )
    fx = harness.parse(source)
    repo = tmp_path / "repo"
    for rel, content in fx.files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(content)
    report = analyze(repo, IndexConfig(), RunOptions(workers=1))
    failures = "\n".join(harness.check(fx, harness.Graph(repo), report))
    assert "expect calls.builtin = 5, got 0" in failures
    assert "calls: m.f: not found (found at this line: ['m.g (scope)'])" in failures
    assert "unasserted calls m.g (scope)" in failures  # at f's line, and g() under exact
    assert "defines: m.g class: not defined here" in failures
    assert "!calls: m.f: found" in failures
    assert "m.py:10: unasserted calls m.g" in failures  # g() under `exact: calls`
    assert "m.py:8" not in failures  # h() is unresolved: `calls: -` holds


def test_the_harness_fails_wrong_spans_containers_and_unasserted_definitions(tmp_path):
    """`defines:` spans and export flags, `in:`, `from` (an edge's source) and `exact: defines,
    in` fail when the index says otherwise."""
    source = tmp_path / "wrong.py"
    source.write_text(
        "# exact: defines, in\n"
        "# path: m.py\n"
        "class A:\n"
        "    # ^ defines: m.A class 1-6 exported\n"
        "    def f(self):\n"
        "      # ^ defines: m.A.f method 3-9\n"
        "      # ^ in: m\n"
        "        pass\n"
        "def _g():\n"
        "  # ^ defines: m._g function 7-8 exported\n"
        "    pass\n"
        "_g()\n"
        "# ^ calls: m._g (scope) from m.A\n"
        "# ^ calls: m._g (scope) from m\n"
    )
    fx = harness.parse(source)
    repo = tmp_path / "repo"
    for rel, content in fx.files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(content)
    report = analyze(repo, IndexConfig(), RunOptions(workers=1))
    failures = "\n".join(harness.check(fx, harness.Graph(repo), report))
    assert "defines: m.A class 1-6 exported" not in failures  # holds
    assert "m.A.f method 3-9: not defined here so (method to line 6, exported)" in failures
    assert "m._g function 7-8 exported: not defined here so (function to line 9, unexported)" in (
        failures
    )
    assert "in: m: not found (found at this line: ['m.A'])" in failures
    assert "m.py:3: unasserted in m.A" in failures  # A contains f: not asserted
    assert "m.py:1: unasserted defines m module" in failures
    assert (
        "calls: m._g (scope) from m.A: not found (found at this line: ['m._g (scope) from m'])"
        in (failures)
    )
    assert "from m:" not in failures  # the module calls _g
    with pytest.raises(ValueError, match="the span starts at 2"):
        source.write_text("# path: m.py\nx = 1\n# ^ defines: m.x variable 2-2\n")
        harness.parse(source)


def test_annotate_writes_a_fixture_that_holds(tmp_path):
    """tests/lang/annotate.py --defines writes every edge, definition (with its span, read
    from the annotated text itself) and container of a project: a fixture that holds."""
    from lang import annotate

    project = tmp_path / "project"
    files = {
        "pkg/__init__.py": "",
        "pkg/a.py": "class A:\n    def f(self):\n        return g()\n\n\ndef g():\n    return 1\n",
        "main.py": "from pkg.a import A\n\nA().f()\n",
    }
    for rel, content in files.items():
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text(content)
    source = tmp_path / "fixture.py"
    source.write_text(annotate.annotate(project, defines=True))
    text = source.read_text()
    assert "# exact: calls, imports, references, extends, implements, defines, in" in text
    assert "# ^ defines: pkg.a.A.f method 5-9" in text  # lines of the annotated file
    assert "# ^ in: pkg.a.A" in text
    fx = harness.parse(source)
    repo = tmp_path / "repo"
    for rel, content in fx.files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(content)
    report = analyze(repo, IndexConfig(), RunOptions(workers=1))
    assert harness.check(fx, harness.Graph(repo), report) == []
