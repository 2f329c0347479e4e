"""The sources the `_syntax` extension is built from, and their digest.

setup.py builds the extension from these lists and compiles their digest into it
(`_syntax.SOURCE_DIGEST`); native/runner.py computes the digest again from the files beside
the package when they are there (an editable install, a source checkout) and does not use an
extension built from other sources: a `native/` changed and not rebuilt would silently give
the old facts. Declared once, here, for both.

This file imports only the standard library: setup.py runs it as plain code, before the
package it builds can be imported.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

try:  # not hashlib: it loads OpenSSL (~2.5 ms of every run's start-up; native/sha.py)
    from _sha256 import sha256
except ImportError:  # pragma: no cover
    from hashlib import sha256

# The extension's C files, relative to the repository's (or the package's) native/ folder.
SYNTAX_SOURCES = (
    "module.c",
    "runner.c",
    "runner_steps.c",
    "walk.c",
    "query_type.c",
    "facts.c",
    "facts_type.c",
    "facts_defs.c",
    "facts_bind.c",
    "facts_items.c",
    "facts_flow.c",
    "facts_text.c",
    "chains.c",
    "call_sites.c",
    "ts_runtime.c",
)
# What they include or are generated from: our headers, the capture vocabulary compiled in
# (setup.py writes vocabulary.h from it), Python's chain syntax (chain_syntax.h, for
# chains.c) and the vendored tree-sitter runtime.
CHAIN_SYNTAX = "../indexer/lang/python/chain_syntax.py"
SYNTAX_DEPENDS = ("runner.h", "facts.h", "vocabulary.py", CHAIN_SYNTAX)
VENDORED = "tree_sitter"


def syntax_files(native: Path) -> list[str] | None:
    """Every file the extension is built from, relative to `native` and sorted; None when
    any is missing (an installed package ships no C sources: nothing to compare)."""
    names = list(SYNTAX_SOURCES) + list(SYNTAX_DEPENDS)
    if not all((native / n).is_file() for n in names) or not (native / VENDORED).is_dir():
        return None
    # os.walk, not Path.rglob: the listing is part of every run's start-up (runner.py)
    vendored = [
        os.path.relpath(os.path.join(folder, f), native).replace(os.sep, "/")
        for folder, _, files in os.walk(native / VENDORED)
        for f in files
        if f.endswith((".c", ".h")) and os.path.isfile(os.path.join(folder, f))
    ]
    return sorted(names + vendored)


def source_digest(native: Path) -> str | None:
    """sha256 (first 16 hex digits) over the names and bytes of `syntax_files(native)`."""
    files = syntax_files(native)
    if files is None:
        return None
    h = sha256()
    for name in files:
        h.update(name.encode() + b"\0" + (native / name).read_bytes() + b"\0")
    return h.hexdigest()[:16]


def source_stamp(native: Path) -> str | None:
    """sha256 (first 16 hex digits) over the names, sizes and modification times of
    `syntax_files(native)`: setup.py compiles it into the extension beside the digest, and
    while the files still have that stamp they are the files the extension was built from
    (the test Python itself applies to compiled bytecode), so runner.py takes the digest
    compiled in instead of hashing 0.9 MB again (~4 ms of every run's start-up). One stat
    per file, no pathlib: this runs at every start-up."""
    root = str(native)
    stats: dict[str, os.stat_result] = {}
    try:
        for name in SYNTAX_SOURCES + SYNTAX_DEPENDS:
            stats[name] = os.stat(os.path.join(root, name))
        folders = [VENDORED]
        while folders:
            folder = folders.pop()
            with os.scandir(os.path.join(root, folder)) as entries:
                for entry in entries:
                    rel = f"{folder}/{entry.name}"
                    if entry.is_dir(follow_symlinks=False):
                        folders.append(rel)
                    elif entry.name.endswith((".c", ".h")) and entry.is_file():
                        stats[rel] = entry.stat()
    except OSError:  # a file or the vendored folder missing: nothing to compare
        return None
    h = sha256()
    for name in sorted(stats):
        st = stats[name]
        if not stat.S_ISREG(st.st_mode):
            return None
        h.update(f"{os.path.normpath(name)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:16]
