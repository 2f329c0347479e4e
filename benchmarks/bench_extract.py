"""Issue 9: Python extraction alone, in one process, against parsing the same files.

CPU seconds (time.process_time, so other load on the machine counts less than in
wall time) of tree-sitter parsing every Django .py file, of parsing plus running
the extraction query, and of the whole `extract` (to the cached blob). Each file
is timed a few times in turn and its fastest run kept. What extraction costs on
top of parsing is the part the extractor can change.

    pytest benchmarks/bench_extract.py --benchmark-only -s
"""

from __future__ import annotations

import gc
import time
from functools import cache
from pathlib import Path

import pytest
import tree_sitter as ts
from sources import sdist
from tree_sitter_language_pack import get_language

from codeimpact.indexer.lang.python import extract as py
from codeimpact.indexer.lang.queries import query_text
from codeimpact.native.runner import native_syntax

REPEATS = 3


@pytest.fixture(scope="module")
def sources() -> list[bytes]:
    try:
        root = sdist("django", "5.2.8")
    except Exception as e:  # offline: nothing to measure
        pytest.skip(f"cannot fetch the Django sdist: {e}")
    return [p.read_bytes() for p in sorted(Path(root).rglob("*.py"))]


def _parse(source: bytes) -> None:
    py._parser().parse(source)


@cache
def _query():
    """queries.scm compiled by the native runner (its matches as Node tuples), or by
    py-tree-sitter when the native path does not run."""
    text = query_text(py.__package__, "queries.scm")
    ext = native_syntax()
    if ext is None:
        return lambda root: ts.QueryCursor(ts.Query(get_language("python"), text)).matches(root)
    return ext.Query(get_language("python"), text).matches


def _parse_and_match(source: bytes) -> None:
    _query()(py._parser().parse(source).root_node)


def _extract(source: bytes) -> None:
    py.extract(source).to_bytes()


STEPS = {"parse": _parse, "parse + query": _parse_and_match, "extract": _extract}


def cpu_seconds(sources: list[bytes]) -> dict[str, float]:
    """Per step, the sum over files of each file's fastest of REPEATS runs."""
    total = dict.fromkeys(STEPS, 0.0)
    clock = time.process_time
    for source in sources:
        for name, step in STEPS.items():
            best = float("inf")
            for _ in range(REPEATS):
                t0 = clock()
                step(source)
                best = min(best, clock() - t0)
            total[name] += best
    return total


def test_python_extraction_cpu(benchmark, sources):
    for source in sources[:20]:  # grammar, query and caches warm
        _extract(source)
    was = gc.isenabled()
    gc.disable()  # as in `graph analyze`, which runs with the cyclic GC paused
    try:
        results = []
        benchmark.pedantic(lambda: results.append(cpu_seconds(sources)), rounds=1, iterations=1)
    finally:
        if was:
            gc.enable()
    t = results[0]
    parse = t["parse"]
    print(f"\n== Python extraction of Django 5.2.8 ({len(sources)} .py files), CPU seconds ==")
    for name, seconds in t.items():
        print(f"{name:>14}: {seconds:.2f} s ({seconds / parse:.2f}x parse)")
    print(f"{'beyond parse':>14}: {t['extract'] - parse:.2f} s")
    assert t["extract"] > 0
