"""A small repository whose suite runs under pytest-cov: shared by the observed-coverage tests.

`handle_upper` and `pkg.util.api` are reached only through a dynamic `getattr`: the
static graph cannot see which tests run them, coverage data can.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from codeimpact.graph import layout
from codeimpact.graph.observed import read_observed
from codeimpact.indexer.build import analyze
from codeimpact.indexer.config import IndexConfig, RunOptions
from conftest import git, write_files

FILES = {
    "pytest.ini": "[pytest]\n",
    "pkg/__init__.py": "",
    "pkg/plugins.py": """
        import sys


        def load(name, value):
            # which handler runs is decided at run time: no static edge reaches it
            return getattr(sys.modules[__name__], "handle_" + name)(value)


        def handle_upper(value):
            return value.upper()


        def handle_lower(value):
            return value.lower()


        def unused(value):
            return value
        """,
    "pkg/util.py": """
        def base(value):
            return value


        def api(value):
            return base(value)
        """,
    "pkg/lazy.py": """
        def first(
            a=1,
        ):
            return a


        def second():
            return 2
        """,
    "tests/test_plugins.py": """
        from pkg.plugins import load


        def test_upper():
            assert load("up" + "per", "a") == "A"


        def test_never():
            assert callable(load)


        def test_api():
            import pkg.util

            assert getattr(pkg.util, "a" + "pi")(1) == 1


        def test_lazy():
            import pkg.lazy  # imported here: its `def` lines run under this test

            assert pkg.lazy.first() == 1
        """,
    "tests/test_inherit.py": """
        import pytest
        from pkg.plugins import handle_lower


        class Shared:
            @pytest.mark.parametrize("text", ["A", "B"])
            def test_shared(self, text):
                assert handle_lower(text) == text.lower()


        class TestSub(Shared):
            pass
        """,
}

DYNAMIC = "tests/test_plugins.py::test_upper"
NEVER = "tests/test_plugins.py::test_never"


def run_pytest_cov(repo: Path, *args: str) -> None:
    """The repository's own suite under pytest-cov, in a subprocess, as a CI would run it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_", "COVERAGE"))}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--cov-report=", *args],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def index(repo: Path):
    return analyze(repo, IndexConfig(), RunOptions(workers=1))


def make_measured(repo: Path) -> Path:
    """A committed repository, its suite run with `--cov=pkg --cov=tests --cov-context=test`,
    then indexed. Tests that change it work on a copy (`copy_measured`)."""
    repo.mkdir()
    write_files(repo, FILES)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "initial")
    run_pytest_cov(repo, "--cov=pkg", "--cov=tests", "--cov-context=test")
    index(repo)
    return repo


def move_data(data_file: Path, src: Path, dst: Path) -> None:
    """Rewrite a copied data file's paths from `src` to `dst` (coverage.py's own
    `update(map_path=...)`, as `coverage combine` does), keeping its mtime."""
    from coverage import CoverageData

    old = CoverageData(str(data_file))
    old.read()
    moved = CoverageData(str(data_file) + ".moved")
    moved.update(old, map_path=lambda p: p.replace(str(src), str(dst), 1))
    moved.write()
    stamp = os.stat(data_file).st_mtime
    os.replace(str(data_file) + ".moved", data_file)
    os.utime(data_file, (stamp, stamp))


def copy_measured(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst, symlinks=True)  # copy2 keeps every mtime
    move_data(dst / ".coverage", src, dst)
    return dst


def links_by_run_id(repo: Path) -> dict[str, set[str]]:
    obs = read_observed(layout.index_dir(repo))
    assert obs is not None
    return {t.run_id: {obs.functions[k] for k in row} for t, row in zip(obs.tests, obs.links)}
