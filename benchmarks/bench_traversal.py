"""Native BFS vs a pure numpy BFS vs recursive Cypher in Kùzu, on synthetic power-law graphs.

Run: ``pytest benchmarks/bench_traversal.py --benchmark-only`` (a ratio table is printed
at the end). Graphs of 10k, 100k and 1M nodes, out-degrees power-law with a mean of
about 10 (fixed seed), targets drawn with power-law weights so hubs exist both ways.
Generated graphs (as CSR snapshots) and the loaded Kùzu databases are cached under
``benchmarks/.cache/`` (gitignored); delete it to regenerate.

Traversals, all forward (``src -> dst``):

- ``depth3``: five fixed sources, ``max_depth=3``, no filter;
- ``depth3-filtered``: same, only CALLS|IMPORTS edges with confidence >= 0.7;
- ``full``: unlimited depth from the node of highest out-degree.

The Cypher form is ``MATCH (a:N)-[:E* SHORTEST 1..D]->(b:N) WHERE a.id IN $src
RETURN DISTINCT b.id`` (with a relationship predicate for the filtered case). With
``SHORTEST`` Kùzu runs a frontier-based BFS and is much faster than the plain
``[:E*1..D]`` form, which enumerates walks (about 3x slower at depth 3 on 10k nodes
and hopeless beyond); ``D`` is 3, or 30 (Kùzu's default cap) for the full traversal,
which is above the eccentricity of the hub in these graphs (checked). Each form is
checked once to return the same node set as the native core. Queries are capped by
a Kùzu query timeout; a capped query is reported as a lower bound.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from codeimpact.graph.csr import (
    EDGE_TYPES,
    Snapshot,
    SnapshotMismatch,
    build_snapshot,
    load_snapshot,
    type_mask,
    write_snapshot,
)
from codeimpact.native.traversal import bfs

kuzu = pytest.importorskip("kuzu")

HERE = Path(__file__).resolve().parent
CACHE = HERE / ".cache"
SIZES = (10_000, 100_000, 1_000_000)
SEED = 20240611
GRAPH_VERSION = 1  # bump when the generator changes: it is the cached snapshot's generation
MEAN_DEGREE = 10
CYPHER_TIMEOUT_S = 60
FULL_DEPTH_CAP = 30

FILTER_TYPES = ("CALLS", "IMPORTS")
FILTER_MIN_CONF = 0.7
TRAVERSALS = ("depth3", "depth3-filtered", "full")


def _load_oracle():
    path = HERE.parent / "tests" / "oracle.py"
    spec = importlib.util.spec_from_file_location("codeimpact_bench_oracle", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


oracle = _load_oracle()


# --------------------------------------------------------------------------- graphs


def generate_edges(n: int, seed: int = SEED):
    """Power-law out-degrees (Pareto, shape 1.5) averaging ~MEAN_DEGREE; power-law targets."""
    rng = np.random.default_rng(seed + n)
    alpha = 1.5
    xm = MEAN_DEGREE * (alpha - 1) / alpha
    degree = np.floor((rng.pareto(alpha, n) + 1) * xm + 0.5).astype(np.int64)
    degree = np.minimum(degree, max(n // 20, 1))
    src = np.repeat(np.arange(n, dtype=np.int64), degree)
    m = src.shape[0]
    weight = rng.pareto(alpha, n) + 1
    dst = rng.choice(n, m, p=weight / weight.sum())
    etype = rng.choice(len(EDGE_TYPES), m, p=[0.5, 0.15, 0.05, 0.05, 0.15, 0.1]).astype(np.uint8)
    conf = rng.choice(np.array([1.0, 0.9, 0.8, 0.7, 0.5], dtype=np.float32), m)
    return src, dst, etype, conf


def graph_snapshot(n: int) -> Snapshot:
    folder = CACHE / f"graph-{n}-s{SEED}"
    try:
        return load_snapshot(folder, GRAPH_VERSION)
    except SnapshotMismatch:
        pass
    src, dst, etype, conf = generate_edges(n)
    write_snapshot(folder, build_snapshot(GRAPH_VERSION, n, src, dst, etype, conf))
    return load_snapshot(folder, GRAPH_VERSION)


def edge_table(snap: Snapshot) -> pa.Table:
    fwd = snap.forward
    src = np.repeat(np.arange(snap.n_nodes, dtype=np.int64), fwd.degree())
    return pa.table(
        {
            "from": src,
            "to": np.asarray(fwd.indices, dtype=np.int64),
            "t": np.asarray(fwd.edge_type, dtype=np.int64),
            "c": np.asarray(fwd.confidence, dtype=np.float64),
        }
    )


def kuzu_connection(n: int, snap: Snapshot):
    folder = CACHE / f"kuzu-{n}-s{SEED}-v{GRAPH_VERSION}"
    marker = folder / "ready.json"
    expected = {"n_nodes": snap.n_nodes, "n_edges": snap.n_edges, "kuzu": kuzu.__version__}
    if not (marker.is_file() and json.loads(marker.read_text()) == expected):
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        db = kuzu.Database(str(folder / "graph.kz"))
        conn = kuzu.Connection(db)
        conn.execute("CREATE NODE TABLE N(id INT64, PRIMARY KEY(id))")
        conn.execute("CREATE REL TABLE E(FROM N TO N, t INT64, c DOUBLE)")
        node_tbl = pa.table({"id": np.arange(n, dtype=np.int64)})  # noqa: F841 (scanned by COPY)
        edge_tbl = edge_table(snap)  # noqa: F841 (scanned by COPY)
        started = time.perf_counter()
        conn.execute("COPY N FROM node_tbl")
        conn.execute("COPY E FROM edge_tbl")
        load_s = time.perf_counter() - started
        conn.close()
        db.close()
        marker.write_text(json.dumps(expected))
        print(f"\nloaded {n:,} nodes / {snap.n_edges:,} edges into Kùzu in {load_s:.1f} s")
    db = kuzu.Database(str(folder / "graph.kz"), read_only=True)
    conn = kuzu.Connection(db)
    conn.set_query_timeout(CYPHER_TIMEOUT_S * 1000)
    return db, conn


class Case:
    """One synthetic graph with its queries, built lazily and shared by the benchmarks."""

    def __init__(self, n: int):
        self.n = n
        self.snap = graph_snapshot(n)
        degree = self.snap.forward.degree()
        self.hub = int(np.argmax(degree))
        rng = np.random.default_rng(SEED)
        self.sources = np.sort(rng.choice(np.flatnonzero(degree > 0), 5, replace=False))
        self._kuzu = None

    @property
    def kuzu(self):
        if self._kuzu is None:
            self._kuzu = kuzu_connection(self.n, self.snap)
        return self._kuzu[1]

    def query(self, traversal: str) -> dict:
        if traversal == "full":
            return {"sources": np.array([self.hub]), "max_depth": -1}
        query = {"sources": self.sources, "max_depth": 3}
        if traversal == "depth3-filtered":
            query.update(type_mask=type_mask(FILTER_TYPES), min_confidence=FILTER_MIN_CONF)
        return query

    def cypher(self, traversal: str) -> str:
        depth = FULL_DEPTH_CAP if traversal == "full" else 3
        pred = ""
        if traversal == "depth3-filtered":
            codes = ", ".join(str(EDGE_TYPES[t]) for t in FILTER_TYPES)
            pred = f" (r, _ | WHERE r.t IN [{codes}] AND r.c >= {FILTER_MIN_CONF})"
        return (
            f"MATCH (a:N)-[:E* SHORTEST 1..{depth}{pred}]->(b:N) "
            "WHERE a.id IN $src RETURN DISTINCT b.id"
        )

    def close(self) -> None:
        if self._kuzu is not None:
            db, conn = self._kuzu
            conn.close()
            db.close()
            self._kuzu = None


_CASES: dict[int, Case] = {}


@pytest.fixture(scope="session")
def cases():
    yield lambda n: _CASES.setdefault(n, Case(n))
    for case in _CASES.values():
        case.close()


# --------------------------------------------------------------------------- runners


def run_native(case: Case, traversal: str):
    q = case.query(traversal)
    return bfs(case.snap.forward, q.pop("sources"), **q).nodes


def run_numpy(case: Case, traversal: str):
    q = case.query(traversal)
    return oracle.bfs_numpy(case.snap.forward, q.pop("sources"), **q)[0]


def run_cypher(case: Case, traversal: str):
    q = case.query(traversal)
    result = case.kuzu.execute(case.cypher(traversal), {"src": q["sources"].tolist()})
    return result.get_as_arrow().column(0).to_numpy()


RUNNERS = {"native": run_native, "numpy": run_numpy, "cypher": run_cypher}
ROUNDS = {"native": None, "numpy": 3, "cypher": 3}  # None: let pytest-benchmark calibrate


def _median(benchmark, fallback: float) -> float:
    stats = getattr(benchmark, "stats", None)
    inner = getattr(stats, "stats", None)
    return float(inner.median) if inner is not None else fallback


@pytest.mark.parametrize("method", list(RUNNERS))
@pytest.mark.parametrize("traversal", TRAVERSALS)
@pytest.mark.parametrize("size", SIZES, ids=lambda n: f"{n // 1000}k")
def test_traversal(benchmark, cases, timings, bench_notes, size, traversal, method):
    case = cases(size)
    runner = RUNNERS[method]
    benchmark.group = f"{size:,} nodes, {traversal}"
    benchmark.extra_info.update(nodes=size, edges=case.snap.n_edges, traversal=traversal)

    # One checked run first: same node set as the native core, and a cap on slow forms.
    expected = set(run_native(case, traversal).tolist())
    started = time.perf_counter()
    try:
        got = runner(case, traversal)
    except RuntimeError as exc:  # Kùzu reports its query timeout as a RuntimeError
        if "timeout" not in str(exc).lower() and "interrupt" not in str(exc).lower():
            raise
        timings[(size, traversal, method)] = (float(CYPHER_TIMEOUT_S), True)
        bench_notes.append(f"{size:,} {traversal} {method}: capped at {CYPHER_TIMEOUT_S} s")
        pytest.skip(f"{method} exceeded the {CYPHER_TIMEOUT_S} s cap")
    first = time.perf_counter() - started
    got_set = set(got.tolist())
    if method == "cypher":
        got_set |= set(case.query(traversal)["sources"].tolist())
    assert got_set == expected, f"{method} disagrees with the native core"
    if method == "native":
        result = bfs(case.snap.forward, **case.query(traversal))
        assert traversal != "full" or int(result.depths.max()) < FULL_DEPTH_CAP
        bench_notes.append(
            f"{size:,} nodes / {case.snap.n_edges:,} edges: {traversal} reaches "
            f"{len(result):,} nodes, max depth {int(result.depths.max())}"
        )

    if ROUNDS[method] is None:
        benchmark(runner, case, traversal)
    else:
        benchmark.pedantic(runner, args=(case, traversal), rounds=ROUNDS[method], iterations=1)
    timings[(size, traversal, method)] = (_median(benchmark, first), False)
