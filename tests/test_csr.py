"""CSR building and the on-disk snapshot: round trip, memory maps, generation and partial writes."""

from __future__ import annotations

import json

import numpy as np
import pytest

from codeimpact.graph.csr import (
    CSR,
    EDGE_TYPES,
    FLAG_TEST,
    KIND_CODES,
    Snapshot,
    SnapshotMismatch,
    build_csr,
    build_snapshot,
    load_snapshot,
    type_mask,
    write_snapshot,
)
from codeimpact.native.traversal import bfs


def sample_snapshot(generation: int = 3) -> Snapshot:
    # 0 -CALLS-> 1, 0 -IMPORTS-> 2, 1 -CALLS-> 2 (0.5), 3 -EXTENDS-> 0, 2 -CALLS-> 2
    src = [1, 0, 0, 3, 2]
    dst = [2, 2, 1, 0, 2]
    etype = [EDGE_TYPES[t] for t in ("CALLS", "IMPORTS", "CALLS", "EXTENDS", "CALLS")]
    conf = [0.5, 1.0, 1.0, 0.9, 1.0]
    flags = [0, FLAG_TEST, 0, 0, 0]
    kind = [KIND_CODES[k] for k in ("module", "function", "function", "class", "external")]
    return build_snapshot(generation, 5, src, dst, etype, conf, flags, kind)


def test_codes_and_type_mask():
    assert EDGE_TYPES == {
        "CALLS": 0,
        "IMPORTS": 1,
        "EXTENDS": 2,
        "IMPLEMENTS": 3,
        "REFERENCES": 4,
        "CONTAINS": 5,
    }
    assert set(KIND_CODES) == {
        "module",
        "class",
        "interface",
        "trait",
        "struct",
        "enum",
        "function",
        "method",
        "variable",
        "type_alias",
        "external",
    }
    assert len(set(KIND_CODES.values())) == len(KIND_CODES)
    assert type_mask(["CALLS", "IMPORTS"]) == 0b11
    assert type_mask("references") == 1 << 4
    assert type_mask([]) == 0
    with pytest.raises(ValueError):
        type_mask(["CALLZ"])


def test_build_csr_layout():
    snap = sample_snapshot()
    fwd, rev = snap.forward, snap.reverse
    assert fwd.indptr.dtype == np.int64 and fwd.indices.dtype == np.int32
    assert fwd.edge_type.dtype == np.uint8 and fwd.confidence.dtype == np.float32
    assert fwd.indptr.tolist() == [0, 2, 3, 4, 5, 5]
    # Row 0 sorted by neighbour: (0->1 CALLS), (0->2 IMPORTS).
    assert fwd.indices.tolist() == [1, 2, 2, 2, 0]
    assert fwd.edge_type.tolist() == [0, 1, 0, 0, 2]
    assert fwd.confidence.tolist() == pytest.approx([1.0, 1.0, 0.5, 1.0, 0.9])
    assert rev.indptr.tolist() == [0, 1, 2, 5, 5, 5]
    assert rev.indices.tolist() == [3, 0, 0, 1, 2]
    assert rev.edge_type.tolist() == [2, 0, 1, 0, 0]
    assert snap.csr("upstream") is rev and snap.csr("downstream") is fwd
    assert snap.is_test().tolist() == [False, True, False, False, False]
    assert snap.non_test_mask().tolist() == [1, 0, 1, 1, 1]
    with pytest.raises(ValueError):
        snap.csr("sideways")


def test_build_csr_is_independent_of_input_order():
    rng = np.random.default_rng(1)
    n, m = 50, 400
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    et, conf = rng.integers(0, 6, m), rng.choice([0.5, 0.7, 1.0], m)
    a = build_csr(n, src, dst, et, conf)
    perm = rng.permutation(m)
    b = build_csr(n, src[perm], dst[perm], et[perm], conf[perm])
    for x, y in zip(a, b, strict=True):
        for field in ("indptr", "indices", "edge_type", "confidence"):
            assert np.array_equal(getattr(x, field), getattr(y, field))
    fwd, rev = a
    # Every forward edge appears once in reverse, and rows are sorted by neighbour.
    fwd_edges = sorted(
        zip(np.repeat(np.arange(n), fwd.degree()).tolist(), fwd.indices.tolist(), strict=True)
    )
    rev_edges = sorted(
        zip(rev.indices.tolist(), np.repeat(np.arange(n), rev.degree()).tolist(), strict=True)
    )
    assert fwd_edges == rev_edges
    for u in range(n):
        row = fwd.neighbors(u)
        assert np.all(np.diff(row) >= 0)


