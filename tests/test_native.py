"""The native core against the plain-Python oracle, plus hand-written and bad-argument cases."""

from __future__ import annotations

import importlib.util
import sys
import threading
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codeimpact.graph.csr import CSR, build_csr
from codeimpact.native import _core
from codeimpact.native.traversal import (
    ALL_TYPES,
    BfsResult,
    bfs,
    cycles,
    native_version,
    shortest_path,
    strongly_connected_components,
    validate_csr,
)


def _load_oracle():
    spec = importlib.util.spec_from_file_location(
        "codeimpact_test_oracle", Path(__file__).with_name("oracle.py")
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


oracle = _load_oracle()


# --------------------------------------------------------------------------- helpers


def raw_csr(n: int, edges: list[tuple[int, int, int, float]]) -> SimpleNamespace:
    """A CSR keeping the given edge order inside each row (no sorting by neighbour)."""
    src = np.array([e[0] for e in edges], dtype=np.int64)
    order = np.argsort(src, kind="stable")
    indptr = np.zeros(n + 1, dtype=np.int64)
    if edges:
        np.cumsum(np.bincount(src, minlength=n), out=indptr[1:])
    return SimpleNamespace(
        indptr=indptr,
        indices=np.array([edges[i][1] for i in order], dtype=np.int32),
        edge_type=np.array([edges[i][2] for i in order], dtype=np.uint8),
        confidence=np.array([edges[i][3] for i in order], dtype=np.float32),
    )


def graph(n: int, edges: list[tuple[int, int]], etype: int = 0, conf: float = 1.0) -> CSR:
    forward, _ = build_csr(
        n,
        [e[0] for e in edges],
        [e[1] for e in edges],
        [etype] * len(edges),
        [conf] * len(edges),
    )
    return forward


def assert_bfs_equal(got: BfsResult, want) -> None:
    assert got.nodes.dtype == np.int64
    assert got.depths.dtype == np.int32
    assert got.parents.dtype == np.int64
    assert got.nodes.tolist() == want.nodes
    assert got.depths.tolist() == want.depths
    assert got.parents.tolist() == want.parents
    assert got.truncated == want.truncated


CONFIDENCES = [0.0, 0.5, 0.7, 0.8, 0.9, 1.0, float("nan"), 0.1, 0.30000001192092896]
TYPES = [0, 1, 2, 3, 4, 5, 6, 31, 32, 255]


@st.composite
def graphs(draw, max_n: int = 200):
    """Small graphs drawn edge by edge (they shrink well), larger ones from a numpy seed."""
    if draw(st.booleans()):
        n = draw(st.integers(0, 12))
        if n == 0:
            return 0, []
        node = st.integers(0, n - 1)
        edge = st.tuples(
            node,
            node,
            st.sampled_from(TYPES),
            st.one_of(st.sampled_from(CONFIDENCES), st.floats(0, 1, width=32)),
        )
        return n, draw(st.lists(edge, max_size=4 * n))
    n = draw(st.integers(1, max_n))
    m = draw(st.integers(0, min(4 * n, 800)))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    src = rng.integers(0, n, m)
    # Skewed targets so that hubs, duplicates and short cycles are common.
    dst = np.minimum((rng.pareto(1.0, m) * n / 8).astype(np.int64), n - 1)
    dst = np.where(rng.random(m) < 0.5, dst, rng.integers(0, n, m))
    types = rng.choice(TYPES, m, p=[0.3, 0.2, 0.1, 0.1, 0.1, 0.1, 0.04, 0.02, 0.02, 0.02])
    conf = np.where(
        rng.random(m) < 0.7,
        rng.choice(np.array(CONFIDENCES), m),
        rng.random(m).astype(np.float32),
    )
    edges = list(zip(src.tolist(), dst.tolist(), types.tolist(), conf.tolist(), strict=True))
    return n, edges


@st.composite
def queries(draw, n: int):
    sources = draw(st.lists(st.integers(0, n - 1), max_size=6)) if n else []
    mask = draw(st.sampled_from([ALL_TYPES, 0, 1, 0b11, 0b100101, 1 << 31, 0x7FFFFFFF]))
    if draw(st.booleans()):
        mask = draw(st.integers(0, ALL_TYPES))
    node_mask = None
    if n and draw(st.booleans()):
        node_mask = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
    return {
        "sources": sources,
        "max_depth": draw(st.sampled_from([-1, -5, 0, 1, 2, 3, 5, 1000])),
        "type_mask": mask,
        "min_confidence": draw(st.sampled_from([0.0, -1.0, 0.5, 0.7, 0.9, 1.0, 0.1, 1.5])),
        "node_mask": node_mask,
        "limit": draw(st.sampled_from([-1, 0, 1, 2, 5, 10, 50, 10_000])),
    }


PROPERTY = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --------------------------------------------------------------------------- properties


@PROPERTY
@given(data=st.data(), g=graphs(), sorted_rows=st.booleans())
def test_bfs_matches_oracle(data, g, sorted_rows):
    n, edges = g
    if sorted_rows:
        csr = build_csr(
            n,
            [e[0] for e in edges],
            [e[1] for e in edges],
            [e[2] for e in edges],
            [e[3] for e in edges],
        )[data.draw(st.integers(0, 1))]
    else:
        csr = raw_csr(n, edges)
    q = data.draw(queries(n))
    want = oracle.bfs_python(csr, **q)
    got = bfs(csr, **q)
    assert_bfs_equal(got, want)
    nodes, depths, parents, truncated = oracle.bfs_numpy(csr, **q)
    assert nodes.tolist() == want.nodes
    assert depths.tolist() == want.depths
    assert parents.tolist() == want.parents
    assert truncated == want.truncated


@PROPERTY
@given(data=st.data(), g=graphs())
def test_limit_is_a_prefix_of_the_unlimited_result(data, g):
    n, edges = g
    if n == 0:
        return
    csr = raw_csr(n, edges)
    q = data.draw(queries(n))
    q["limit"] = -1
    full = bfs(csr, **q)
    limit = data.draw(st.integers(0, n))
    capped = bfs(csr, **{**q, "limit": limit})
    k = len(capped)
    assert capped.nodes.tolist() == full.nodes[:k].tolist()
    assert capped.parents.tolist() == full.parents[:k].tolist()
    n_sources = int((full.depths == 0).sum())
    assert capped.truncated == (len(full) - n_sources > limit)


@PROPERTY
@given(data=st.data(), g=graphs())
def test_shortest_path_matches_oracle(data, g):
    n, edges = g
    if n == 0:
        return
    csr = raw_csr(n, edges)
    q = data.draw(queries(n))
    kwargs = {k: q[k] for k in ("type_mask", "min_confidence", "node_mask", "max_depth")}
    source = data.draw(st.integers(0, n - 1))
    target = data.draw(st.integers(0, n - 1))
    want = oracle.shortest_path_python(csr, source, target, **kwargs)
    got = shortest_path(csr, source, target, **kwargs)
    if want is None:
        assert got is None
    else:
        assert got is not None and got.dtype == np.int64
        assert got.tolist() == want


@PROPERTY
@given(data=st.data(), g=graphs(max_n=120))
def test_scc_matches_oracle(data, g):
    n, edges = g
    csr = raw_csr(n, edges)
    type_mask = data.draw(st.sampled_from([ALL_TYPES, 1, 0b110, 0]))
    min_conf = data.draw(st.sampled_from([0.0, 0.7, 1.0]))
    labels = strongly_connected_components(csr, type_mask=type_mask, min_confidence=min_conf)
    assert labels.dtype == np.int64
    assert labels.tolist() == oracle.scc_python(csr, type_mask=type_mask, min_confidence=min_conf)
    got = [c.tolist() for c in cycles(csr, type_mask=type_mask, min_confidence=min_conf)]
    assert got == oracle.cycles_python(csr, type_mask=type_mask, min_confidence=min_conf)


# --------------------------------------------------------------------------- hand-written cases


def test_version():
    assert native_version() == "0.1.0"


def test_chain():
    g = graph(5, [(0, 1), (1, 2), (2, 3), (3, 4)])
    r = bfs(g, 0)
    assert r.nodes.tolist() == [0, 1, 2, 3, 4]
    assert r.depths.tolist() == [0, 1, 2, 3, 4]
    assert r.parents.tolist() == [-1, 0, 1, 2, 3]
    assert not r.truncated
    assert bfs(g, [0], max_depth=2).nodes.tolist() == [0, 1, 2]
    assert bfs(g, [0], max_depth=0).nodes.tolist() == [0]
    assert bfs(g, [4]).nodes.tolist() == [4]
    capped = bfs(g, [0], limit=2)
    assert capped.nodes.tolist() == [0, 1, 2] and capped.truncated
    exact = bfs(g, [0], limit=4)
    assert len(exact) == 5 and not exact.truncated
    assert shortest_path(g, 0, 4).tolist() == [0, 1, 2, 3, 4]
    assert shortest_path(g, 0, 4, max_depth=3) is None
    assert shortest_path(g, 4, 0) is None
    assert shortest_path(g, 2, 2).tolist() == [2]


def test_diamond_first_discovery_wins():
    # 0 -> 1, 0 -> 2, 1 -> 3, 2 -> 3: node 3 is reached first through 1.
    g = graph(4, [(0, 2), (2, 3), (0, 1), (1, 3)])
    r = bfs(g, [0])
    assert r.nodes.tolist() == [0, 1, 2, 3]
    assert r.depths.tolist() == [0, 1, 1, 2]
    assert r.parents.tolist() == [-1, 0, 0, 1]
    assert shortest_path(g, 0, 3).tolist() == [0, 1, 3]
    excluded = np.array([1, 0, 1, 1], dtype=np.uint8)
    r = bfs(g, [0], node_mask=excluded)
    assert r.nodes.tolist() == [0, 2, 3] and r.parents.tolist() == [-1, 0, 2]
    assert shortest_path(g, 0, 3, node_mask=excluded).tolist() == [0, 2, 3]


def test_cycle_and_self_loop():
    g = graph(5, [(0, 1), (1, 2), (2, 0), (3, 3), (2, 4)])
    r = bfs(g, [1])
    assert r.nodes.tolist() == [1, 2, 0, 4]
    assert r.parents.tolist() == [-1, 1, 2, 2]
    assert strongly_connected_components(g).tolist() == [0, 0, 0, 1, 2]
    assert [c.tolist() for c in cycles(g)] == [[0, 1, 2], [3]]
    assert bfs(g, [3]).nodes.tolist() == [3]


def test_multi_source_dedup_and_masked_sources():
    g = graph(4, [(0, 1), (2, 3), (1, 3)])
    mask = np.array([0, 1, 0, 1], dtype=bool)
    r = bfs(g, [2, 0, 2, 0], node_mask=mask)
    assert r.nodes.tolist() == [2, 0, 3, 1]
    assert r.depths.tolist() == [0, 0, 1, 1]
    assert r.parents.tolist() == [-1, -1, 2, 0]


def test_type_and_confidence_filters():
    fwd, _ = build_csr(4, [0, 0, 0], [1, 2, 3], [0, 1, 40], [1.0, 0.5, 1.0])
    assert bfs(fwd, 0, type_mask=0b01).nodes.tolist() == [0, 1]
    assert bfs(fwd, 0, type_mask=0b10).nodes.tolist() == [0, 2]
    assert bfs(fwd, 0).nodes.tolist() == [0, 1, 2]  # code 40 never matches a uint32 mask
    assert bfs(fwd, 0, min_confidence=0.6).nodes.tolist() == [0, 1]
    assert bfs(fwd, 0, min_confidence=0.5).nodes.tolist() == [0, 1, 2]
    assert bfs(fwd, 0, type_mask=0).nodes.tolist() == [0]


def test_confidence_compared_in_double_precision():
    fwd, _ = build_csr(2, [0], [1], [0], [0.1])  # float32(0.1) == 0.10000000149...
    assert len(bfs(fwd, 0, min_confidence=0.1)) == 2
    assert len(bfs(fwd, 0, min_confidence=float(np.float32(0.1)))) == 2
    assert len(bfs(fwd, 0, min_confidence=np.nextafter(float(np.float32(0.1)), 1.0))) == 1


def test_isolated_nodes_and_empty_graph():
    g = graph(3, [])
    assert bfs(g, [1]).nodes.tolist() == [1]
    assert strongly_connected_components(g).tolist() == [0, 1, 2]
    assert cycles(g) == []
    empty = CSR.empty(0)
    r = bfs(empty, [])
    assert len(r) == 0 and not r.truncated and r.nodes.dtype == np.int64
    assert strongly_connected_components(empty).tolist() == []
    assert cycles(empty) == []
    with pytest.raises(ValueError):
        bfs(empty, [0])
    with pytest.raises(ValueError):
        shortest_path(empty, 0, 0)
    assert len(bfs(g, [])) == 0


def test_read_only_and_strided_inputs():
    g = graph(4, [(0, 1), (1, 2), (2, 3)])
    for arr in (g.indptr, g.indices, g.edge_type, g.confidence):
        arr.flags.writeable = False
    assert bfs(g, [0]).nodes.tolist() == [0, 1, 2, 3]
    strided = SimpleNamespace(
        indptr=np.repeat(g.indptr, 2)[::2],
        indices=np.repeat(g.indices, 2)[::2],
        edge_type=np.repeat(g.edge_type, 2)[::2],
        confidence=np.repeat(g.confidence, 2)[::2],
    )
    assert not strided.indices.flags.c_contiguous
    assert bfs(strided, np.array([0, 0, 1])[::2]).nodes.tolist() == [0, 1, 2, 3]
    mask = np.ones(8, dtype=bool)[::2]
    assert bfs(g, [0], node_mask=mask).nodes.tolist() == [0, 1, 2, 3]


def test_large_chain_scc_has_no_recursion_limit():
    n = 200_000
    src = np.arange(n, dtype=np.int64)
    dst = (src + 1) % n  # one big cycle
    fwd, rev = build_csr(n, src, dst, np.zeros(n, np.uint8), np.ones(n, np.float32))
    labels = strongly_connected_components(fwd)
    assert (labels == 0).all()
    r = bfs(rev, [0])
    assert len(r) == n and int(r.depths[-1]) == n - 1
    assert shortest_path(fwd, 0, n - 1).shape == (n,)


def test_gil_released_threads_agree():
    rng = np.random.default_rng(7)
    n, m = 20_000, 200_000
    fwd, _ = build_csr(
        n, rng.integers(0, n, m), rng.integers(0, n, m), rng.integers(0, 6, m), rng.random(m)
    )
    want = bfs(fwd, [0, 1, 2])
    results: list[BfsResult] = []

    def work():
        results.append(bfs(fwd, [0, 1, 2]))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 4
    for r in results:
        assert np.array_equal(r.nodes, want.nodes) and np.array_equal(r.parents, want.parents)


def test_reused_visit_marks_stay_correct():
    """The visit-mark buffer is reused between calls (stamped, zeroed when the stamp
    wraps); results must not depend on what ran before."""
    small = graph(6, [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)])
    rng = np.random.default_rng(3)
    n = 3000
    big, _ = build_csr(
        n, rng.integers(0, n, 9000), rng.integers(0, n, 9000), [0] * 9000, [1.0] * 9000
    )
    want_small = bfs(small, [0]).nodes.tolist()
    want_big = bfs(big, [0, 1]).nodes.tolist()
    want_path = shortest_path(small, 0, 5).tolist()
    for i in range(700):  # crosses several wrap-arounds of the 8-bit stamp
        assert bfs(small, [0]).nodes.tolist() == want_small
        if i % 7 == 0:
            assert bfs(big, [0, 1]).nodes.tolist() == want_big
        if i % 5 == 0:
            assert shortest_path(small, 0, 5).tolist() == want_path


