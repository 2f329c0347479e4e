"""Full `graph analyze --force` of real projects (PyPI sdists): files/s, MB/s and peak memory.

Run: ``pytest benchmarks/bench_index.py --benchmark-only -s``. Each project is
indexed in a fresh interpreter (as a user runs it, extraction workers included),
so memory is the process's own peak: `peak RSS` is the analyzing process,
`worker RSS` the largest extraction worker (the figure `/usr/bin/time -v`
reports is the larger of the two). Throughput is over the Python source bytes
of every indexed file (all languages), timed by the run itself (interpreter start-up excluded).
The sdists come from `benchmarks/sources.py` (pip download into ``benchmarks/.cache/``, gitignored);
a project that cannot be downloaded is skipped. Targets (DESIGN.md section 8, 2 cores):
Django <= 15 s and <= 600 MB.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from sources import fresh_copy, sdist

PROJECTS = [("flask", "3.1.2"), ("django", "5.2.8")]

# Runs in the child: analyze in-process, then report the run and both peak RSS figures.
CHILD = """
import json, resource, sys
from codeimpact.indexer.build import analyze
from codeimpact.indexer.config import IndexConfig, RunOptions
from codeimpact.query.index import Index
report = analyze(sys.argv[1], IndexConfig(), RunOptions(force=True))
self_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
with Index.open(sys.argv[1]) as index:
    by_lang = index.query("MATCH (f:File) RETURN f.language, count(*), sum(f.size)").rows
print(json.dumps({
    "by_language": {lang: [int(n), int(size)] for lang, n, size in by_lang},
    "files": report.files, "seconds": report.seconds, "symbols": report.symbols,
    "edges": report.edges, "timings": report.timings,
    "self_kb": self_kb,
    "children_kb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
}))
"""


@pytest.mark.parametrize(("name", "version"), PROJECTS, ids=[n for n, _ in PROJECTS])
def test_index_sdist(benchmark, capsys, tmp_path, name, version):
    try:
        src = sdist(name, version)
    except Exception:
        pytest.skip(f"{name} {version} sdist not downloadable (offline?)")
    repo = fresh_copy(src, tmp_path / f"{name}-{version}")
    results: list[dict] = []

    def run() -> None:
        out = subprocess.run(
            [sys.executable, "-c", CHILD, str(repo)],
            capture_output=True, text=True, check=True, timeout=1800,
        )  # fmt: skip
        results.append(json.loads(out.stdout.strip().splitlines()[-1]))

    benchmark.pedantic(run, rounds=1, iterations=1, warmup_rounds=0)
    r = results[-1]
    mb = sum(size for _, size in r["by_language"].values()) / 1e6
    r.update(
        mb=round(mb, 2),
        files_per_s=round(r["files"] / r["seconds"], 1),
        mb_per_s=round(mb / r["seconds"], 2),
        peak_rss_mb=round(r["self_kb"] / 1024),
        worker_rss_mb=round(r["children_kb"] / 1024),
    )
    benchmark.extra_info.update(r)
    langs = ", ".join(f"{n} {lang}" for lang, (n, _) in sorted(r["by_language"].items()))
    with capsys.disabled():
        print(
            f"\n{name} {version}: {r['files']} files ({langs}), {r['mb']} MB in {r['seconds']:.2f} s -> "
            f"{r['files_per_s']} files/s, {r['mb_per_s']} MB/s; peak RSS {r['peak_rss_mb']} MB "
            f"(largest worker {r['worker_rss_mb']} MB); "
            + ", ".join(f"{k} {v:.2f}s" for k, v in r["timings"].items())
        )
    assert r["files"] > 0 and r["edges"]["CALLS"] > 0
