"""CSR snapshot of the symbol graph: the arrays the native core traverses.

Edges are stored twice, as a forward CSR (``src -> dst``: a row lists what a
symbol depends on, i.e. *downstream*) and a reverse CSR (``dst -> src``: a row
lists its dependents, i.e. *upstream*). Each CSR holds four arrays:

- ``indptr``     int64   ``n + 1`` row offsets
- ``indices``    int32   neighbour ids; int32 halves the largest array (a 10M-edge
  graph takes 40 MB instead of 80 MB), so node ids must stay below ``2**31``
- ``edge_type``  uint8   code from :data:`EDGE_TYPES`
- ``confidence`` float32

Inside a row, edges are sorted by (neighbour id, edge type, confidence
descending, input order), so a snapshot built from the same edge set is
byte-identical whatever order the edges came in, and traversals are
deterministic.

On disk a snapshot is ``<directory>/csr/``: one ``.npy`` per array, named with
a per-write token, plus ``meta.json`` (generation, n_nodes, array file names,
dtypes and shapes). ``meta.json`` is written last and atomically, so a
snapshot whose write was interrupted is never taken as valid; the previous
snapshot's files stay in place until the new ``meta.json`` replaces it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from codeimpact.graph.snapshot_files import (
    CSR_DIRNAME,
    EDGE_TYPE_NAMES,
    EDGE_TYPES,
    FLAG_TEST,
    KIND_CODES,
    KIND_NAMES,
    META_NAME,
    SNAPSHOT_FORMAT,
    SnapshotMismatch,
    generation_meta,
    write_arrays,
    write_snapshot_sharing_edges,
)
from codeimpact.native.record import Record
from codeimpact.native.traversal import validate_csr

__all__ = [
    "ALL_TYPES",
    "CSR",
    "EDGE_TYPES",
    "EDGE_TYPE_NAMES",
    "FLAG_TEST",
    "KIND_CODES",
    "KIND_NAMES",
    "META_NAME",
    "SNAPSHOT_FORMAT",
    "Snapshot",
    "SnapshotMismatch",
    "build_csr",
    "build_snapshot",
    "load_snapshot",
    "type_mask",
    "uid_ranks",
    "write_snapshot",
    "write_snapshot_sharing_edges",
]

ALL_TYPES = 0xFFFFFFFF
"""Type mask letting every edge through."""


def type_mask(names: Iterable[str] | str) -> int:
    """The uint32 mask allowing the given edge types (``"CALLS"`` or ``["CALLS", ...]``).

    Names are case-insensitive; an unknown name raises ``ValueError``.
    """
    if isinstance(names, str):
        names = [names]
    mask = 0
    for name in names:
        code = EDGE_TYPES.get(name.upper())
        if code is None:
            raise ValueError(f"unknown edge type {name!r}; known: {', '.join(EDGE_TYPE_NAMES)}")
        mask |= 1 << code
    return mask


# --------------------------------------------------------------------------- CSR


class CSR(Record):
    """One direction of the graph in compressed sparse row form.

    Construction validates everything (dtypes, lengths, monotonic ``indptr``, ids
    in range) and raises ``ValueError``; ``indices`` given as another integer dtype
    is converted to int32 when the ids fit. Arrays may be read-only memory maps.
    """

    indptr: np.ndarray  # int64 [n + 1]
    indices: np.ndarray  # int32 [nnz]
    edge_type: np.ndarray  # uint8 [nnz]
    confidence: np.ndarray  # float32 [nnz]
    __slots__ = ("indptr", "indices", "edge_type", "confidence")

    def __init__(
        self, indptr: np.ndarray, indices: np.ndarray, edge_type: np.ndarray, confidence: np.ndarray
    ) -> None:
        self.indptr = indptr
        self.indices = indices
        self.edge_type = edge_type
        self.confidence = confidence
        self.__post_init__()

    def __post_init__(self) -> None:
        for name, dtype in (
            ("indptr", np.int64),
            ("indices", np.int32),
            ("edge_type", np.uint8),
            ("confidence", np.float32),
        ):
            arr = getattr(self, name)
            if not isinstance(arr, np.ndarray):
                raise ValueError(f"CSR.{name} must be a numpy array")
            if arr.ndim != 1:
                raise ValueError(f"CSR.{name} must be 1-d, got shape {arr.shape}")
            if arr.dtype != dtype:
                if name == "indices" and np.issubdtype(arr.dtype, np.integer):
                    if arr.size and (int(arr.min()) < 0 or int(arr.max()) > np.iinfo(np.int32).max):
                        raise ValueError("CSR.indices holds ids outside the int32 range")
                    arr = arr.astype(np.int32)
                else:
                    raise ValueError(
                        f"CSR.{name} must have dtype {np.dtype(dtype).name}, got {arr.dtype}"
                    )
            if not arr.flags.c_contiguous:
                arr = np.ascontiguousarray(arr)
            object.__setattr__(self, name, arr)
        validate_csr(self)

    @property
    def n_nodes(self) -> int:
        return int(self.indptr.shape[0] - 1)

    @property
    def n_edges(self) -> int:
        return int(self.indices.shape[0])

    def degree(self) -> np.ndarray:
        """Out-degree of every node (int64) in this direction."""
        return np.diff(self.indptr)

    def row(self, node: int) -> slice:
        """Slice of the edge arrays holding ``node``'s edges."""
        return slice(int(self.indptr[node]), int(self.indptr[node + 1]))

    def neighbors(self, node: int) -> np.ndarray:
        return self.indices[self.row(node)]

    @classmethod
    def empty(cls, n_nodes: int = 0) -> CSR:
        return cls(
            np.zeros(n_nodes + 1, dtype=np.int64),
            np.empty(0, dtype=np.int32),
            np.empty(0, dtype=np.uint8),
            np.empty(0, dtype=np.float32),
        )


