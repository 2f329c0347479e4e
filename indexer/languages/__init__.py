"""Registry of supported languages; adding a language is adding a module here."""

from __future__ import annotations

from codeimpact.indexer.languages import golang, java, python, rust, typescript
from codeimpact.indexer.languages.base import LanguageSpec

LANGUAGES: dict[str, LanguageSpec] = {
    spec.name: spec for spec in (python.SPEC, *typescript.SPECS, rust.SPEC, golang.SPEC, java.SPEC)
}

_BY_EXTENSION = {ext: spec for spec in LANGUAGES.values() for ext in spec.extensions}


def language_for(path: str, enabled: frozenset[str] | None = None) -> LanguageSpec | None:
    dot = path.rfind(".")
    if dot < 0:
        return None
    spec = _BY_EXTENSION.get(path[dot:].lower())
    if spec is None or (enabled is not None and spec.name not in enabled):
        return None
    return spec
