"""What the indexer remembers of the generation it wrote, so the next run can do only the delta.

Kept beside the database in the generation folder, in three marshal files so a
no-change run reads only the small one:
- `state-files.bin`: identity digest, config-files digest, and per file its
  size, mtime, content hash and status (the change plan needs only this);
- `state-graph.bin`: per file its resolved symbols, edges and unresolved call
  sites, each language's module names, and the dense-id assignment;
- `facts.bin`: per file the extraction facts blob (cheaper than the cache's
  one file per hash when every file is needed).
"""

from __future__ import annotations

import marshal
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from codeimpact.graph.layout import atomic_write
from codeimpact.indexer.resolved import Edge, ResolvedFile, SymbolRow, Unresolved

STATE_FORMAT = 1
FILES_NAME = "state-files.bin"
GRAPH_NAME = "state-graph.bin"
FACTS_NAME = "facts.bin"


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


@dataclass
class GraphState:
    resolved: dict[str, ResolvedFile]
    modules: dict  # language -> {path: module name}, or None where the resolver has none
    ids: dict[str, int]
    free_ids: list[int] = field(default_factory=list)

    @property
    def next_id(self) -> int:
        return max(self.ids.values(), default=-1) + 1 if self.ids else 0


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


def _rf_tuple(rf: ResolvedFile) -> tuple:
    return (
        [tuple(s) for s in rf.symbols],
        [tuple(e) for e in rf.edges],
        [tuple(u) for u in rf.unresolved],
        rf.calls_total,
        rf.calls_builtin,
    )


def _rf_from(path: str, t: tuple) -> ResolvedFile:
    new = tuple.__new__
    return ResolvedFile(
        path,
        [new(SymbolRow, s) for s in t[0]],
        [new(Edge, e) for e in t[1]],
        [new(Unresolved, u) for u in t[2]],
        t[3],
        t[4],
    )


def save_graph_state(gen_dir: Path, st: GraphState) -> None:
    data = (
        STATE_FORMAT,
        {p: _rf_tuple(rf) for p, rf in st.resolved.items()},
        st.modules,
        st.ids,
        st.free_ids,
    )
    atomic_write(gen_dir / GRAPH_NAME, marshal.dumps(data))


def load_graph_state(gen_dir: Path) -> GraphState | None:
    try:
        t = marshal.loads((gen_dir / GRAPH_NAME).read_bytes())
        if t[0] != STATE_FORMAT:
            return None
        return GraphState({p: _rf_from(p, v) for p, v in t[1].items()}, t[2], t[3], t[4])
    except (OSError, ValueError, EOFError, TypeError, IndexError):
        return None


def save_facts(gen_dir: Path, blobs: dict[str, bytes]) -> None:
    atomic_write(gen_dir / FACTS_NAME, marshal.dumps(blobs))


def load_facts(gen_dir: Path) -> dict[str, bytes] | None:
    try:
        data = marshal.loads((gen_dir / FACTS_NAME).read_bytes())
        return data if isinstance(data, dict) else None
    except (OSError, ValueError, EOFError, TypeError):
        return None
