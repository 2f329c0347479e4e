"""The CSR snapshot's files (graph/csr.py says what they hold) without numpy: an incremental
run reads and writes them with the buffer protocol and the native core (importing numpy
cost every edit ~45 ms of CPU, more than the rest of its snapshot work). The query side
reads the same `.npy` files with numpy (graph/csr.py); the bytes are those `np.save` writes.

Also the codes the snapshot files share with graph/csr.py (edge types, symbol kinds, flags,
the format), which csr.py re-exports.
"""

from __future__ import annotations

import ast
import contextlib
import json
import mmap
import os
import shutil
from array import array
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import xxhash

from codeimpact.graph import layout

EDGE_TYPES: dict[str, int] = {
    "CALLS": 0,
    "IMPORTS": 1,
    "EXTENDS": 2,
    "IMPLEMENTS": 3,
    "REFERENCES": 4,
    "CONTAINS": 5,
}
"""Edge type codes stored in ``edge_type`` (uint8); mask bit ``1 << code``."""

EDGE_TYPE_NAMES: tuple[str, ...] = tuple(sorted(EDGE_TYPES, key=EDGE_TYPES.__getitem__))

KIND_CODES: dict[str, int] = {
    "module": 0,
    "class": 1,
    "interface": 2,
    "trait": 3,
    "struct": 4,
    "enum": 5,
    "function": 6,
    "method": 7,
    "variable": 8,
    "type_alias": 9,
    "external": 10,
}
"""Symbol kind codes stored in ``Snapshot.node_kind`` (uint8)."""

KIND_NAMES: tuple[str, ...] = tuple(sorted(KIND_CODES, key=KIND_CODES.__getitem__))

FLAG_TEST = 1
"""Bit 0 of ``Snapshot.node_flags``: the symbol is test code."""

SNAPSHOT_FORMAT = 2
"""Version of the on-disk layout, stored in ``meta.json`` (2: ``node_rank`` added)."""

META_NAME = "meta.json"
CSR_DIRNAME = "csr"

# numpy's dtype strings of the snapshot's arrays, and the memoryview format of each
INT64, INT32, UINT8, FLOAT32 = "<i8", "<i4", "|u1", "<f4"
_FORMATS = {INT64: "q", INT32: "i", UINT8: "B", FLOAT32: "f"}
_SIZES = {INT64: 8, INT32: 4, UINT8: 1, FLOAT32: 4}
CSR_DTYPES = {"indptr": INT64, "indices": INT32, "edge_type": UINT8, "confidence": FLOAT32}
NODE_DTYPES = {"node_flags": UINT8, "node_kind": UINT8, "node_rank": INT32}
_NPY_MAGIC = b"\x93NUMPY"


class SnapshotMismatch(ValueError):
    """The on-disk snapshot is missing, partial, corrupt or of another generation.

    The caller is expected to rebuild it from the database.
    """


# --------------------------------------------------------------------------- .npy files


def npy_header(descr: str, n: int) -> bytes:
    """The header `np.save` writes before a 1-d C-ordered array of `n` items of `descr`
    (format 1.0: its dict padded for the shape to grow, then to 64 bytes)."""
    text = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': ({n},), }}"
    text += " " * (21 - len(repr(n)))
    pad = 64 - (len(_NPY_MAGIC) + 4 + len(text) + 1) % 64
    text += " " * (pad % 64) + "\n"
    return _NPY_MAGIC + b"\x01\x00" + len(text).to_bytes(2, "little") + text.encode("latin1")


def count_of(data: Any, descr: str) -> int:
    """The items of `descr` a buffer holds."""
    return memoryview(data).nbytes // _SIZES[descr]


