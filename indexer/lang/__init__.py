"""The supported languages: one package each (indexer/lang/<language>/), registered here.

A language package holds its queries (`*.scm`), its extraction, its resolution hooks and
its project rules, and exports its LanguageSpec as `SPEC` (or `SPECS`); lang/api.py is the
contract they implement, lang/engine/ the resolution they share.
"""

from __future__ import annotations

from codeimpact.indexer.lang import (
    cfamily,
    csharp,
    dart,
    go,
    java,
    kotlin,
    php,
    python,
    ruby,
    rust,
    swift,
    typescript,
)
from codeimpact.indexer.lang.api import LanguageSpec

LANGUAGES: dict[str, LanguageSpec] = {
    spec.name: spec
    for spec in (
        python.SPEC,
        *typescript.SPECS,
        rust.SPEC,
        go.SPEC,
        java.SPEC,
        *cfamily.SPECS,
        csharp.SPEC,
        ruby.SPEC,
        php.SPEC,
        kotlin.SPEC,
        swift.SPEC,
        dart.SPEC,
    )
}

_BY_EXTENSION = {ext: spec for spec in LANGUAGES.values() for ext in spec.extensions}

# The change plan's flow rules by language (LanguageSpec.flow_rules). A language without its
# own takes Python's: they planned every language's files before languages had the hook, and
# a language's rules of its own are a change of its plans to measure (incremental == full).
DEFAULT_FLOW_RULES = python.SPEC.flow_rules
FLOW_RULES = {name: spec.flow_rules or DEFAULT_FLOW_RULES for name, spec in LANGUAGES.items()}


def content_language(discovered: str, data: bytes | None) -> str:
    """The language of a file its extension gave `discovered`, once its bytes are read
    (LanguageSpec.language_of: a `.h` holding C++ is `cpp`)."""
    spec = LANGUAGES[discovered]
    if spec.language_of is None or data is None:
        return discovered
    return spec.language_of(data)


def same_spec(recorded: str, discovered: str) -> bool:
    """Whether a file recorded as `recorded` is still one when its extension says
    `discovered` (its bytes unchanged: the content gave the recorded one)."""
    if recorded == discovered:
        return True
    spec = LANGUAGES[discovered]
    other = LANGUAGES.get(recorded)
    return spec.language_of is not None and other is not None and other.group == spec.group


def language_for(path: str, enabled: frozenset[str] | None = None) -> LanguageSpec | None:
    dot = path.rfind(".")
    if dot < 0:
        return None
    spec = _BY_EXTENSION.get(path[dot:].lower())
    if spec is None or (enabled is not None and spec.name not in enabled):
        return None
    return spec
