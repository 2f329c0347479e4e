"""Impact at depth 3, in-process, on the real index of Django 5.2.8 (target: <= 5 ms).

Run: ``pytest benchmarks/bench_impact.py --benchmark-only -s`` (a table is printed
at the end). The Django source is ``$CODEIMPACT_DJANGO`` or ``/tmp/corpus/django-5.2.8``;
if neither exists the sdist is fetched with ``pip download --no-deps --no-binary :all:
django==5.2.8`` into ``benchmarks/.cache/`` and unpacked. The session runs
``analyze`` on it first (a no-op when the index is current, ~11 s when it is not).

What one timed call is: ``Index.impact(target, depth=3)`` on an open index whose
graph view (snapshot + symbol table) is already loaded — target resolution, the
native BFS passes (dependents, the tests' closure, test coverage), relation lookup,
paths, risk and completeness, and the result dataclasses. Lists are capped at the
API default (50 per group; counts stay complete); the ``all`` rows build every entry,
test and path (``limit=0``). ``check_freshness=False``: the freshness block runs
``git status`` (~0.1 s on Django), far above the traversal; it is timed on its own
row, as is the one-time load of the graph view.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import pytest

from codeimpact.query.freshness import freshness
from codeimpact.query.graphview import load_view
from codeimpact.query.index import Index

HERE = Path(__file__).resolve().parent
CACHE = HERE / ".cache"
VERSION = "5.2.8"
TARGETS = (
    "django.db.models.base.Model.save",
    "django.http.response.HttpResponse",
    "django.db.models.base.Model",
    "django.db.models.query.QuerySet.filter",
    "django.utils.timezone.now",
    "django/db/models/query.py",
)
BUDGET_MS = 5.0

ROWS: list[tuple[str, float, str]] = []  # (case, median ms, note)


def django_source() -> Path:
    for candidate in (os.environ.get("CODEIMPACT_DJANGO"), "/tmp/corpus/django-5.2.8"):
        if candidate and (Path(candidate) / "django" / "__init__.py").is_file():
            return Path(candidate)
    unpacked = CACHE / f"django-{VERSION}"
    if not (unpacked / "django" / "__init__.py").is_file():
        CACHE.mkdir(exist_ok=True)
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:"]
            + [f"django=={VERSION}", "-d", str(CACHE)],
            check=True,
        )
        with tarfile.open(CACHE / f"django-{VERSION}.tar.gz") as tar:
            tar.extractall(CACHE, filter="data")
    return unpacked


@pytest.fixture(scope="module")
def django_index(request):
    from codeimpact.indexer.build import analyze
    from codeimpact.indexer.config import IndexConfig, RunOptions

    src = django_source()
    started = time.perf_counter()
    report = analyze(src, IndexConfig(), RunOptions(lock_wait=300))
    ROWS.append(("analyze (" + report.mode + ")", (time.perf_counter() - started) * 1e3, ""))
    index = Index.open(src)
    started = time.perf_counter()
    view = load_view(index)
    ROWS.append(
        (
            "graph view load (once per Index)",
            (time.perf_counter() - started) * 1e3,
            f"{view.n_nodes} symbols, {view.snapshot.n_edges} edges"
            + (", snapshot rebuilt from Kùzu" if view.rebuilt else ""),
        )
    )
    index.__dict__["_graph_view"] = view  # what Index.graph caches on first use
    request.config.pluginmanager.register(_Summary(), "codeimpact-bench-impact-summary")
    yield index
    index.close()


class _Summary:
    """Prints the figures after pytest-benchmark's own table."""

    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(self, terminalreporter):
        if not ROWS:
            return
        terminalreporter.section(
            f"impact on Django {VERSION} (median per call; budget {BUDGET_MS} ms)"
        )
        width = max(len(r[0]) for r in ROWS)
        for case, ms, note in ROWS:
            terminalreporter.write_line(f"{case:<{width}}  {ms:10.3f} ms  {note}")


def median_ms(benchmark) -> float:
    return benchmark.stats.stats.median * 1e3


@pytest.mark.parametrize("target", TARGETS)
def test_impact_depth3(benchmark, django_index, target):
    result = benchmark(django_index.impact, target, depth=3, check_freshness=False)
    c = result.counts
    ms = median_ms(benchmark)
    ROWS.append(
        (
            f"impact {target}",
            ms,
            f"{c.total} dependents ({c.direct} direct), {c.tests} tests, risk {result.risk.level}, "
            f"{result.completeness.status}" + ("" if ms <= BUDGET_MS else "  OVER BUDGET"),
        )
    )
    assert result.target.qualified_name or result.target.uid


@pytest.mark.parametrize("target", TARGETS[:3])
def test_impact_depth3_all_entries(benchmark, django_index, target):
    result = benchmark(django_index.impact, target, depth=3, limit=0, check_freshness=False)
    ms = median_ms(benchmark)
    listed = sum(len(g.entries) for g in result.groups)
    assert listed == result.counts.total
    ROWS.append(
        (f"impact {target} (all)", ms, f"{listed} entries, {len(result.tests)} tests listed")
    )


def test_blast_radius_of_the_targets(benchmark, django_index):
    uids = [django_index.resolve(t).symbol.uid for t in TARGETS]
    result = benchmark(django_index.blast_radius, uids, depth=3, check_freshness=False)
    ROWS.append(
        (
            f"blast-radius of {len(uids)} targets",
            median_ms(benchmark),
            f"{result.counts.total} dependents, {result.counts.test_files} test files",
        )
    )


def test_freshness_check(benchmark, django_index):
    state = benchmark.pedantic(freshness, args=(django_index,), rounds=5, iterations=1)
    ROWS.append(("freshness block (git status)", median_ms(benchmark), f"fresh={state.fresh}"))
