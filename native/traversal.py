"""Native traversal core: BFS, shortest path and SCC over CSR arrays (C extension).

A CSR here is any object with four 1-d numpy arrays (``codeimpact.graph.csr.CSR``
is the canonical one):

- ``indptr``     int64,   ``n + 1`` entries, ``indptr[0] == 0``, non-decreasing,
  ``indptr[n] == len(indices)``; row ``u`` is ``indptr[u]:indptr[u + 1]``.
- ``indices``    int32,   neighbour node ids in ``[0, n)`` (int32 keeps a
  10M-edge graph at 40 MB; node ids therefore stay below ``2**31``).
- ``edge_type``  uint8,   edge type code (see ``codeimpact.graph.csr.EDGE_TYPES``).
- ``confidence`` float32.

Filtering rule shared by every traversal: the edge ``e`` is followed iff
``(type_mask >> edge_type[e]) & 1`` (codes >= 32 never match) and
``float(confidence[e]) >= min_confidence`` (compared in double precision, so a
NaN confidence never passes). A node ``v`` with ``node_mask[v] == 0`` is never
entered; sources are always included.

Arrays of the wrong dtype, wrong length or out-of-range ids raise ``ValueError``;
non-contiguous arrays are copied. The C code checks everything it reads as well,
so calling ``_core`` directly with bad buffers raises ``ValueError`` too. The GIL
is released while a traversal runs.
"""

from __future__ import annotations

import math
import operator
from typing import Any, Protocol

import numpy as np

from codeimpact.native import _core
from codeimpact.native.record import Hashed

__all__ = [
    "ALL_TYPES",
    "BfsResult",
    "CSRLike",
    "bfs",
    "cycles",
    "native_version",
    "shortest_path",
    "strongly_connected_components",
    "validate_csr",
]

ALL_TYPES = 0xFFFFFFFF
"""A type mask that lets every edge type through."""


class CSRLike(Protocol):
    """What the traversals need from a CSR (``codeimpact.graph.csr.CSR`` fits)."""

    @property
    def indptr(self) -> np.ndarray: ...
    @property
    def indices(self) -> np.ndarray: ...
    @property
    def edge_type(self) -> np.ndarray: ...
    @property
    def confidence(self) -> np.ndarray: ...


class BfsResult(Hashed):
    """Nodes reached by :func:`bfs`, in discovery order.

    ``nodes[i]`` was reached at ``depths[i]`` hops from the nearest source, first
    discovered from ``parents[i]`` (``-1`` for sources). ``truncated`` is true iff
    ``limit`` cut off at least one node that would otherwise have been reported.
    """

    nodes: np.ndarray  # int64
    depths: np.ndarray  # int32
    parents: np.ndarray  # int64

    truncated: bool
    __slots__ = ("nodes", "depths", "parents", "truncated")

    def __init__(
        self, nodes: np.ndarray, depths: np.ndarray, parents: np.ndarray, truncated: bool
    ) -> None:
        self.nodes = nodes
        self.depths = depths
        self.parents = parents
        self.truncated = truncated

    def __len__(self) -> int:
        return int(self.nodes.shape[0])


def native_version() -> str:
    """Version string of the compiled core."""
    return _core.version()


# --------------------------------------------------------------------------- helpers


def _array(value: Any, name: str, dtype: np.dtype | type) -> np.ndarray:
    """A 1-d C-contiguous array of exactly ``dtype`` (copied if strided); ValueError otherwise."""
    if not isinstance(value, np.ndarray):
        raise ValueError(f"{name} must be a numpy array of dtype {np.dtype(dtype).name}")
    if value.dtype != np.dtype(dtype):
        raise ValueError(f"{name} must have dtype {np.dtype(dtype).name}, got {value.dtype}")
    if value.ndim != 1:
        raise ValueError(f"{name} must be 1-d, got shape {value.shape}")
    return np.ascontiguousarray(value)


def _csr_arrays(csr: CSRLike) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    try:
        parts = (csr.indptr, csr.indices, csr.edge_type, csr.confidence)
    except AttributeError as exc:
        raise ValueError("csr must have indptr, indices, edge_type and confidence arrays") from exc
    indptr = _array(parts[0], "indptr", np.int64)
    indices = _array(parts[1], "indices", np.int32)
    edge_type = _array(parts[2], "edge_type", np.uint8)
    confidence = _array(parts[3], "confidence", np.float32)
    if indptr.shape[0] < 1:
        raise ValueError("indptr must have n_nodes + 1 >= 1 entries")
    nnz = indices.shape[0]
    if edge_type.shape[0] != nnz or confidence.shape[0] != nnz:
        raise ValueError(
            "indices, edge_type and confidence must have the same length "
            f"(got {nnz}, {edge_type.shape[0]}, {confidence.shape[0]})"
        )
    if int(indptr[-1]) != nnz:
        raise ValueError(f"indptr[-1] ({int(indptr[-1])}) must equal len(indices) ({nnz})")
    return indptr, indices, edge_type, confidence


