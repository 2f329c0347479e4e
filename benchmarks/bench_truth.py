"""Accuracy against real test suites: CALLS recall on executed edges and tests to run.

    pytest benchmarks/bench_truth.py --benchmark-only -s -k flask
    pytest benchmarks/bench_truth.py --benchmark-only -s -k corpus

Scores this checkout's index of Flask 3.1.3 / Click 8.5.1 / Jinja2 3.1.6 against the
traced truth kept in `truth/data/` (`trace_suite.py trace NAME` makes it again, which
runs the project's own suite and needs PyPI for its virtualenv; set TRUTH_RETRACE=1 to
trace before scoring). The timing pytest-benchmark records is the index + score, one
round; the figures are what matters, printed as tables (see truth/score_*.py). `corpus`
indexes each case of tests/lang/python/corpus and prints precision/recall per construct.
"""

from __future__ import annotations

import os

import pytest
from trace_suite import main, truth_path
from truth.projects import PROJECTS


@pytest.mark.parametrize("name", sorted(PROJECTS))
def test_truth(benchmark, name):
    if not os.environ.get("TRUTH_RETRACE") and not truth_path(PROJECTS[name]).is_file():
        pytest.skip(f"no traced truth for {name}: run trace_suite.py trace {name}")
    command = "run" if os.environ.get("TRUTH_RETRACE") else "score"
    benchmark.pedantic(main, args=([command, name],), rounds=1, iterations=1)


def test_corpus(benchmark):
    """The resolution corpus (tests/lang/python/corpus): precision and recall per construct."""
    from score_corpus import main as corpus_main

    benchmark.pedantic(corpus_main, args=(["score"],), rounds=1, iterations=1)