def test_build_csr_of_sorted_unique_edges_skips_the_sort_and_gives_the_same_arrays():
    """The index state's edges come sorted by (src, dst, type) with no triple twice: the
    short path (no forward sort, one backward argsort) must give build_csr's arrays."""
    from codeimpact.indexer.state import decode_codes, encode_codes

    rng = np.random.default_rng(7)
    n, m = 300, 5000
    codes = np.unique(encode_codes(rng.integers(0, n, m), rng.integers(0, n, m),
                                   rng.integers(0, 6, m)))  # fmt: skip
    src, dst, et = decode_codes(codes)
    conf = rng.choice([0.5, 0.7, 1.0], codes.size).astype(np.float32)
    slow = build_csr(n, src, dst, et, conf)
    fast = build_csr(n, src, dst, et, conf, sorted_unique=True)
    for x, y in zip(slow, fast, strict=True):
        for field in ("indptr", "indices", "edge_type", "confidence"):
            assert np.array_equal(getattr(x, field), getattr(y, field)), field


def test_build_csr_rejects_bad_edges():
    with pytest.raises(ValueError):
        build_csr(3, [0, 5], [1, 1], [0, 0], [1, 1])
    with pytest.raises(ValueError):
        build_csr(3, [0, 1], [1], [0, 0], [1, 1])
    with pytest.raises(ValueError):
        build_csr(3, [0], [-1], [0], [1])
    with pytest.raises(ValueError):
        build_csr(3, [0], [1], [300], [1])
    with pytest.raises(ValueError):
        build_csr(-1, [], [], [], [])
    empty_fwd, empty_rev = build_csr(0, [], [], [], [])
    assert empty_fwd.n_nodes == 0 and empty_rev.n_edges == 0
    isolated, _ = build_csr(4, [], [], [], [])
    assert isolated.indptr.tolist() == [0, 0, 0, 0, 0]


def test_csr_constructor_validates():
    good = sample_snapshot().forward
    with pytest.raises(ValueError):
        CSR(good.indptr, good.indices, good.edge_type[:-1], good.confidence)
    with pytest.raises(ValueError):
        CSR(good.indptr.astype(np.int32), good.indices, good.edge_type, good.confidence)
    with pytest.raises(ValueError):
        CSR(good.indptr, good.indices + 10, good.edge_type, good.confidence)
    converted = CSR(good.indptr, good.indices.astype(np.int64), good.edge_type, good.confidence)
    assert converted.indices.dtype == np.int32


def test_round_trip_is_memory_mapped(tmp_path):
    snap = sample_snapshot(generation=7)
    folder = write_snapshot(tmp_path, snap)
    assert folder == tmp_path / "csr"
    meta = json.loads((folder / "meta.json").read_text())
    assert meta["generation"] == 7 and meta["n_nodes"] == 5 and meta["n_edges"] == 5
    assert set(meta["arrays"]) == {
        f"{d}_{f}"
        for d in ("forward", "reverse")
        for f in ("indptr", "indices", "edge_type", "confidence")
    } | {"node_flags", "node_kind", "node_rank"}
    for entry in meta["arrays"].values():
        assert (folder / entry["file"]).is_file()
    assert not list(folder.glob("*.tmp"))

    loaded = load_snapshot(tmp_path, 7)
    assert loaded.generation == 7 and loaded.n_nodes == 5
    for direction in ("forward", "reverse"):
        for field in ("indptr", "indices", "edge_type", "confidence"):
            arr = getattr(getattr(loaded, direction), field)
            assert isinstance(arr, np.memmap)
            assert not arr.flags.writeable
            assert np.array_equal(arr, getattr(getattr(snap, direction), field))
    assert isinstance(loaded.node_flags, np.memmap)
    assert np.array_equal(loaded.node_flags, snap.node_flags)
    assert np.array_equal(loaded.node_kind, snap.node_kind)
    # The native core traverses the mapped arrays directly.
    r = bfs(loaded.reverse, [2], node_mask=loaded.non_test_mask())
    assert r.nodes.tolist() == [2, 0, 3]  # 1 is a test node, so never entered
    assert r.depths.tolist() == [0, 1, 2]


