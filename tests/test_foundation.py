"""End to end: a small Python repository indexed into a real Kùzu database."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import edges, symbols


def test_symbols_and_qualified_names(make_repo, index_repo):
    repo = make_repo(
        {
            "src/pkg/__init__.py": "from .mod import Greeter\n",
            "src/pkg/mod.py": """
                class Greeter:
                    def hello(self):
                        def inner():
                            return 1
                        return inner()

                VALUE = 3
                """,
        }
    )
    report = index_repo(repo)
    assert report.files == 2
    syms = symbols(repo)
    assert syms["src/pkg/mod.py::Greeter"] == ("class", "pkg.mod.Greeter", 1, 5)
    assert syms["src/pkg/mod.py::Greeter.hello"] == ("method", "pkg.mod.Greeter.hello", 2, 5)
    assert syms["src/pkg/mod.py::Greeter.hello.inner"][:2] == (
        "function",
        "pkg.mod.Greeter.hello.inner",
    )
    assert syms["src/pkg/mod.py::VALUE"][:2] == ("variable", "pkg.mod.VALUE")
    assert syms["src/pkg/__init__.py::"][:2] == ("module", "pkg")
    calls = edges(repo, "CALLS")
    assert (
        "src/pkg/mod.py::Greeter.hello",
        "src/pkg/mod.py::Greeter.hello.inner",
        1.0,
        "scope",
    ) in calls
    assert ("src/pkg/__init__.py::", "src/pkg/mod.py::Greeter") in {
        (a, b) for a, b in edges(repo, "IMPORTS")
    }


def test_cli_analyze_json_and_bad_path(make_repo, tmp_path):
    repo = make_repo({"a.py": "def f():\n    return g()\n\ndef g():\n    pass\n"})
    out = subprocess.run(
        [sys.executable, "-m", "codeimpact", "analyze", "--index-only", "--json", str(repo)],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["files"] == 1 and report["edges"]["CALLS"] == 1
    assert (repo / ".codeimpact" / ".gitignore").read_text() == "*\n"
    bad = subprocess.run(
        [sys.executable, "-m", "codeimpact", "analyze", str(tmp_path / "missing")],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2
    assert bad.stderr.count("\n") == 1 and "no such directory" in bad.stderr


def test_full_build_leaves_the_callers_arrow_pool(make_repo, index_repo):
    """The full build allocates its Arrow tables from malloc (graph.arrow.malloc_pool), then
    hands the process back the pool it had, also when the block raises."""
    import pyarrow as pa

    from codeimpact.graph.arrow import malloc_pool

    mine = pa.default_memory_pool().backend_name
    repo = make_repo({"a.py": "def f():\n    return g()\n\ndef g():\n    return 1\n"})
    report = index_repo(repo)
    assert report.mode == "full" and report.files == 1
    assert pa.default_memory_pool().backend_name == mine
    assert ("a.py::f", "a.py::g", 1.0, "scope") in edges(repo, "CALLS")

    with pytest.raises(KeyError), malloc_pool():
        assert pa.default_memory_pool().backend_name == "system"
        assert pa.array(["x", "y"]).filter(pa.array([True, False])).to_pylist() == ["x"]
        raise KeyError("a failed build")
    assert pa.default_memory_pool().backend_name == mine
