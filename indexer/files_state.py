"""The small first file of a generation's state (`state-files.bin`, indexer/state.py
says what the others hold): identity and config digests, HEAD, the run's figures, and
per file its size, mtime, content hash and status: all a run needs to plan its changes,
and all a run that finds none reads. A module of its own, without numpy: the graph
state's arrays are no part of a no-op `analyze`.
"""

from __future__ import annotations

import marshal
from pathlib import Path
from typing import NamedTuple

from codeimpact.graph.layout import atomic_write
from codeimpact.native.record import Compared

STATE_FORMAT = 8  # of every state file; 6: ids in state-ids.bin; 7: ids as a table, keys
# in state-keys.bin, both with their changes carried in state-graph.bin; 8: the foreign
# owners in buckets by the edge source's file (state.ForeignOwners)
FILES_NAME = "state-files.bin"


class FileState(NamedTuple):
    language: str
    size: int
    mtime_ns: int
    content_hash: str
    status: str
    detail: str
    lines: int
    is_test: bool


class FilesState(Compared):
    identity: str
    configs_digest: str
    commit: str | None  # HEAD when indexed
    stats: dict  # the summary figures of that run, for a no-change report
    files: dict[str, FileState]
    __slots__ = ("identity", "configs_digest", "commit", "stats", "files")

    def __init__(
        self,
        identity: str,
        configs_digest: str,
        commit: str | None,
        stats: dict,
        files: dict[str, FileState],
    ) -> None:
        self.identity = identity
        self.configs_digest = configs_digest
        self.commit = commit
        self.stats = stats
        self.files = files


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