def test_generation_mismatch(tmp_path):
    write_snapshot(tmp_path, sample_snapshot(generation=4))
    with pytest.raises(SnapshotMismatch, match="generation 4"):
        load_snapshot(tmp_path, 5)
    assert issubclass(SnapshotMismatch, ValueError)


def test_missing_or_partial_snapshot(tmp_path):
    with pytest.raises(SnapshotMismatch):
        load_snapshot(tmp_path, 1)
    folder = write_snapshot(tmp_path, sample_snapshot(generation=1))
    # A write interrupted before meta.json: arrays present, no metadata.
    (folder / "meta.json").unlink()
    with pytest.raises(SnapshotMismatch, match="meta.json"):
        load_snapshot(tmp_path, 1)


def test_missing_or_truncated_array(tmp_path):
    folder = write_snapshot(tmp_path, sample_snapshot(generation=2))
    meta = json.loads((folder / "meta.json").read_text())
    target = folder / meta["arrays"]["forward_indices"]["file"]
    data = target.read_bytes()
    target.write_bytes(data[: len(data) - 8])
    with pytest.raises(SnapshotMismatch):
        load_snapshot(tmp_path, 2)
    target.unlink()
    with pytest.raises(SnapshotMismatch):
        load_snapshot(tmp_path, 2)


def test_corrupt_meta_and_corrupt_arrays(tmp_path):
    folder = write_snapshot(tmp_path, sample_snapshot(generation=2))
    meta_path = folder / "meta.json"
    good_meta = meta_path.read_text()
    meta_path.write_text("{not json")
    with pytest.raises(SnapshotMismatch):
        load_snapshot(tmp_path, 2)
    meta = json.loads(good_meta)
    meta["format"] = 99
    meta_path.write_text(json.dumps(meta))
    with pytest.raises(SnapshotMismatch):
        load_snapshot(tmp_path, 2)
    # Out-of-range neighbour ids in a well-formed file are caught by validation.
    meta = json.loads(good_meta)
    meta_path.write_text(good_meta)
    target = folder / meta["arrays"]["forward_indices"]["file"]
    np.save(target, np.array([1, 2, 2, 2, 99], dtype=np.int32))
    with pytest.raises(SnapshotMismatch):
        load_snapshot(tmp_path, 2)


def test_rewrite_replaces_previous_files(tmp_path):
    folder = write_snapshot(tmp_path, sample_snapshot(generation=1))
    first = {p.name for p in folder.iterdir()}
    older = load_snapshot(tmp_path, 1)  # keeps the old files mapped
    write_snapshot(tmp_path, sample_snapshot(generation=2))
    second = {p.name for p in folder.iterdir()}
    assert first & second == {"meta.json"}
    assert len(second) == 12  # 11 arrays + meta.json; the old arrays are gone
    assert load_snapshot(tmp_path, 2).generation == 2
    with pytest.raises(SnapshotMismatch):
        load_snapshot(tmp_path, 1)
    # The previously opened snapshot stays readable (its files were unlinked, not rewritten).
    assert older.forward.indices.tolist() == [1, 2, 2, 2, 0]


def test_snapshot_validates_shapes():
    snap = sample_snapshot()
    with pytest.raises(ValueError):
        Snapshot(1, 5, snap.forward, snap.reverse, np.zeros(4, np.uint8), snap.node_kind)
    with pytest.raises(ValueError):
        Snapshot(1, 6, snap.forward, snap.reverse, snap.node_flags, snap.node_kind)
    with pytest.raises(ValueError):
        Snapshot(1, 5, snap.forward, snap.reverse, snap.node_flags.astype(bool), snap.node_kind)
    with pytest.raises(ValueError):  # ranks are int32, one per node
        Snapshot(1, 5, snap.forward, snap.reverse, snap.node_flags, snap.node_kind,
                 np.arange(5, dtype=np.int64))  # fmt: skip
    assert snap.node_rank.tolist() == [0, 1, 2, 3, 4]  # omitted: the ids are in uid order


def test_uid_ranks_order_nodes_by_uid_whatever_their_ids():
    from codeimpact.graph.csr import uid_ranks

    uids = ["b.py::f", "a.py::", "c.py::g", "a.py::x"]
    assert uid_ranks(uids).tolist() == [2, 0, 3, 1]
    # uids[k] belongs to node ids[k]: ranks land on the ids
    ids = np.array([3, 0, 2, 1])
    rank = uid_ranks(uids, ids)
    assert rank.dtype == np.int32 and rank.tolist() == [0, 1, 3, 2]
