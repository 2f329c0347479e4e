"""An edit reads and writes the snapshot and state arrays without numpy
(graph/snapshot_files.py, native/core_arrays.c): what it writes must be the bytes numpy's
way writes, and what it reads what numpy reads."""

from __future__ import annotations

import io
import random

import numpy as np
import pytest

from codeimpact.graph import csr, snapshot_files
from codeimpact.indexer import incremental
from codeimpact.indexer.state import decode_codes, encode_codes
from codeimpact.native import _core


def _codes(rng: random.Random, n: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    src = np.array([rng.randrange(n) for _ in range(m)], np.int64)
    dst = np.array([rng.randrange(n) for _ in range(m)], np.int64)
    etype = np.array([rng.randrange(6) for _ in range(m)], np.int64)
    codes = np.unique(encode_codes(src, dst, etype))
    confs = np.array([rng.choice((1.0, 0.9, 0.5, 0.123456789)) for _ in codes], np.float32)
    return codes, confs


def _numpy_patch(codes, confs, removed, added, moves):
    """patch_codes as numpy did it (indexer/incremental.py before the native core)."""
    if removed:
        keep = ~np.isin(codes, np.asarray(removed, dtype=np.int64))
        codes, confs = codes[keep], confs[keep]
    if moves and codes.size:
        src, dst, etype = decode_codes(codes)
        remap = np.arange(max(int(src.max()), int(dst.max()), max(moves)) + 1, dtype=np.int64)
        remap[np.fromiter(moves.keys(), np.int64)] = np.fromiter(moves.values(), np.int64)
        codes = encode_codes(remap[src], remap[dst], etype)
    if added:
        codes = np.concatenate([codes, np.asarray([c for c, _ in added], dtype=np.int64)])
        confs = np.concatenate([confs, np.asarray([f for _, f in added], dtype=np.float32)])
    order = np.argsort(codes, kind="stable")
    return codes[order], confs[order]


@pytest.mark.parametrize("n", [0, 1, 7, 5000, 10**12])
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8, np.float32])
def test_a_npy_file_is_what_numpy_writes_and_reads(tmp_path, n, dtype):
    count = n % 9000
    arr = (np.arange(count) % 200).astype(dtype)
    want = io.BytesIO()
    np.save(want, arr)
    got = io.BytesIO()
    snapshot_files.write_npy(got, arr.dtype.str, arr.tobytes())
    assert got.getvalue() == want.getvalue()
    assert snapshot_files.npy_header(arr.dtype.str, n).startswith(b"\x93NUMPY")
    path = tmp_path / "a.npy"
    path.write_bytes(want.getvalue())
    view = snapshot_files.read_npy(path, arr.dtype.str)
    assert view.tolist() == arr.tolist()
    with pytest.raises(ValueError):  # another dtype than asked
        snapshot_files.read_npy(path, "<i8" if arr.dtype.str != "<i8" else "<i4")
    path.write_bytes(want.getvalue()[:-1] if count else b"\x93NUMPY")
    with pytest.raises(ValueError):  # truncated
        snapshot_files.read_npy(path)


@pytest.mark.parametrize("seed", range(4))
def test_the_native_csr_of_sorted_codes_is_numpys(seed):
    rng = random.Random(seed)
    n = rng.choice((1, 30, 2000))
    codes, confs = _codes(rng, n, rng.choice((0, 1, 50, 20000)))
    fwd, rev = csr.build_csr(n, *decode_codes(codes), confs, sorted_unique=True)
    want = [fwd.indptr, fwd.indices, fwd.edge_type, fwd.confidence,
            rev.indptr, rev.indices, rev.edge_type, rev.confidence]  # fmt: skip
    got = _core.csr_from_codes(codes, confs, n)
    assert [a.tobytes() for a in want] == list(got)
    if codes.size > 1:  # out of order, or an id outside the nodes: numpy's way decides
        assert _core.csr_from_codes(codes[::-1].copy(), confs, n) is None
        assert _core.csr_from_codes(codes, confs, int(decode_codes(codes)[0].max())) is None


@pytest.mark.parametrize("seed", range(8))
def test_the_native_patch_of_codes_is_numpys(seed):
    rng = random.Random(seed)
    n = 300
    codes, confs = _codes(rng, n, 3000)
    for _ in range(40):
        removed = rng.sample(codes.tolist(), rng.randrange(0, 12)) + [rng.randrange(1 << 40)]
        added = [(int(encode_codes(*(np.array([rng.randrange(n)]) for _ in range(2)),
                                   np.array([rng.randrange(6)]))[0]),
                  rng.choice((1.0, 0.3, 0.7000001)))
                 for _ in range(rng.randrange(0, 12))]  # fmt: skip
        if removed[:-1] and rng.random() < 0.3:  # a code that goes and comes again
            added.append((removed[0], 0.25))
        moves = {rng.randrange(n): rng.randrange(n) for _ in range(rng.choice((0, 0, 3)))}
        want = _numpy_patch(codes, confs, removed, added, moves)
        got = incremental.patch_codes(codes, confs, removed, added, moves)
        assert bytes(got[0]) == want[0].tobytes() and bytes(got[1]) == want[1].tobytes()
        # the same edges given back: the arrays themselves
        same = [(c, float(confs[int(np.searchsorted(codes, c))])) for c in removed[:-1]]
        assert incremental.patch_codes(codes, confs, removed[:-1], same, {})[0] is codes