def _int(value: Any, name: str) -> int:
    try:
        return operator.index(value)
    except TypeError:
        raise ValueError(f"{name} must be an int, got {type(value).__name__}") from None


def _mask(value: Any) -> int:
    mask = _int(value, "type_mask")
    if not 0 <= mask <= ALL_TYPES:
        raise ValueError(f"type_mask must be in [0, 2**32), got {mask}")
    return mask


def _confidence(value: Any) -> float:
    try:
        conf = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"min_confidence must be a number, got {value!r}") from None
    if math.isnan(conf):
        raise ValueError("min_confidence must not be NaN")
    return conf


def _node_mask(value: Any, n: int) -> np.ndarray | None:
    if value is None:
        return None
    if not isinstance(value, np.ndarray) or value.dtype not in (np.bool_, np.uint8):
        raise ValueError("node_mask must be a numpy array of dtype bool or uint8")
    if value.ndim != 1 or value.shape[0] != n:
        raise ValueError(f"node_mask has shape {value.shape}, expected ({n},)")
    return np.ascontiguousarray(value).view(np.uint8)


def _sources(value: Any, n: int) -> np.ndarray:
    arr = np.asarray(value)
    if arr.ndim == 0:
        arr = arr.reshape(1)
    if arr.size == 0:
        return np.empty(0, dtype=np.int64)
    if arr.ndim != 1 or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError("sources must be an int or a 1-d sequence of ints")
    if (
        arr.dtype.kind == "u"
        and arr.dtype.itemsize == 8
        and int(arr.max()) > np.iinfo(np.int64).max
    ):
        raise ValueError(f"sources must be node ids in [0, {n})")
    arr = np.ascontiguousarray(arr, dtype=np.int64)
    if int(arr.min()) < 0 or int(arr.max()) >= n:
        raise ValueError(f"sources must be node ids in [0, {n})")
    return arr


# --------------------------------------------------------------------------- traversals


def validate_csr(csr: CSRLike) -> None:
    """Full O(n + nnz) check: dtypes, lengths, monotonic ``indptr``, ids in ``[0, n)``.

    Raises ``ValueError`` describing the first problem found.
    """
    _core.validate_csr(*_csr_arrays(csr))


def bfs(
    csr: CSRLike,
    sources: Any,
    *,
    max_depth: int = -1,
    type_mask: int = ALL_TYPES,
    min_confidence: float = 0.0,
    node_mask: np.ndarray | None = None,
    limit: int = -1,
) -> BfsResult:
    """Multi-source, level-synchronous breadth-first search.

    Exact semantics (the test oracle implements the same):

    1. ``sources`` (an int or a sequence of ints, each in ``[0, n)``) are
       deduplicated keeping their first occurrence and reported first, in that
       order, at depth 0 with parent -1. Sources are always included, whatever
       ``node_mask`` says; an empty ``sources`` gives an empty result.
    2. Reported nodes form a FIFO queue. Each dequeued node ``u`` at depth ``d``
       is expanded only if ``max_depth < 0`` or ``d < max_depth``; its edges are
       scanned in CSR order (``indptr[u]`` to ``indptr[u + 1] - 1``).
    3. An edge ``e`` to ``v`` is followed iff ``(type_mask >> edge_type[e]) & 1``
       and ``float(confidence[e]) >= min_confidence``. A ``v`` already reported,
       or with ``node_mask[v] == 0``, is skipped. Otherwise ``v`` is reported with
       depth ``d + 1`` and parent ``u`` (first discovery wins).
    4. ``limit >= 0`` caps the number of non-source nodes reported: the result is
       exactly the first ``len(sources) + limit`` entries of the uncapped result,
       and ``truncated`` is true iff the uncapped result has more. ``limit < 0`` is
       unlimited.

    Depths are therefore non-decreasing along ``nodes``, and following
    ``parents`` from any node leads back to a source along followed edges.
    Pass the reverse CSR to walk edges backwards (upstream / dependents).
    """
    indptr, indices, edge_type, confidence = _csr_arrays(csr)
    n = indptr.shape[0] - 1
    src = _sources(sources, n)
    max_depth = _int(max_depth, "max_depth")
    limit = _int(limit, "limit")
    mask = _mask(type_mask)
    min_conf = _confidence(min_confidence)
    nmask = _node_mask(node_mask, n)
    cap = n if limit < 0 or limit >= n else min(n, src.shape[0] + limit)
    out_nodes = np.empty(cap, dtype=np.int64)
    out_depths = np.empty(cap, dtype=np.int32)
    out_parents = np.empty(cap, dtype=np.int64)
    count, truncated = _core.bfs(
        indptr,
        indices,
        edge_type,
        confidence,
        src,
        max_depth,
        mask,
        min_conf,
        nmask,
        limit,
        out_nodes,
        out_depths,
        out_parents,
    )
    if 2 * count < cap:
        # Do not keep a mostly empty n-sized buffer alive behind a small result.
        return BfsResult(
            out_nodes[:count].copy(),
            out_depths[:count].copy(),
            out_parents[:count].copy(),
            bool(truncated),
        )
    return BfsResult(out_nodes[:count], out_depths[:count], out_parents[:count], bool(truncated))


