"""What the indexer remembers of the generation it wrote, so the next run can do only the delta.

Kept beside the database in the generation folder; a no-change run reads only
the small first file:
- `state-files.bin`: identity and config digests, HEAD, the run's figures, and
  per file its size, mtime, content hash and status (all the change plan needs);
- `state-graph.bin`: per file its resolved output, its lookup keys (used names and
  alias bindings) and its resolver's summary (as separate marshal blobs, decoded
  only where a run needs them), module names, the dense-id assignment, the
  owners of edges that files other than their source's own produce, reference
  counts of external symbols, running totals;
- `state-edges.npy` / `state-conf.npy`: every edge of the graph as a sorted
  int64 code (source id, target id, relation) and its confidence, patched by
  each run and turned into the CSR snapshot.

The extraction facts themselves live in the facts cache (by content hash), so
a run reads the facts of only the files it resolves.
"""

from __future__ import annotations

import marshal
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np

from codeimpact.graph.layout import atomic_write
from codeimpact.indexer.resolved import Edge, ResolvedFile, SymbolRow, Unresolved

STATE_FORMAT = 3
FILES_NAME = "state-files.bin"
GRAPH_NAME = "state-graph.bin"
EDGES_NAME = "state-edges.npy"
CONF_NAME = "state-conf.npy"

# An edge code: source id, target id and relation code in one sortable int64.
ID_BITS = 24
TYPE_BITS = 3
MAX_IDS = 1 << ID_BITS


def edge_code(src: int, dst: int, etype: int) -> int:
    return (src << (ID_BITS + TYPE_BITS)) | (dst << TYPE_BITS) | etype


def decode_codes(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    src = codes >> (ID_BITS + TYPE_BITS)
    dst = (codes >> TYPE_BITS) & (MAX_IDS - 1)
    etype = (codes & ((1 << TYPE_BITS) - 1)).astype(np.uint8)
    return src, dst, etype


class FileState(NamedTuple):
    language: str
    size: int
    mtime_ns: int
    content_hash: str
    status: str
    detail: str
    lines: int
    is_test: bool


@dataclass
class FilesState:
    identity: str
    configs_digest: str
    commit: str | None  # HEAD when indexed
    stats: dict  # the summary figures of that run, for a no-change report
    files: dict[str, FileState]


def resolved_blob(rf: ResolvedFile) -> bytes:
    return marshal.dumps(
        (
            [tuple(s) for s in rf.symbols],
            [tuple(e) for e in rf.edges],
            [tuple(u) for u in rf.unresolved],
            rf.calls_total,
            rf.calls_builtin,
        )
    )


def resolved_from_blob(path: str, blob: bytes) -> ResolvedFile:
    t = marshal.loads(blob)
    new = tuple.__new__
    return ResolvedFile(
        path,
        [new(SymbolRow, s) for s in t[0]],
        [new(Edge, e) for e in t[1]],
        [new(Unresolved, u) for u in t[2]],
        t[3],
        t[4],
    )


@dataclass
class GraphState:
    resolved_blobs: dict[str, bytes]
    used: dict[str, bytes]  # path -> plan.lookup_keys_blob of its facts
    modules: dict  # language -> {path: module name}, or None where the resolver has none
    ids: dict[str, int]
    free_ids: list[int]
    foreign: dict[tuple, list[str]]  # edge key -> files (not its source's) that produce it
    ext_refs: dict[str, int]  # external uid -> edges pointing at it
    totals: dict  # calls and edge counts
    summaries: dict[str, bytes] = field(default_factory=dict)  # path -> resolver summary
    codes: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    confs: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))
    _decoded: dict[str, ResolvedFile] = field(default_factory=dict, repr=False)

    def resolved(self, path: str) -> ResolvedFile | None:
        rf = self._decoded.get(path)
        if rf is None:
            blob = self.resolved_blobs.get(path)
            if blob is None:
                return None
            rf = self._decoded[path] = resolved_from_blob(path, blob)
        return rf

    def lookup_keys(self, path: str) -> tuple[frozenset[str], list] | None:
        """(used names, alias binders) of a file, as `plan.lookup_keys_blob` wrote them."""
        blob = self.used.get(path)
        if blob is None:
            return None
        names, binders = marshal.loads(blob)
        return frozenset(names), binders


def save_files_state(gen_dir: Path, st: FilesState) -> None:
    files = {p: tuple(f) for p, f in st.files.items()}
    data = (STATE_FORMAT, st.identity, st.configs_digest, st.commit, st.stats, files)
    atomic_write(gen_dir / FILES_NAME, marshal.dumps(data))


def load_files_state(gen_dir: Path) -> FilesState | None:
    try:
        t = marshal.loads((gen_dir / FILES_NAME).read_bytes())
        if t[0] != STATE_FORMAT:
            return None
        new = tuple.__new__
        return FilesState(t[1], t[2], t[3], t[4], {p: new(FileState, f) for p, f in t[5].items()})
    except (OSError, ValueError, EOFError, TypeError, IndexError):
        return None


def _save_npy(path: Path, arr: np.ndarray) -> None:
    tmp = path.with_name(path.name + f".tmp{os.getpid()}.npy")
    np.save(tmp, arr)
    os.replace(tmp, path)


def save_graph_state(gen_dir: Path, st: GraphState) -> None:
    data = (
        STATE_FORMAT,
        st.resolved_blobs,
        st.used,
        st.modules,
        st.ids,
        st.free_ids,
        st.foreign,
        st.ext_refs,
        st.totals,
        st.summaries,
    )
    _save_npy(gen_dir / EDGES_NAME, st.codes)
    _save_npy(gen_dir / CONF_NAME, st.confs)
    atomic_write(gen_dir / GRAPH_NAME, marshal.dumps(data))


def load_graph_state(gen_dir: Path) -> GraphState | None:
    try:
        t = marshal.loads((gen_dir / GRAPH_NAME).read_bytes())
        if t[0] != STATE_FORMAT:
            return None
        codes = np.load(gen_dir / EDGES_NAME)
        confs = np.load(gen_dir / CONF_NAME)
        return GraphState(t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8], t[9], codes, confs)
    except (OSError, ValueError, EOFError, TypeError, IndexError):
        return None
