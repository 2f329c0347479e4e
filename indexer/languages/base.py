"""The per-language extension point: a language is one module exporting a LanguageSpec."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources

import tree_sitter as ts
from tree_sitter_language_pack import get_language

from codeimpact.indexer.facts import FileFacts


@dataclass(frozen=True)
class LanguageSpec:
    name: str  # our name, stored in File.language and Symbol.language
    grammar: str  # tree-sitter-language-pack grammar name
    extensions: tuple[str, ...]
    extractor_version: int  # bump when extraction output changes (part of the runner identity)
    extract: Callable[[bytes], FileFacts]  # pure: bytes -> facts, never raises on bad syntax
    is_test_path: Callable[[str], bool]
    # "module:Class" of the cross-file resolver:
    #   Class(files: dict[path, FileFacts], is_test_path, configs: dict[path, text])
    # with .resolve_file(path) -> ResolvedFile (the edges that file owns)
    resolver: str = ""
    # Basenames of project files the resolver reads (tsconfig.json, go.mod, ...); discovery
    # hands their text to the resolver as `configs` (path -> text), so resolution stays pure.
    config_files: tuple[str, ...] = ()
    # Languages with the same group share one resolver project (TS files import JS files);
    # "" means the language's own name.
    resolver_group: str = ""

    @property
    def group(self) -> str:
        return self.resolver_group or self.name

    def make_project(
        self,
        files: Mapping[str, FileFacts],
        configs: dict[str, str] | None = None,
        prior: Prior | None = None,
    ):
        """The resolver project over `files`; `prior` reaches resolvers that summarise files
        (SUPPORTS_PRIOR), the others build everything from the facts."""
        module, _, name = self.resolver.partition(":")
        cls = getattr(importlib.import_module(module), name)
        if prior is not None and getattr(cls, "SUPPORTS_PRIOR", False):
            return cls(files, self.is_test_path, configs or {}, prior)
        return cls(files, self.is_test_path, configs or {})


@dataclass
class Prior:
    """What a resolver summarised per file in the previous run (its `summaries()`).

    Files in `dirty` (those an incremental run re-resolves) are summarised again; the
    others' summaries stand, for the same reason their edges do (indexer/plan.py).
    """

    summaries: dict[str, object]
    dirty: set[str]


def query_text(filename: str) -> str:
    """The text of a .scm file beside this module."""
    return resources.files("codeimpact.indexer.languages").joinpath(filename).read_text()


@cache
def load_query(grammar: str, filename: str | None, text: str | None = None) -> ts.Query:
    """A compiled query, from a .scm file beside this module or from literal text."""
    if text is None:
        text = query_text(filename)
    return ts.Query(get_language(grammar), text)
