"""Derived data written beside a generation's database: the unresolved call sites.

Unresolvable call sites are not edges, but impact needs them to say when an
answer is only a lower bound, so they are kept per callee name.
"""

from __future__ import annotations

import marshal
import os
import shutil
from pathlib import Path

from codeimpact.graph.layout import atomic_write, fsync_dir, fsync_file

UNRESOLVED_FILE = "unresolved.bin"


def write_unresolved(gen_dir: Path, sites: dict[str, list[tuple[str, int]]] | Path) -> None:
    """`sites`: callee name -> [(calling symbol uid, line)]; or the folder of a generation
    whose sites these are (an edit that changed none: its file is linked, not rewritten)."""
    if isinstance(sites, Path):
        try:
            os.link(sites / UNRESOLVED_FILE, gen_dir / UNRESOLVED_FILE)
        except OSError:  # a file system without hard links
            shutil.copyfile(sites / UNRESOLVED_FILE, gen_dir / UNRESOLVED_FILE)
            fsync_file(gen_dir / UNRESOLVED_FILE)
        fsync_dir(gen_dir)
        return
    if not all(type(v) is list for v in sites.values()):  # lists already: an edit's (read)
        sites = {k: list(v) for k, v in sites.items()}  # (Django: 10 ms of the 17 a write took)
    atomic_write(gen_dir / UNRESOLVED_FILE, marshal.dumps(sites))


def read_unresolved(gen_dir: Path) -> dict[str, list[tuple[str, int]]]:
    try:
        return marshal.loads((gen_dir / UNRESOLVED_FILE).read_bytes())
    except (OSError, ValueError, EOFError, TypeError):
        return {}