# --------------------------------------------------------------------------- bad arguments


def good_arrays():
    g = graph(3, [(0, 1), (1, 2)])
    return SimpleNamespace(
        indptr=g.indptr.copy(),
        indices=g.indices.copy(),
        edge_type=g.edge_type.copy(),
        confidence=g.confidence.copy(),
    )


@pytest.mark.parametrize(
    "field,value",
    [
        ("indptr", np.array([0, 1, 2, 2], dtype=np.int32)),
        ("indptr", np.array([0, 1, 2, 2], dtype=np.float64)),
        ("indices", np.array([1, 2], dtype=np.int64)),
        ("indices", np.array([1, 2], dtype=np.uint32)),
        ("edge_type", np.array([0, 0], dtype=np.int8)),
        ("confidence", np.array([1, 1], dtype=np.float64)),
        ("indices", [1, 2]),
        ("indptr", np.array([[0, 1, 2, 2]], dtype=np.int64)),
        ("indptr", np.array([], dtype=np.int64)),
        ("indptr", np.array([0, 1, 2, 3], dtype=np.int64)),  # indptr[-1] != nnz
        ("indptr", np.array([1, 1, 2, 2], dtype=np.int64)),  # indptr[0] != 0
        ("indptr", np.array([0, 2, 1, 2], dtype=np.int64)),  # not monotonic
        ("indices", np.array([1, 3], dtype=np.int32)),  # out of range
        ("indices", np.array([-1, 2], dtype=np.int32)),
        ("edge_type", np.array([0], dtype=np.uint8)),  # wrong length
        ("confidence", np.array([1, 1, 1], dtype=np.float32)),
    ],
)
def test_bad_csr_raises_value_error(field, value):
    csr = good_arrays()
    setattr(csr, field, value)
    with pytest.raises(ValueError):
        validate_csr(csr)
    # Every traversal rejects it as well: upfront, or lazily as soon as the bad entry is
    # read (sources cover every node, and SCC reads every row).
    with pytest.raises(ValueError):
        bfs(csr, [0, 1, 2])
    with pytest.raises(ValueError):
        strongly_connected_components(csr)
    converted_by_csr = (
        field == "indices" and isinstance(value, np.ndarray) and value.dtype.kind in "iu"
    )
    if not converted_by_csr or int(value.min()) < 0 or int(value.max()) >= 3:
        with pytest.raises(ValueError):
            CSR(csr.indptr, csr.indices, csr.edge_type, csr.confidence)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"sources": [3]},
        {"sources": [-1]},
        {"sources": [0.5]},
        {"sources": [[0, 1]]},
        {"sources": np.array([True])},
        {"sources": [0], "node_mask": np.ones(2, dtype=bool)},
        {"sources": [0], "node_mask": np.ones(3, dtype=np.int64)},
        {"sources": [0], "node_mask": [1, 1, 1]},
        {"sources": [0], "type_mask": -1},
        {"sources": [0], "type_mask": 1 << 32},
        {"sources": [0], "type_mask": 1.0},
        {"sources": [0], "min_confidence": float("nan")},
        {"sources": [0], "min_confidence": "high"},
        {"sources": [0], "max_depth": 1.5},
        {"sources": [0], "limit": None},
        {"sources": [0], "limit": 1 << 80},
    ],
)
def test_bad_query_arguments_raise_value_error(kwargs):
    csr = good_arrays()
    with pytest.raises(ValueError):
        bfs(csr, **kwargs)


