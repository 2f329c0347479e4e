"""Which paths discover would index, and one file's content entry: the rules the freshness
checks (`worktree`, `treesig`) share with `discover`.

An *entry* is what freshness records for a file: its content hash (the xxh3 of
`reading.read_source`), its size when it could not be hashed (too large,
unreadable), or `-` when discover would not list it.
"""

from __future__ import annotations

import os

from codeimpact.indexer.config import IndexConfig
from codeimpact.indexer.discover import ALWAYS_SKIPPED, IgnoreRules
from codeimpact.indexer.lang import language_name_for
from codeimpact.indexer.reading import read_source

ABSENT = "-"


def entry(content_hash: str, size: int) -> str:
    """What the digest records for a present file: its hash, or its size if unhashed."""
    return content_hash if content_hash else f"size:{size}"


def config_rules(config: IndexConfig) -> IgnoreRules | None:
    """The config's own ignore patterns (None when it has none)."""
    if not config.ignore:
        return None
    rules = IgnoreRules()
    rules.add("", list(config.ignore))
    return rules


def indexable_name(rel: str, config: IndexConfig, rules: IgnoreRules | None) -> bool:
    """discover's name rules: always-skipped folders, a known language, extra ignores."""
    if any(p in ALWAYS_SKIPPED for p in rel.split("/")[:-1]):
        return False
    if language_name_for(rel, config.languages) is None:
        return False
    return not (rules is not None and rules.ignored(rel, False))


def present(root: str, rel: str) -> bool:
    """discover's file rules: a regular file, or a link to one inside the repository."""
    full = os.path.join(root, rel)
    try:
        os.lstat(full)
    except OSError:
        return False
    if os.path.islink(full):
        real = os.path.realpath(full)
        return (real == root or real.startswith(root + os.sep)) and os.path.isfile(real)
    return os.path.isfile(full)


def hash_entry(root: str, rel: str, config: IndexConfig) -> str:
    """The entry of one file now (`-` if discover would not list it)."""
    if not present(root, rel):
        return ABSENT
    rr = read_source(root, rel, config.max_file_size)
    return entry(rr.content_hash, rr.size)