def shortest_path(
    csr: CSRLike,
    source: int,
    target: int,
    *,
    type_mask: int = ALL_TYPES,
    min_confidence: float = 0.0,
    node_mask: np.ndarray | None = None,
    max_depth: int = -1,
) -> np.ndarray | None:
    """Node ids (int64) of a shortest path from ``source`` to ``target``, both inclusive.

    The path is the parent chain of ``target`` in ``bfs(csr, [source], ...)`` with
    the same filters, so it is deterministic: among shortest paths, the one whose
    nodes were discovered first. ``source == target`` gives ``[source]``. Returns
    ``None`` if ``target`` is not reachable within ``max_depth`` hops (``< 0``:
    unlimited) or is excluded by ``node_mask``.
    """
    indptr, indices, edge_type, confidence = _csr_arrays(csr)
    n = indptr.shape[0] - 1
    source = _int(source, "source")
    target = _int(target, "target")
    if not (0 <= source < n and 0 <= target < n):
        raise ValueError(f"source and target must be node ids in [0, {n})")
    raw = _core.shortest_path(
        indptr,
        indices,
        edge_type,
        confidence,
        source,
        target,
        _int(max_depth, "max_depth"),
        _mask(type_mask),
        _confidence(min_confidence),
        _node_mask(node_mask, n),
    )
    if raw is None:
        return None
    return np.frombuffer(raw, dtype=np.int64).copy()


def _scc(csr: CSRLike, type_mask: int, min_confidence: float) -> tuple[np.ndarray, np.ndarray]:
    indptr, indices, edge_type, confidence = _csr_arrays(csr)
    n = indptr.shape[0] - 1
    labels = np.empty(n, dtype=np.int64)
    self_loop = np.empty(n, dtype=np.uint8)
    _core.strongly_connected_components(
        indptr,
        indices,
        edge_type,
        confidence,
        _mask(type_mask),
        _confidence(min_confidence),
        labels,
        self_loop,
    )
    return labels, self_loop


def strongly_connected_components(
    csr: CSRLike, *, type_mask: int = ALL_TYPES, min_confidence: float = 0.0
) -> np.ndarray:
    """Strongly connected component label (int64) of every node, over the followed edges.

    Labels are ``0 .. k-1``, numbered by the smallest node id of each component,
    ascending: ``label[v]`` is the rank of ``min(component(v))`` among the
    components' minima. Hence ``label[0] == 0`` and labels first appear in
    increasing order along node ids. Iterative Tarjan, O(n + nnz), no recursion.
    """
    return _scc(csr, type_mask, min_confidence)[0]


def cycles(
    csr: CSRLike, *, type_mask: int = ALL_TYPES, min_confidence: float = 0.0
) -> list[np.ndarray]:
    """The cycles of the graph as node sets: every strongly connected component with
    more than one node, plus every single node with a followed self-loop.

    Each entry is a sorted int64 array; entries are ordered by their smallest node.
    """
    labels, self_loop = _scc(csr, type_mask, min_confidence)
    if labels.shape[0] == 0:
        return []
    sizes = np.bincount(labels)
    keep = sizes > 1
    keep[labels[self_loop.astype(bool)]] = True
    order = np.argsort(labels, kind="stable")  # nodes sorted by label, ascending id within
    starts = np.concatenate(([0], np.cumsum(sizes)))
    return [order[starts[c] : starts[c + 1]].astype(np.int64) for c in np.flatnonzero(keep)]
