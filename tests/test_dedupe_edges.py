"""dedupe_edges (native/core_edges.c) keeps the edge `better` picks per (rel, src, dst) and
sorts as Python does, whatever the order the edges come in."""

from __future__ import annotations

import random

import pytest

from codeimpact.indexer.resolved import RELAY_REASON, Edge, _dedupe_edges, dedupe_edges
from codeimpact.native import _core


def _edges() -> list[Edge]:
    out = []
    rng = random.Random(7)
    srcs = ["a.py::f", "a.py::g", "b.py::C.m", "é.py::ünï", "a.py::f2", "a.py::", "z.py::日本"]
    dsts = [*srcs, "<external>::os.path.join", "a.py::f", "b.py::C"]
    reasons = [("scope", 1.0), ("import", 1.0), (RELAY_REASON, 0.7), ("local-type", 0.7),
               ("dispatch", 0.7), ("unique-name", 0.5)]  # fmt: skip
    for _ in range(3000):
        reason, conf = rng.choice(reasons)
        out.append(Edge(rng.choice(["CALLS", "REFERENCES"]), rng.choice(srcs), rng.choice(dsts),
                        conf, reason, rng.randint(1, 6)))  # fmt: skip
    return out


def test_same_edges_as_python_in_any_order():
    edges = _edges()
    want = _dedupe_edges(edges)
    assert len(want) < len(edges)  # (duplicates met at every level of `better`)
    for seed in range(5):
        shuffled = random.Random(seed).sample(edges, len(edges))
        got = dedupe_edges(shuffled)
        assert got == want
        assert [type(e) for e in got] == [Edge] * len(want)


def test_ties_broken_by_relay_line_then_reason():
    base = ("CALLS", "a.py::f", "a.py::g")
    relay = Edge(*base, 0.7, RELAY_REASON, 1)
    typed = Edge(*base, 0.7, "local-type", 9)
    early = Edge(*base, 0.7, "dispatch", 2)
    assert dedupe_edges([relay, typed]) == [typed]  # not a relay first
    assert dedupe_edges([typed, early]) == [early]  # then the earliest line
    assert dedupe_edges([Edge(*base, 0.7, "local-type", 2), early]) == [early]  # then reason
    assert dedupe_edges([Edge(*base, 0.5, "unique-name", 1), typed]) == [typed]


def test_not_edges_refused():
    with pytest.raises(TypeError):
        dedupe_edges([("CALLS", "a", "b")])
    with pytest.raises(TypeError):
        dedupe_edges([("CALLS", "a", 3, 1.0, "scope", 1)])


def test_many_keys_equal_strings_other_objects_and_calls_after():
    # thousands of distinct keys (past the table's first 1,024 slots), each met again as
    # fresh equal strings (resolvers make a string per mention), then a smaller call whose
    # keys a slot of the bigger one's would match: nothing carries over
    rng = random.Random(3)
    keys = [("CALLS", f"m{i % 97}.py::f{i}", f"x{i * 7 % 1013}.py::g") for i in range(4000)]
    edges = []
    for _ in range(3):
        for rel, src, dst in rng.sample(keys, len(keys)):
            edges.append(Edge("".join(rel), "".join(src), "".join(dst), rng.choice([1.0, 0.7]),
                              "scope", rng.randint(1, 9)))  # fmt: skip
    want = _dedupe_edges(edges)
    assert len(want) == len(keys)
    assert dedupe_edges(edges) == want
    small = [Edge("CALLS", "".join(k[1]), k[2], 0.5, "scope", 1) for k in keys[:10]]
    assert dedupe_edges(small) == _dedupe_edges(small)
    assert dedupe_edges([]) == []


def test_plain_tuples_in_edges_out():
    # (a resolver appends plain tuples of an Edge's fields: only the kept ones are made Edges)
    edges = _edges()
    plain = [tuple(e) for e in edges]
    mixed = [e if i % 2 else tuple(e) for i, e in enumerate(edges)]
    want = _dedupe_edges(edges)
    for given in (plain, mixed):
        got = dedupe_edges(given)
        assert got == want == _dedupe_edges(given)
        assert [type(e) for e in got] == [Edge] * len(want)
        assert [type(e) for e in _dedupe_edges(given)] == [Edge] * len(want)
    assert _core.dedupe_edges(plain, RELAY_REASON) == want  # (no type given: as they came)
    with pytest.raises(TypeError):
        _core.dedupe_edges(plain, RELAY_REASON, dict)
