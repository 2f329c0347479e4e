"""The runner identity: a digest of everything that can change what the indexer writes.

Components are plain JSON values; the digest is sha256 over their canonical
(sorted-keys, compact) JSON. `CODEIMPACT_IDENTITY_OVERRIDE` (a JSON object of
component -> value; a dotted key such as `"extractors.python"` sets one entry
of a nested component) is read only here, so tests can simulate an upgraded
component without installing one. A malformed override is an error, not a
silent no-op, so a test that sets one can never pass by accident.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from functools import cache
from importlib import metadata

from codeimpact import __version__
from codeimpact.graph.errors import BadInput
from codeimpact.graph.schema import SCHEMA_VERSION
from codeimpact.indexer.config import IndexConfig
from codeimpact.indexer.lang import LANGUAGES
from codeimpact.indexer.lang.api import FACTS_FORMAT
from codeimpact.native.runner import native_status

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
            name: LANGUAGES[name].extract_version for name in langs if name in LANGUAGES
        },
        "grammars": {
            name: grammar_fingerprint(LANGUAGES[name].grammar)
            for name in langs
            if name in LANGUAGES
        },
        "tree_sitter": _dist_version("tree-sitter"),
        # the native extraction (native/runner.py) or the pure Python path: the same facts,
        # but an index is written by one of them, never by both
        "native_extraction": native_status().used,
        "tree_sitter_language_pack": _dist_version("tree-sitter-language-pack"),
        "kuzu": _dist_version("kuzu"),
        "python": f"{sys.version_info.major}.{sys.version_info.minor}",
        "config": config.identity(),
    }
    apply_override(comps, os.environ.get(OVERRIDE_ENV))
    return comps


def apply_override(comps: dict, override: str | None) -> None:
    """Merge the test hook's JSON object into `comps` (dotted keys reach one level down)."""
    if not override:
        return
    try:
        extra = json.loads(override)
    except ValueError:
        extra = None
    if not isinstance(extra, dict):
        raise BadInput(f"{OVERRIDE_ENV} must be a JSON object of component -> value")
    for key, value in extra.items():
        head, _, sub = key.partition(".")
        if sub:
            nested = comps.get(head)
            comps[head] = {**nested, sub: value} if isinstance(nested, dict) else {sub: value}
        else:
            comps[key] = value


def digest(comps: dict) -> str:
    return hashlib.sha256(
        json.dumps(comps, sort_keys=True, separators=(",", ":")).encode()
    ).hexdigest()


def runner_identity(config: IndexConfig) -> tuple[str, dict]:
    comps = components(config)
    return digest(comps), comps


def changed_components(old: dict, new: dict) -> list[str]:
    """Names of the components that differ, nested ones as `extractors.python`."""
    return [c["component"] for c in component_changes(old, new)]


def component_changes(old: dict, new: dict) -> list[dict]:
    """`[{component, indexed, current}]` for each component that differs (None: absent)."""
    out = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if a == b:
            continue
        if isinstance(a, dict) and isinstance(b, dict):
            out.extend(
                {"component": f"{key}.{k}", "indexed": a.get(k), "current": b.get(k)}
                for k in sorted(set(a) | set(b))
                if a.get(k) != b.get(k)
            )
        else:
            out.append({"component": key, "indexed": a, "current": b})
    return out


def config_from_identity(stored: object) -> IndexConfig | None:
    """The IndexConfig an index was built with, from its stored `config` component.

    None when the stored value is not one this version wrote; status then
    judges the index with the default configuration and says the config changed.
    """
    if not isinstance(stored, dict):
        return None
    try:
        langs = stored["languages"]
        config = IndexConfig(
            max_file_size=int(stored["max_file_size"]),
            ignore=tuple(str(p) for p in stored["ignore"]),
            languages=None if langs == "all" else frozenset(str(x) for x in langs),
            parse_timeout_ms=int(stored["parse_timeout_ms"]),
        )
    except (KeyError, TypeError, ValueError):
        return None
    # a config this version would store differently was not written by it
    return config if config.identity() == stored else None
