"""The graph specification: every recorded fixture project indexes to the very same graph.

benchmarks/spec/fixtures.json.xz holds the small projects the test suite indexed at commit
71c6acd (captured by benchmarks/spec_capture.py) with the graph that code made of each
(benchmarks/graph_dump.py: every symbol, relation with its confidence and reason, and
unresolved call site). The redesign of the indexer keeps that graph fact for fact; an
intended change re-records the spec and says why in the commit (benchmarks/spec/README.md).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


sys.path.insert(0, str(BENCHMARKS))
import graph_dump  # noqa: E402 - benchmarks/ is no package

pytestmark = pytest.mark.slow  # Django / every fixture project: minutes of CPU

FIXTURES = graph_dump.load_fixtures() if graph_dump.FIXTURES.is_file() else {}


def test_the_spec_is_recorded():
    assert len(FIXTURES) >= 100, "benchmarks/spec/fixtures.json.xz is missing or short"
    languages = {ln.split("\t")[2] for fx in FIXTURES.values() for ln in fx["dump"]
                 if ln.startswith("F\t")}  # fmt: skip
    assert {"python", "typescript", "javascript", "go", "java", "rust"} <= languages


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_fixture_graph_is_unchanged(name, tmp_path):
    fx = FIXTURES[name]
    got = graph_dump.fixture_dump(fx["files"], tmp_path)
    cmp = graph_dump.compare(fx["dump"], got, show=15)
    assert cmp.identical, f"{name}\n{cmp.report()}\n" + "\n".join(cmp.examples)
