"""Meta values kept in files of a generation folder beside the database.

The tree signature is ~600 KB on Django and every run writes a new one (a checkpoint of
it, or as much write-ahead log per run: graph/wal_store.py), so it lives in a file
instead of the Meta table; readers see it in `meta` alike. So do the incomplete files
(the kernel's are 2 MB of JSON: in the Meta table every edit wrote them to the WAL again,
so the spare's log passed wal_store.COMPACT_WAL_BYTES at every edit and each one paid a
compaction of the 1 GB database, ~30 s of CPU). A module of its own, without Kùzu: a
no-op `analyze` reads the signature and never opens the database.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from codeimpact.graph import layout

META_FILES = {"tree_signature": "tree-signature.json", "incomplete": "incomplete.json"}


def meta_to_files(folder: Path, meta: dict[str, Any]) -> dict[str, Any]:
    """Write the META_FILES values of `meta` into `folder`; returns the rest."""
    rest = dict(meta)
    for key, name in META_FILES.items():
        if key in rest:
            layout.atomic_write(folder / name, json.dumps(rest.pop(key)).encode())
    return rest


def meta_from_files(folder: Path) -> dict[str, Any]:
    out = {}
    for key, name in META_FILES.items():
        try:
            out[key] = json.loads((folder / name).read_bytes())
        except (OSError, ValueError):
            continue
    return out