def write_npy(fh, descr: str, data: Any) -> tuple[int, str]:
    """`data` (a C-contiguous buffer of `descr` items: bytes, array, numpy) as `np.save`
    writes it; returns the size and xxh3 (hex) of the bytes written (the manifest's
    checksum, graph/layout.py note_written)."""
    view = memoryview(data)
    if not view.c_contiguous:
        raise ValueError("write_npy: a C-contiguous buffer expected")
    head = npy_header(descr, view.nbytes // _SIZES[descr])
    body = view.cast("B") if view.ndim != 1 or view.format != "B" else view
    fh.write(head)
    fh.write(body)
    digest = xxhash.xxh3_64(head)
    digest.update(body)
    return len(head) + body.nbytes, digest.hexdigest()


def read_npy(path: Path, descr: str | None = None) -> memoryview:
    """A 1-d `.npy` file mapped read-only, as a memoryview of its items (`descr`: the dtype
    it must hold, else any of the snapshot's). ValueError when it is not such a file."""
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) if size else b""
    if mm[:6] != _NPY_MAGIC or len(mm) < 10:
        raise ValueError(f"{path}: not a .npy file")
    major = mm[6]
    if major == 1:
        start, hlen = 10, int.from_bytes(mm[8:10], "little")
    elif major in (2, 3):
        start, hlen = 12, int.from_bytes(mm[8:12], "little")
    else:
        raise ValueError(f"{path}: .npy format {major} unknown")
    try:
        head = ast.literal_eval(mm[start : start + hlen].decode("latin1"))
        got, shape = head["descr"], head["shape"]
    except (SyntaxError, ValueError, TypeError, KeyError) as exc:
        raise ValueError(f"{path}: unreadable .npy header") from exc
    if (descr is not None and got != descr) or got not in _FORMATS:
        raise ValueError(f"{path}: dtype {got!r}, expected {descr or 'a snapshot dtype'}")
    if head.get("fortran_order") or not isinstance(shape, tuple) or len(shape) != 1:
        raise ValueError(f"{path}: not a 1-d C-ordered array")
    at, nbytes = start + hlen, shape[0] * _SIZES[got]
    if at + nbytes > size:
        raise ValueError(f"{path}: truncated")
    return memoryview(mm)[at : at + nbytes].cast(_FORMATS[got])


