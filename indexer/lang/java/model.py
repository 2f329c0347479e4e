"""The Java model's extraction helpers: what every extraction into the facts Java's resolver
reads (java/resolve.py) shares, Java's own and those of the languages resolved through
Java's hooks (C#, Dart, Kotlin, PHP, Ruby, Swift): the empty facts, the file being walked,
the binding of a local to a chain, the driver over a language's query matches and the
LanguageSpec such a language declares."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import tree_sitter as ts

from codeimpact.indexer.lang.api import (
    BindingFact,
    CallFact,
    FileFacts,
    LanguageSpec,
    ResolverProject,
)
from codeimpact.indexer.lang.grammars import get_parser
from codeimpact.indexer.lang.queries import query_runner
from codeimpact.indexer.lang.syntax_common import (
    Names,
    Scopes,
    count_lines,
    mark_errors,
    module_symbol,
    symbol_fact,
)


def model_facts(language: str, source: bytes, root: ts.Node) -> FileFacts:
    """Empty facts of the Java model (the extra keys resolve.py reads), with the module
    symbol: Java's and the languages resolved through Java's hooks (C#)."""
    facts = FileFacts(language=language, lines=count_lines(source))
    facts.symbols.append(module_symbol(root, source))
    ex = facts.extra
    ex["package"] = ""
    for key in ("results", "types", "tparams", "modifiers"):
        ex[key] = {}
    ex["locals"] = []
    ex["argc"] = []
    ex["static"] = []
    return facts


class ModelFile:
    """What an extraction into the Java model holds while it walks one file (C#, Ruby, PHP,
    Kotlin): the facts, `#n` names, the scopes of its definitions, and its call sites as
    (start byte, CallFact, argument count) for run_model."""

    def __init__(self, language: str, source: bytes, root: ts.Node):
        self.source = source
        self.facts: FileFacts = model_facts(language, source, root)
        self.names = Names()
        self.scopes = Scopes([])
        self.calls: list[tuple[int, CallFact, int]] = []

    def exported(self, local: str, kind: str, mods: str) -> bool:
        """Whether a definition is visible outside its file: unless `private` (a language
        with other visibility rules overrides this)."""
        return "private" not in mods.split()

    def add(self, node, local, kind, name, sig_end=None, params=(), is_test=False, mods=""):
        """A definition (its modifiers are kept for the resolver: Java's overrides read
        `static`, `abstract`, `private`)."""
        self.facts.symbols.append(
            symbol_fact(
                self.source,
                node,
                local,
                kind,
                name,
                exported=self.exported(local, kind, mods),
                sig_end=sig_end,
                params=params,
                is_test=is_test,
            )  # fmt: skip
        )
        if mods:
            self.facts.extra["modifiers"][local] = mods


def bind_chain(facts: FileFacts, scope: str, name: str, value: str | None, lineno: int) -> None:
    """What a local assigned `value` (a chain) holds, in the Java model: a construction
    (`T{}`) types it T, a call's result (`f()`) or another name is a BindingFact, anything
    else leaves it untyped."""
    if value and value.endswith("{}"):
        facts.extra["locals"].append((scope, name, value[:-2], lineno))
    elif value and value.endswith("()"):
        facts.bindings.append(BindingFact(scope, name, value[:-2], True, lineno))
    elif value:
        facts.bindings.append(BindingFact(scope, name, value, False, lineno))
    else:
        facts.extra["locals"].append((scope, name, "", lineno))


def run_model(f, root: ts.Node, language: str, matches, definitions, uses: dict) -> FileFacts:
    """The driver of an extraction into the Java model (C#, Ruby): `definitions(f, defs)`
    names the definitions, then each use's handler runs; `f.calls` holds (start byte,
    CallFact, argument count), put in source order so extra["argc"] lines up with the calls."""
    defs, rest = [], []
    for construct, caps in matches:
        (rest if construct in uses else defs).append((construct, caps))
    definitions(f, defs)
    for construct, caps in rest:
        uses[construct](f, caps)
    f.calls.sort(key=lambda c: c[0])
    f.facts.calls = [c for _s, c, _n in f.calls]
    f.facts.extra["argc"] = [n for _s, _c, n in f.calls]
    f.facts.symbols.sort(key=lambda s: (s.local != "", s.start_byte))
    mark_errors(root, language, f.facts)
    return f.facts


def model_extract(language: str, package: str, source: bytes, new_file, definitions, uses):
    """A language's extraction into the Java model: parse, match its `queries.scm`, and run
    the driver (`new_file(source, root)` makes its ModelFile)."""
    root = get_parser(language).parse(source).root_node
    matches = query_runner(language, package, "queries.scm").matches(root)
    return run_model(new_file(source, root), root, language, matches, definitions, uses)


def java_model_spec(
    package: str,
    extract: ModuleType,
    *,
    extensions: tuple[str, ...],
    resolve_version: int,
    resolver: Callable[[], type[ResolverProject]],
    config_files: tuple[str, ...] = (),
) -> LanguageSpec:
    """The LanguageSpec of a language extracted into the Java model and resolved by a
    JavaProject subclass: its extract module gives the name (= the grammar), the extractor
    version, `extract` and `is_test_path`; `resolver` returns the class (in its resolve.py)."""
    return LanguageSpec(
        name=extract.NAME,
        grammar=extract.NAME,
        extensions=extensions,
        extract_version=extract.EXTRACTOR_VERSION,
        resolve_version=resolve_version,
        extract=extract.extract,
        is_test_path=extract.is_test_path,
        resolver=resolver,
        config_files=config_files,
        package=package,
    )