def _edge_arrays(
    n_nodes: int, src: Any, dst: Any, etype: Any, conf: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    if n_nodes < 0 or n_nodes > np.iinfo(np.int32).max:
        raise ValueError(f"n_nodes must be in [0, 2**31), got {n_nodes}")
    src = np.asarray(src)
    dst = np.asarray(dst)
    etype = np.asarray(etype)
    conf = np.asarray(conf)
    m = src.shape[0] if src.ndim == 1 else -1
    for name, arr in (("src", src), ("dst", dst), ("etype", etype), ("conf", conf)):
        if arr.ndim != 1 or arr.shape[0] != m:
            raise ValueError(f"{name} must be 1-d with the same length as src")
    for name, arr in (("src", src), ("dst", dst)):
        if m and not np.issubdtype(arr.dtype, np.integer):
            raise ValueError(f"{name} must hold integer node ids")
        if m and (int(arr.min()) < 0 or int(arr.max()) >= n_nodes):
            raise ValueError(f"{name} holds ids outside [0, {n_nodes})")
    if m and not np.issubdtype(etype.dtype, np.integer):
        raise ValueError("etype must hold integer edge type codes")
    if m and (int(etype.min()) < 0 or int(etype.max()) > 255):
        raise ValueError("etype codes must be in [0, 256)")
    return (
        src.astype(np.int64, copy=False),
        dst.astype(np.int64, copy=False),
        etype.astype(np.uint8, copy=False),
        conf.astype(np.float32, copy=False),
    )


def _one_direction(
    n_nodes: int, row: np.ndarray, col: np.ndarray, etype: np.ndarray, conf: np.ndarray
) -> CSR:
    # Sort by (row, col, type, confidence desc); lexsort is stable so exact ties keep input order.
    key = row * np.int64(max(n_nodes, 1)) + col  # < 2**62 since n < 2**31
    order = np.lexsort((-conf, etype, key))
    return _rows(n_nodes, row[order], col[order], etype[order], conf[order])


def _rows(n_nodes: int, row: np.ndarray, col: np.ndarray, etype: np.ndarray,
          conf: np.ndarray) -> CSR:  # fmt: skip
    """The CSR of edges already in row order."""
    counts = np.bincount(row, minlength=n_nodes) if row.size else np.zeros(n_nodes, np.int64)
    indptr = np.zeros(n_nodes + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    return CSR(indptr, col.astype(np.int32), etype, conf)


def build_csr(n_nodes: int, src: Any, dst: Any, etype: Any, conf: Any, *,
              sorted_unique: bool = False) -> tuple[CSR, CSR]:  # fmt: skip
    """Forward (``src -> dst``) and reverse (``dst -> src``) CSR of an edge list.

    ``src``/``dst`` are node ids in ``[0, n_nodes)``, ``etype`` codes from
    :data:`EDGE_TYPES` (any code < 256 is stored), ``conf`` confidences. Duplicate
    edges are kept. Within a row edges are sorted by (neighbour, type, confidence
    descending), ties in input order.

    ``sorted_unique``: the caller vouches that the edges come sorted by (src, dst, etype)
    with no triple twice (the index state's edge codes): the same arrays, with no sort
    forward and one argsort backward (Django's 186K edges: 19 -> 8 ms, every edit).
    """
    src, dst, etype, conf = _edge_arrays(n_nodes, src, dst, etype, conf)
    if sorted_unique:
        # no ties, so confidence never orders; a stable sort by (dst, src) keeps the
        # etype order the input has within a pair
        back = np.argsort(dst * np.int64(max(n_nodes, 1)) + src, kind="stable")
        return (
            _rows(n_nodes, src, dst, etype, conf),
            _rows(n_nodes, dst[back], src[back], etype[back], conf[back]),
        )
    return (
        _one_direction(n_nodes, src, dst, etype, conf),
        _one_direction(n_nodes, dst, src, etype, conf),
    )


# --------------------------------------------------------------------------- snapshot


class Snapshot(Record):
    """The CSR pair plus per-node attributes, tagged with the index generation."""

    generation: int
    n_nodes: int
    forward: CSR
    reverse: CSR
    node_flags: np.ndarray  # uint8 [n], bit 0 (FLAG_TEST) = is_test
    node_kind: np.ndarray  # uint8 [n], KIND_CODES
    # int32 [n]: each node's position in uid order. A full build numbers symbols in uid
    # order (the rank is the id); an incremental run keeps ids stable, so ranks and ids part.
    # Lists that must read the same whatever the numbering are ordered by rank. None: ids.
    node_rank: np.ndarray | None
    __slots__ = (
        "generation",
        "n_nodes",
        "forward",
        "reverse",
        "node_flags",
        "node_kind",
        "node_rank",
    )

    def __init__(
        self,
        generation: int,
        n_nodes: int,
        forward: CSR,
        reverse: CSR,
        node_flags: np.ndarray,
        node_kind: np.ndarray,
        node_rank: np.ndarray | None = None,
    ) -> None:
        self.generation = generation
        self.n_nodes = n_nodes
        self.forward = forward
        self.reverse = reverse
        self.node_flags = node_flags
        self.node_kind = node_kind
        self.node_rank = node_rank
        self.__post_init__()

    def __post_init__(self) -> None:
        if self.node_rank is None:
            object.__setattr__(self, "node_rank", np.arange(self.n_nodes, dtype=np.int32))
        if self.forward.n_nodes != self.n_nodes or self.reverse.n_nodes != self.n_nodes:
            raise ValueError("forward and reverse CSR must both have n_nodes rows")
        if self.forward.n_edges != self.reverse.n_edges:
            raise ValueError("forward and reverse CSR must hold the same number of edges")
        for name, dtype in (("node_flags", np.uint8), ("node_kind", np.uint8),
                            ("node_rank", np.int32)):  # fmt: skip
            arr = getattr(self, name)
            if (
                not isinstance(arr, np.ndarray)
                or arr.dtype != dtype
                or arr.shape != (self.n_nodes,)
            ):
                raise ValueError(
                    f"Snapshot.{name} must be a {np.dtype(dtype).name} array of shape "
                    f"({self.n_nodes},)"
                )

    @property
    def n_edges(self) -> int:
        return self.forward.n_edges

    def csr(self, direction: str) -> CSR:
        """``"downstream"``/``"forward"`` -> forward CSR; ``"upstream"``/``"reverse"`` -> reverse."""
        if direction in ("downstream", "forward"):
            return self.forward
        if direction in ("upstream", "reverse"):
            return self.reverse
        raise ValueError(f"direction must be 'upstream' or 'downstream', got {direction!r}")

    def is_test(self) -> np.ndarray:
        """Boolean array: node is test code."""
        return (self.node_flags & FLAG_TEST) != 0

    def non_test_mask(self) -> np.ndarray:
        """uint8 node mask that excludes test code (for ``bfs(node_mask=...)``)."""
        return ((self.node_flags & FLAG_TEST) == 0).view(np.uint8)


def build_snapshot(
    generation: int,
    n_nodes: int,
    src: Any,
    dst: Any,
    etype: Any,
    conf: Any,
    node_flags: Any = None,
    node_kind: Any = None,
    node_rank: Any = None,
) -> Snapshot:
    """Convenience: :func:`build_csr` plus per-node arrays (zeros, and ranks equal to the
    ids, when omitted)."""
    forward, reverse = build_csr(n_nodes, src, dst, etype, conf)
    flags = np.zeros(n_nodes, np.uint8) if node_flags is None else np.asarray(node_flags, np.uint8)
    kind = np.zeros(n_nodes, np.uint8) if node_kind is None else np.asarray(node_kind, np.uint8)
    rank = None if node_rank is None else np.asarray(node_rank, np.int32)
    return Snapshot(int(generation), int(n_nodes), forward, reverse, flags, kind, rank)


def uid_ranks(uids: list[str], ids: np.ndarray | None = None) -> np.ndarray:
    """int32 rank in uid order of each node: `uids[k]` is the uid of node `ids[k]` (node k
    when `ids` is None). Nearly sorted input (a dict of ids in uid order, a few added at
    its end) sorts in a few milliseconds."""
    n = len(uids)
    order = np.fromiter(sorted(range(n), key=uids.__getitem__), np.int64, n)
    rank = np.empty(n, dtype=np.int32)
    rank[order if ids is None else np.asarray(ids)[order]] = np.arange(n, dtype=np.int32)
    return rank


def _arrays_of(snapshot: Snapshot) -> dict[str, np.ndarray]:
    arrays: dict[str, np.ndarray] = {}
    for direction in ("forward", "reverse"):
        csr = getattr(snapshot, direction)
        for field in ("indptr", "indices", "edge_type", "confidence"):
            arrays[f"{direction}_{field}"] = getattr(csr, field)
    arrays["node_flags"] = snapshot.node_flags
    arrays["node_kind"] = snapshot.node_kind
    arrays["node_rank"] = snapshot.node_rank
    return arrays


def write_snapshot(directory: str | os.PathLike[str], snapshot: Snapshot) -> Path:
    """Write ``snapshot`` under ``directory/csr/`` atomically; returns that folder.

    Arrays go to fresh, uniquely named ``.npy`` files (written to a temporary
    name, fsynced, renamed); then ``meta.json`` is replaced atomically, and only
    then are the files of the previous snapshot removed. A reader therefore sees
    either the old snapshot or the new one, and a crash at any point leaves at
    worst orphan files that the next write removes.
    """
    return _write_arrays(Path(directory), int(snapshot.generation), int(snapshot.n_nodes),
                         int(snapshot.n_edges), _arrays_of(snapshot), {})  # fmt: skip


def _write_arrays(directory: Path, generation: int, n_nodes: int, n_edges: int,
                  arrays: dict[str, np.ndarray],
                  linked: dict[str, tuple[Path, dict[str, Any]]]) -> Path:  # fmt: skip
    """`arrays` written (graph/snapshot_files.py writes the files), `linked` hard-linked."""
    out = {}
    for name, arr in arrays.items():
        data = np.ascontiguousarray(arr)
        out[name] = (data.dtype.str, data)
    return write_arrays(directory, generation, n_nodes, n_edges, out, linked)


def load_snapshot(directory: str | os.PathLike[str], expected_generation: int) -> Snapshot:
    """Open the snapshot under ``directory/csr/`` with memory-mapped, read-only arrays.

    Raises :class:`SnapshotMismatch` if it is missing, partial (no ``meta.json``,
    a missing or truncated array), corrupt, or of a generation other than
    ``expected_generation``.
    """
    folder = Path(directory) / CSR_DIRNAME
    meta = generation_meta(folder, expected_generation)
    generation = meta["generation"]
    arrays: dict[str, np.ndarray] = {}
    try:
        n_nodes = int(meta["n_nodes"])
        for name, entry in meta["arrays"].items():
            arr = np.load(folder / entry["file"], mmap_mode="r", allow_pickle=False)
            if arr.dtype.str != entry["dtype"] or list(arr.shape) != list(entry["shape"]):
                raise SnapshotMismatch(f"CSR snapshot array {name} does not match meta.json")
            arrays[name] = arr
        csrs = {
            direction: CSR(
                arrays[f"{direction}_indptr"],
                arrays[f"{direction}_indices"],
                arrays[f"{direction}_edge_type"],
                arrays[f"{direction}_confidence"],
            )
            for direction in ("forward", "reverse")
        }
        return Snapshot(
            int(generation),
            n_nodes,
            csrs["forward"],
            csrs["reverse"],
            arrays["node_flags"],
            arrays["node_kind"],
            arrays["node_rank"],
        )
    except SnapshotMismatch:
        raise
    except (OSError, KeyError, TypeError, ValueError) as exc:
        raise SnapshotMismatch(f"unusable CSR snapshot in {folder}: {exc}") from None