def _write_file(path: Path, write) -> None:
    """`write(fh)` -> (size, xxh3) of what it wrote, into `path` durably (tmp + rename)."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as fh:
        size, xxh3 = write(fh)
        fh.flush()
        layout.fsync_fd(fh.fileno(), path)  # at publish, in a generation being written
    os.replace(tmp, path)
    layout.note_written(path, size, xxh3)


# --------------------------------------------------------------------------- writing


def write_arrays(directory: Path, generation: int, n_nodes: int, n_edges: int,
                 arrays: dict[str, tuple[str, Any]],
                 linked: dict[str, tuple[Path, dict[str, Any]]]) -> Path:  # fmt: skip
    """A snapshot under `directory/csr/`: `arrays` (name -> (dtype string, buffer)) written,
    `linked` (name -> (a file of another snapshot, its meta entry)) hard-linked (copied
    where links are not possible); then its meta, atomically (csr.write_snapshot)."""
    folder = directory / CSR_DIRNAME
    folder.mkdir(parents=True, exist_ok=True)
    # secrets.token_hex's bytes, without its import (hashlib, OpenSSL: ~2.5 ms of an edit)
    token = f"g{generation}-{os.urandom(4).hex()}"
    entries: dict[str, dict[str, Any]] = {}
    for name, (source, entry) in linked.items():
        filename = f"{name}.{token}.npy"
        try:
            os.link(source, folder / filename)
        except OSError:  # a file system without hard links
            shutil.copyfile(source, folder / filename)
        entries[name] = {**entry, "file": filename}
    for name, (descr, data) in arrays.items():
        filename = f"{name}.{token}.npy"
        _write_file(folder / filename, lambda fh, d=descr, data=data: write_npy(fh, d, data))
        entries[name] = {"file": filename, "dtype": descr, "shape": [count_of(data, descr)]}
    layout.fsync_dir(folder)
    meta = {
        "format": SNAPSHOT_FORMAT,
        "generation": generation,
        "n_nodes": n_nodes,
        "n_edges": n_edges,
        "edge_types": EDGE_TYPES,
        "kind_codes": KIND_CODES,
        "arrays": entries,
    }
    payload = json.dumps(meta, indent=2, sort_keys=True).encode()
    _write_file(
        folder / META_NAME, lambda fh: (fh.write(payload), xxhash.xxh3_64_hexdigest(payload))
    )
    layout.fsync_dir(folder)
    live = {entry["file"] for entry in entries.values()} | {META_NAME}
    for stale in folder.iterdir():
        if stale.name not in live and (stale.suffix == ".npy" or stale.name.endswith(".tmp")):
            with contextlib.suppress(OSError):
                stale.unlink()
    return folder


def node_entries(n_nodes: int, node_flags: Any, node_kind: Any,
                 node_rank: Any) -> dict[str, tuple[str, Any]] | None:  # fmt: skip
    """The per-node arrays to write (ranks equal to the ids when `node_rank` is None); None
    when one has not `n_nodes` items."""
    rank = array("i", range(n_nodes)) if node_rank is None else node_rank
    out = {"node_flags": (UINT8, node_flags), "node_kind": (UINT8, node_kind),
           "node_rank": (INT32, rank)}  # fmt: skip
    if any(count_of(data, descr) != n_nodes for descr, data in out.values()):
        return None
    return out


def write_snapshot_sharing_edges(directory: str | os.PathLike[str], generation: int,
                                 node_flags: Any, node_kind: Any, node_rank: Any,
                                 source: str | os.PathLike[str]) -> Path | None:  # fmt: skip
    """A snapshot whose edges are those of the snapshot under ``source/csr/`` (an earlier
    generation's: a delta that changed no edge): its CSR files are hard-linked, only the
    per-node arrays are written (a kernel edit rebuilt and wrote 5M edges, ~125 MB, to
    write the same bytes). None, writing nothing, when that snapshot is unusable or has
    another number of nodes."""
    src = Path(source) / CSR_DIRNAME
    try:
        meta = read_meta(src)
        n_nodes, n_edges = int(meta["n_nodes"]), int(meta["n_edges"])
        entries = {name: meta["arrays"][f"{d}_{f}"]["file"] for d in ("forward", "reverse")
                   for f in CSR_DTYPES for name in [f"{d}_{f}"]}  # fmt: skip
    except (SnapshotMismatch, KeyError, TypeError, ValueError):
        return None
    nodes = node_entries(n_nodes, node_flags, node_kind, node_rank)
    if nodes is None:
        return None
    linked = {name: (src / file, meta["arrays"][name]) for name, file in entries.items()}
    return write_arrays(Path(directory), int(generation), n_nodes, n_edges, nodes, linked)


def write_from_codes(directory: Path, generation: int, n_nodes: int, codes: Any, confs: Any,
                     node_flags: Any, node_kind: Any, node_rank: Any) -> Path | None:  # fmt: skip
    """The snapshot of the index state's edge codes (sorted and unique, as the state keeps
    them) and per-node arrays, built by the native core; None, writing nothing, when the
    codes are not so (graph/csr.py's build_csr sorts them) or an array is not n_nodes long."""
    from codeimpact.native import _core

    nodes = node_entries(n_nodes, node_flags, node_kind, node_rank)
    built = None if nodes is None else _core.csr_from_codes(codes, confs, n_nodes)
    if built is None:
        return None
    arrays = {f"{d}_{f}": (descr, built[k * 4 + j]) for k, d in enumerate(("forward", "reverse"))
              for j, (f, descr) in enumerate(CSR_DTYPES.items())}  # fmt: skip
    arrays.update(nodes)
    return write_arrays(directory, generation, n_nodes, count_of(codes, INT64), arrays, {})


# --------------------------------------------------------------------------- reading


def read_meta(folder: Path) -> Mapping[str, Any]:
    try:
        meta = json.loads((folder / META_NAME).read_text())
    except FileNotFoundError:
        raise SnapshotMismatch(f"no CSR snapshot in {folder} (meta.json missing)") from None
    except (OSError, ValueError) as exc:
        raise SnapshotMismatch(f"unreadable CSR snapshot metadata in {folder}: {exc}") from None
    if not isinstance(meta, dict) or meta.get("format") != SNAPSHOT_FORMAT:
        raise SnapshotMismatch(f"CSR snapshot in {folder} has an unknown format")
    if meta.get("edge_types") != EDGE_TYPES or meta.get("kind_codes") != KIND_CODES:
        raise SnapshotMismatch(f"CSR snapshot in {folder} uses other type or kind codes")
    return meta


def generation_meta(folder: Path, expected_generation: int) -> Mapping[str, Any]:
    """`read_meta`, of generation `expected_generation` (else SnapshotMismatch)."""
    meta = read_meta(folder)
    generation = meta.get("generation")
    if generation != expected_generation:
        raise SnapshotMismatch(
            f"CSR snapshot is of generation {generation}, expected {expected_generation}"
        )
    return meta


class Rows:
    """One direction of a snapshot's edges, as memoryviews (csr.CSR's arrays)."""

    __slots__ = ("indptr", "indices", "edge_type", "confidence")

    def __init__(self, indptr, indices, edge_type, confidence):
        self.indptr, self.indices = indptr, indices
        self.edge_type, self.confidence = edge_type, confidence

    @property
    def n_nodes(self) -> int:
        return len(self.indptr) - 1

    @property
    def n_edges(self) -> int:
        return len(self.indices)

    def row(self, node: int) -> slice:
        """Slice of the edge arrays holding ``node``'s edges."""
        return slice(self.indptr[node], self.indptr[node + 1])


class Nodes:
    """A snapshot read without numpy (csr.Snapshot's fields, memoryviews): what an
    incremental run takes from the live generation's."""

    __slots__ = ("generation", "n_nodes", "forward", "reverse", "node_flags", "node_kind",
                 "node_rank")  # fmt: skip

    def __init__(self, generation, n_nodes, forward, reverse, node_flags, node_kind, node_rank):
        self.generation, self.n_nodes = generation, n_nodes
        self.forward, self.reverse = forward, reverse
        self.node_flags, self.node_kind, self.node_rank = node_flags, node_kind, node_rank


def load_nodes(directory: str | os.PathLike[str], expected_generation: int) -> Nodes:
    """The snapshot under ``directory/csr/`` mapped read-only, checked as csr.load_snapshot
    checks it (the native core validates its CSR arrays); SnapshotMismatch when it is
    missing, partial, corrupt or of another generation."""
    from codeimpact.native import _core

    folder = Path(directory) / CSR_DIRNAME
    meta = generation_meta(folder, expected_generation)
    generation = meta["generation"]
    try:
        n_nodes = int(meta["n_nodes"])
        arrays = {}
        for name, entry in meta["arrays"].items():
            arr = read_npy(folder / entry["file"])
            descr = {"q": INT64, "i": INT32, "B": UINT8, "f": FLOAT32}[arr.format]
            if descr != entry["dtype"] or [len(arr)] != list(entry["shape"]):
                raise SnapshotMismatch(f"CSR snapshot array {name} does not match meta.json")
            arrays[name] = arr
        rows = {}
        for d in ("forward", "reverse"):
            parts = [arrays[f"{d}_{f}"] for f in CSR_DTYPES]
            for part, descr in zip(parts, CSR_DTYPES.values()):
                if part.format != _FORMATS[descr]:
                    raise ValueError(f"CSR.{d} array of another dtype")
            _core.validate_csr(*parts)
            rows[d] = Rows(*parts)
        fwd, rev = rows["forward"], rows["reverse"]
        if fwd.n_nodes != n_nodes or rev.n_nodes != n_nodes:
            raise ValueError("forward and reverse CSR must both have n_nodes rows")
        if fwd.n_edges != rev.n_edges:
            raise ValueError("forward and reverse CSR must hold the same number of edges")
        for name, descr in NODE_DTYPES.items():
            arr = arrays[name]
            if arr.format != _FORMATS[descr] or len(arr) != n_nodes:
                raise ValueError(f"Snapshot.{name} must be a {descr} array of ({n_nodes},)")
        return Nodes(int(generation), n_nodes, fwd, rev, arrays["node_flags"],
                     arrays["node_kind"], arrays["node_rank"])  # fmt: skip
    except SnapshotMismatch:
        raise
    except (OSError, KeyError, TypeError, ValueError) as exc:
        raise SnapshotMismatch(f"unusable CSR snapshot in {folder}: {exc}") from None
