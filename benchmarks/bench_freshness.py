"""The freshness check of every query, on Django 5.2.8, beside the check it replaced.

Run: ``flock /work/wt/.bench.lock pytest benchmarks/bench_freshness.py --benchmark-only -s``
(a table of ratios is printed at the end). Two copies of the Django sdist are indexed
in a temp folder: one as unpacked (no git) and one committed to a new git repository.

Rows, per copy, each the median of several calls on an open index:
- ``old``: the check before the stat signature (the same index with its signature
  hidden): one ``git status`` plus the hashes of the files it lists, or outside git
  every indexable file hashed;
- ``stat``: one stat pass over the signature (an index opened for one query);
- ``watch``: an index kept open: inotify events since the last stat pass;
- ``impact``: ``Index.impact`` at depth 3 on the kept index, freshness included (the
  figure the issue sets at <= 30 ms).
Ratios are against ``old`` in the same run; CPU time (user+sys, this process and its
git children) is printed beside the wall time, as the machine is shared.
"""

from __future__ import annotations

import resource
import shutil
import statistics
import subprocess
import time

import pytest
from bench_impact import django_source

from codeimpact.indexer.build import analyze
from codeimpact.indexer.config import IndexConfig, RunOptions
from codeimpact.query.freshness import TreeWatch, freshness, tree_watch
from codeimpact.query.index import Index

TARGET = "django.db.models.query.QuerySet.filter"
ROUNDS = 9
ROWS: list[tuple[str, float, float, str]] = []  # (case, wall ms, cpu ms, note)


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def measure(fn, rounds: int = ROUNDS) -> tuple[float, float, object]:
    """Median wall ms and median CPU ms of `rounds` calls; the last result."""
    walls, cpus = [], []
    result = None
    for _ in range(rounds):
        c0, t0 = _cpu(), time.perf_counter()
        result = fn()
        walls.append(time.perf_counter() - t0)
        cpus.append(_cpu() - c0)
    return statistics.median(walls) * 1e3, statistics.median(cpus) * 1e3, result


@pytest.fixture(scope="module")
def copies(tmp_path_factory, request):
    src = django_source()
    root = tmp_path_factory.mktemp("fresh")
    plain = root / "django"
    shutil.copytree(src, plain, ignore=shutil.ignore_patterns(".codeimpact"))
    in_git = root / "django-git"
    shutil.copytree(src, in_git, ignore=shutil.ignore_patterns(".codeimpact"))
    env_git = ["git", "-C", str(in_git), "-c", "user.name=b", "-c", "user.email=b@b"]
    subprocess.run([*env_git, "init", "-q"], check=True)
    subprocess.run([*env_git, "add", "-A"], check=True)
    subprocess.run([*env_git, "commit", "-q", "-m", "django"], check=True)
    for repo in (plain, in_git):
        analyze(repo, IndexConfig(), RunOptions(lock_wait=300))
    request.config.pluginmanager.register(_Summary(), "codeimpact-bench-freshness-summary")
    return {"no git": plain, "git": in_git}


class _Summary:
    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(self, terminalreporter):
        if not ROWS:
            return
        terminalreporter.section("freshness on Django 5.2.8 (median per call; ratio vs old)")
        width = max(len(r[0]) for r in ROWS)
        for case, wall, cpu, note in ROWS:
            terminalreporter.write_line(
                f"{case:<{width}}  {wall:9.2f} ms wall  {cpu:9.2f} ms cpu  {note}"
            )


@pytest.mark.parametrize("kind", ["no git", "git"])
def test_freshness_side_by_side(copies, kind):
    repo = copies[kind]
    with Index.open(repo) as old, Index.open(repo) as kept:
        # the old check: the same index without its signature
        old.reader.meta = {k: v for k, v in old.meta.items() if k != "tree_signature"}
        old_wall, old_cpu, before = measure(lambda: freshness(old), rounds=5)
        assert before.method in ("git-status", "rehash")

        config = tree_watch(kept, IndexConfig()).config

        def stat_pass():
            # an index opened for one query: a new TreeWatch, so nothing is watched yet
            kept.tree_watch = TreeWatch(kept.tree_watch.check, config)
            return freshness(kept)

        stat_wall, stat_cpu, by_stat = measure(stat_pass)
        assert by_stat.method == "stat" and by_stat.fresh == before.fresh
        kept.tree_watch = TreeWatch(kept.tree_watch.check, config)
        freshness(kept)
        freshness(kept)  # the watch starts at the second query
        watch_wall, watch_cpu, by_watch = measure(lambda: freshness(kept))
        kept.graph  # noqa: B018 - the graph view, loaded once per index
        impact_wall, impact_cpu, result = measure(lambda: kept.impact(TARGET, depth=3))

    sig = kept.tree_watch
    ROWS.append((f"{kind}: old ({before.method})", old_wall, old_cpu, "1x"))
    ROWS.append(
        (f"{kind}: stat", stat_wall, stat_cpu, f"{old_wall / stat_wall:.0f}x faster (wall)")
    )
    ROWS.append(
        (
            f"{kind}: {by_watch.method}",
            watch_wall,
            watch_cpu,
            f"{old_wall / max(watch_wall, 1e-6):.0f}x faster (wall)",
        )
    )
    ROWS.append(
        (
            f"{kind}: impact depth 3 + freshness",
            impact_wall,
            impact_cpu,
            f"freshness by {result.freshness.method}; budget 30 ms"
            + ("" if impact_wall <= 30 else "  OVER BUDGET"),
        )
    )
    assert sig is None or result.freshness.fresh == before.fresh