def test_shortest_path_bad_arguments():
    csr = good_arrays()
    for s, t in [(0, 3), (-1, 0), (0, 1.0)]:
        with pytest.raises(ValueError):
            shortest_path(csr, s, t)
    with pytest.raises(ValueError):
        shortest_path(csr, 0, 1, node_mask=np.ones(4, dtype=bool))
    with pytest.raises(ValueError):
        strongly_connected_components(csr, type_mask=-3)
    with pytest.raises(ValueError):
        bfs(object(), [0])


def test_core_validates_on_its_own():
    """Direct calls into _core with bad buffers raise ValueError, never crash."""
    c = good_arrays()
    arrays = (c.indptr, c.indices, c.edge_type, c.confidence)
    out = (np.empty(3, np.int64), np.empty(3, np.int32), np.empty(3, np.int64))

    def call_bfs(*csr, sources=None, nmask=None, limit=-1, outs=out, tmask=ALL_TYPES, conf=0.0):
        if sources is None:
            sources = np.array([0])
        return _core.bfs(*csr, sources, -1, tmask, conf, nmask, limit, *outs)

    assert call_bfs(*arrays) == (3, False)
    bad_cases = [
        lambda: call_bfs(c.indptr.astype(np.int32), *arrays[1:]),
        lambda: call_bfs(c.indptr, c.indices.astype(np.int64), *arrays[2:]),
        lambda: call_bfs(c.indptr, c.indices, c.edge_type.astype(np.float32), c.confidence),
        lambda: call_bfs(c.indptr, c.indices, c.edge_type, c.confidence.astype(np.float64)),
        lambda: call_bfs(c.indptr[:-1], *arrays[1:]),
        lambda: call_bfs(np.array([0, 1, 2, 9], np.int64), *arrays[1:]),
        lambda: call_bfs(np.array([0, 9, 1, 2], np.int64), *arrays[1:]),
        lambda: call_bfs(c.indptr, np.array([1, 7], np.int32), *arrays[2:]),
        lambda: call_bfs(c.indptr, np.array([1, -5], np.int32), *arrays[2:]),
        lambda: call_bfs(c.indptr, c.indices, c.edge_type[:1], c.confidence),
        lambda: call_bfs(np.repeat(c.indptr, 2)[::2], *arrays[1:]),
        lambda: call_bfs(*arrays, sources=np.array([5])),
        lambda: call_bfs(*arrays, sources=np.array([0], np.int32)),
        lambda: call_bfs(*arrays, sources=[0]),
        lambda: call_bfs(*arrays, nmask=np.ones(2, np.uint8)),
        lambda: call_bfs(*arrays, nmask=np.ones(3, np.int64)),
        lambda: call_bfs(*arrays, outs=(np.empty(2, np.int64),) + out[1:]),
        lambda: call_bfs(*arrays, outs=(out[0], np.empty(3, np.int64), out[2])),
        lambda: call_bfs(*arrays, outs=(np.zeros(3, np.int64)[::1].copy().view(np.int64),) * 3),
        lambda: call_bfs(*arrays, outs=(bytes(24), out[1], out[2])),
        lambda: call_bfs(*arrays, outs=(out[0], out[1], out[0])),  # aliased outputs
        lambda: call_bfs(*arrays, sources=out[0][:1], outs=out),  # output aliases an input
        lambda: _core.strongly_connected_components(
            *arrays, ALL_TYPES, 0.0, np.empty(3, np.int64), c.edge_type.view(np.uint8)
        ),
        lambda: call_bfs(*arrays, tmask=-1),
        lambda: call_bfs(*arrays, tmask=1 << 40),
        lambda: call_bfs(*arrays, conf=float("nan")),
        lambda: call_bfs(*arrays, conf="x"),
        lambda: call_bfs(*arrays, limit=1.5),
        lambda: call_bfs(*arrays, limit=1 << 70),
        lambda: _core.shortest_path(*arrays, 0, 7, -1, ALL_TYPES, 0.0, None),
        lambda: _core.shortest_path(*arrays, 0, 1, -1, ALL_TYPES, 0.0, np.ones(9, np.uint8)),
        lambda: _core.shortest_path(
            c.indptr, np.array([1, 7], np.int32), *arrays[2:], 0, 2, -1, ALL_TYPES, 0.0, None
        ),
        lambda: _core.strongly_connected_components(
            *arrays, ALL_TYPES, 0.0, np.empty(2, np.int64), np.empty(3, np.uint8)
        ),
        lambda: _core.strongly_connected_components(
            c.indptr,
            np.array([1, 7], np.int32),
            *arrays[2:],
            ALL_TYPES,
            0.0,
            np.empty(3, np.int64),
            np.empty(3, np.uint8),
        ),
        lambda: _core.validate_csr(c.indptr, np.array([1, 7], np.int32), *arrays[2:]),
        lambda: _core.validate_csr(np.array([0, 2, 1, 2], np.int64), *arrays[1:]),
        lambda: _core.validate_csr(np.ones((2, 2), np.int64), *arrays[1:]),
    ]
    for i, case in enumerate(bad_cases):
        with pytest.raises(ValueError):
            case()
            pytest.fail(f"case {i} did not raise")
    ro = np.empty(3, np.int64)
    ro.flags.writeable = False
    with pytest.raises(ValueError):
        call_bfs(*arrays, outs=(ro, out[1], out[2]))
