"""The runner identity: a digest of everything that can change what the indexer writes.

Components are plain JSON values; the digest is sha256 over their canonical
(sorted-keys, compact) JSON. `CODEIMPACT_IDENTITY_OVERRIDE` (a JSON object of
component -> value) is read only here, so tests can simulate an upgraded
component without installing one.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from functools import cache
from importlib import metadata

from codeimpact.graph.schema import SCHEMA_VERSION
from codeimpact.indexer.config import IndexConfig
from codeimpact.indexer.facts import FACTS_FORMAT
from codeimpact.indexer.languages import LANGUAGES

from codeimpact import __version__

OVERRIDE_ENV = "CODEIMPACT_IDENTITY_OVERRIDE"


def _dist_version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "unknown"


@cache
def grammar_fingerprint(grammar: str) -> str:
    """ABI version plus a hash of the grammar's node-kind and field tables."""
    from tree_sitter_language_pack import get_language

    lang = get_language(grammar)
    h = hashlib.sha256()
    for i in range(lang.node_kind_count):
        h.update(f"{i}:{lang.node_kind_for_id(i)}:{int(lang.node_kind_is_named(i))};".encode())
    for i in range(1, lang.field_count + 1):
        h.update(f"f{i}:{lang.field_name_for_id(i)};".encode())
    return f"abi{lang.abi_version}-{h.hexdigest()[:16]}"


def components(config: IndexConfig) -> dict:
    langs = sorted(config.languages) if config.languages is not None else sorted(LANGUAGES)
    comps = {
        "codeimpact": __version__,
        "schema": SCHEMA_VERSION,
        "facts_format": FACTS_FORMAT,
        "extractors": {
            name: LANGUAGES[name].extractor_version for name in langs if name in LANGUAGES
        },
        "grammars": {
            name: grammar_fingerprint(LANGUAGES[name].grammar)
            for name in langs
            if name in LANGUAGES
        },
        "tree_sitter": _dist_version("tree-sitter"),
        "tree_sitter_language_pack": _dist_version("tree-sitter-language-pack"),
        "kuzu": _dist_version("kuzu"),
        "python": f"{sys.version_info.major}.{sys.version_info.minor}",
        "config": config.identity(),
    }
    override = os.environ.get(OVERRIDE_ENV)
    if override:
        try:
            extra = json.loads(override)
        except ValueError:
            extra = {}
        if isinstance(extra, dict):
            comps.update(extra)
    return comps


def digest(comps: dict) -> str:
    return hashlib.sha256(
        json.dumps(comps, sort_keys=True, separators=(",", ":")).encode()
    ).hexdigest()


def runner_identity(config: IndexConfig) -> tuple[str, dict]:
    comps = components(config)
    return digest(comps), comps


def changed_components(old: dict, new: dict) -> list[str]:
    """Names of the components that differ, nested ones as `extractors.python`."""
    out = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if a == b:
            continue
        if isinstance(a, dict) and isinstance(b, dict):
            out.extend(f"{key}.{k}" for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k))
        else:
            out.append(key)
    return out