@pytest.mark.parametrize("seed", range(6))
def test_a_patch_without_renumbering_merges_as_numpys_stable_sort(seed):
    """No `moves` and codes in order: one merge into the results (core_arrays.c's
    patch_in_order), which must order ties, repeats and codes out of order as the sort did."""
    rng = random.Random(100 + seed)
    n = 200
    codes, confs = _codes(rng, n, 2500)
    kept = codes.tolist()
    for _ in range(30):
        removed = rng.sample(kept, rng.randrange(0, 6)) * rng.choice((1, 2))
        removed += [rng.randrange(1 << 40)]
        added = [(rng.choice(kept), rng.choice((0.1, 0.2)))  # a code kept: a tie
                 for _ in range(rng.randrange(0, 4))]  # fmt: skip
        added += [(int(encode_codes(np.array([rng.randrange(n)]), np.array([rng.randrange(n)]),
                                    np.array([rng.randrange(6)]))[0]), 0.4)
                  for _ in range(rng.randrange(0, 8))]  # fmt: skip
        added += added[:2]  # codes added twice keep their order
        rng.shuffle(added)
        for c, f in ((codes, confs), (codes[::-1].copy(), confs[::-1].copy())):  # in order or not
            want = _numpy_patch(c, f, removed, added, {})
            got = _core.patch_codes(c, f, removed, added, {})
            assert got[0] == want[0].tobytes() and got[1] == want[1].tobytes()
    assert _core.patch_codes(codes[:0], confs[:0], [], [(5, 1.0), (3, 0.5)], {}) == (
        np.array([3, 5], np.int64).tobytes(),
        np.array([0.5, 1.0], np.float32).tobytes(),
    )


def test_a_patch_without_renumbering_takes_no_more_memory_than_its_results():
    """An edit's patch of Django's ~190K codes took two copies of 16 bytes a code (the codes
    to sort and the merge's buffer: ~6 MB faulted in and unmapped again each edit) beside
    its 12-byte results; codes in order and no ids moved need only the results."""
    import tracemalloc

    rng = random.Random(7)
    codes = np.arange(0, 200_000 * 16, 16, dtype=np.int64)
    confs = np.ones(codes.size, np.float32)
    removed = rng.sample(codes.tolist(), 5)
    added = [(int(c) + 1, 0.5) for c in rng.sample(codes.tolist(), 20)]
    tracemalloc.start()
    try:
        got = _core.patch_codes(codes, confs, removed, added, {})
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    size = len(got[0]) + len(got[1])
    assert size == 12 * (codes.size - 5 + 20)
    assert peak < size + 64 * 1024


def test_a_snapshot_written_from_codes_reads_back_as_numpys(tmp_path):
    rng = random.Random(5)
    n = 400
    codes, confs = _codes(rng, n, 3000)
    flags = bytes(rng.randrange(2) for _ in range(n))
    kinds = bytes(rng.randrange(11) for _ in range(n))
    rank = np.array(rng.sample(range(n), n), np.int32)
    typed_confs = memoryview(confs.tobytes()).cast("f")
    assert snapshot_files.write_from_codes(
        tmp_path, 3, n, memoryview(codes), typed_confs, flags, bytearray(kinds), rank
    )
    snap = csr.load_snapshot(tmp_path, 3)
    fwd, rev = csr.build_csr(n, *decode_codes(codes), confs, sorted_unique=True)
    for a, b in ((snap.forward, fwd), (snap.reverse, rev)):
        for name in ("indptr", "indices", "edge_type", "confidence"):
            assert np.array_equal(getattr(a, name), getattr(b, name))
    assert snap.node_flags.tobytes() == flags and snap.node_kind.tobytes() == kinds
    assert np.array_equal(snap.node_rank, rank)
    nodes = snapshot_files.load_nodes(tmp_path, 3)
    assert nodes.n_nodes == n and bytes(nodes.node_kind) == kinds
    assert nodes.node_rank.tolist() == rank.tolist()
    g = int(decode_codes(codes)[0][0])
    assert nodes.forward.indices[nodes.forward.row(g)].tolist() == fwd.neighbors(g).tolist()
    with pytest.raises(snapshot_files.SnapshotMismatch):
        snapshot_files.load_nodes(tmp_path, 4)
    # a corrupt CSR (a neighbour outside the nodes) is refused as numpy's loader refuses it
    meta = snapshot_files.read_meta(tmp_path / "csr")
    path = tmp_path / "csr" / meta["arrays"]["forward_indices"]["file"]
    raw = bytearray(path.read_bytes())
    raw[-4:] = (n + 5).to_bytes(4, "little")
    path.write_bytes(bytes(raw))
    with pytest.raises(snapshot_files.SnapshotMismatch):
        snapshot_files.load_nodes(tmp_path, 3)
    with pytest.raises(csr.SnapshotMismatch):
        csr.load_snapshot(tmp_path, 3)


def test_unsorted_codes_are_written_by_numpys_way(tmp_path):
    from codeimpact.indexer.tables import write_snapshot_arrays

    rng = random.Random(9)
    n = 50
    codes, confs = _codes(rng, n, 400)
    order = np.array(rng.sample(range(codes.size), codes.size))
    flags, kinds = np.zeros(n, np.uint8), np.full(n, 6, np.uint8)
    write_snapshot_arrays(tmp_path, 1, n, codes[order], confs[order], flags, kinds)
    snap = csr.load_snapshot(tmp_path, 1)
    fwd, _ = csr.build_csr(n, *decode_codes(codes), confs)
    assert np.array_equal(snap.forward.indices, fwd.indices)
    assert np.array_equal(snap.node_rank, np.arange(n, dtype=np.int32))
