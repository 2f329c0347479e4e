"""Issue 4: a full index of Django, a no-change re-run, and re-runs after editing one leaf
file and one widely imported file, each as the CLI runs it, with its ratio to the full index.

`seconds` is the work done inside analyze (start-up excluded); wall includes start-up.

    pytest benchmarks/bench_incremental.py --benchmark-only -s
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from sources import fresh_copy, run_measured, sdist

LEAF = "django/utils/timesince.py"
WIDE = "django/db/models/__init__.py"
ROWS: list[tuple[str, float, float, str]] = []


@pytest.fixture(scope="module")
def django(tmp_path_factory) -> Path:
    try:
        src = sdist("django", "5.2.8")
    except Exception as e:
        pytest.skip(f"cannot fetch the Django sdist: {e}")
    return fresh_copy(src, tmp_path_factory.mktemp("incr") / "django")


def analyze(repo: Path, *extra: str) -> tuple[float, dict]:
    wall, _peak, out = run_measured(
        [sys.executable, "-m", "codeimpact", "analyze", "--index-only", "--json", *extra, str(repo)]
    )
    return wall, json.loads(out)


def touch(repo: Path, rel: str, n: int) -> None:
    p = repo / rel
    p.write_text(p.read_text() + f"\n# edit {n}\n")


def test_incremental_runs(benchmark, django):
    wall, full = analyze(django, "--force")
    ROWS.append(("full index", wall, full["seconds"], full["mode"]))
    counter = iter(range(10_000))

    def run(label, rel=None):
        if rel:
            touch(django, rel, next(counter))
        wall, rep = analyze(django)
        detail = f"{rep['mode']}; parsed {rep.get('parsed', 0)}, resolved {rep.get('resolved', 0)}"
        ROWS.append((label, wall, rep["seconds"], detail))
        return rep

    assert run("no change")["mode"] == "unchanged"
    benchmark.pedantic(lambda: run("leaf edit", LEAF), rounds=3, iterations=1)
    assert run("widely imported edit", WIDE)["mode"] == "incremental"


@pytest.fixture(scope="module", autouse=True)
def print_rows():
    yield
    if not ROWS:
        return
    full = ROWS[0][2]
    print("\n== Django 5.2.8 incremental re-index ==")
    print(f"{'run':<22} {'wall':>8} {'work':>8} {'work/full':>10}  detail")
    for label, wall, work, detail in ROWS:
        print(f"{label:<22} {wall:>7.2f}s {work:>7.2f}s {work / full:>9.3f}  {detail}")
