"""The supported languages: one package each (indexer/lang/<language>/), registered here.

A language package holds its queries (`*.scm`), its extraction, its resolution hooks and
its project rules, and exports its LanguageSpec as `SPEC` (or `SPECS`); lang/api.py is the
contract they implement, lang/engine/ the resolution they share.

What a run needs to know of every language before it handles a file of one (its
extensions, its project files, its resolver group) is declared here as data (`DECLARED`);
a language's package is imported when a file of it is extracted, resolved or planned
(`LANGUAGES[name]`). Importing all twelve packages to list extensions was ~30% of the
start-up of a no-op `analyze`, which handles no file. A package's spec is checked against
its declaration when it is imported (`Declared.check`): the two cannot drift apart.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from functools import cache
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from codeimpact.indexer.lang.api import FlowRules, LanguageSpec

_PKG = "codeimpact.indexer.lang."
_TS_CONFIGS = (
    "tsconfig.json",
    "jsconfig.json",
    "tsconfig.base.json",
    "tsconfig.paths.json",
    "tsconfig.common.json",
    "package.json",
)


class Declared(NamedTuple):
    """What the registry knows of a language without importing its package."""

    name: str
    grammar: str
    extensions: tuple[str, ...]
    package: str  # the package whose SPEC (or one of SPECS) is this language's
    config_files: tuple[str, ...] = ()
    resolver_group: str = ""
    by_content: bool = False  # the spec has `language_of` (a `.h` holding C++ is cpp)

    @property
    def group(self) -> str:
        return self.resolver_group or self.name

    def check(self, spec: LanguageSpec) -> None:
        """Raise when the package's spec says otherwise than this declaration."""
        said = Declared(
            spec.name,
            spec.grammar,
            spec.extensions,
            spec.package,
            spec.config_files,
            spec.resolver_group,
            spec.language_of is not None,
        )
        if said != self:
            diff = [f for f in self._fields if getattr(said, f) != getattr(self, f)]
            raise RuntimeError(
                f"language {self.name!r}: its spec's {', '.join(diff)} differ from "
                "indexer/lang/__init__.py DECLARED: declare what the package says"
            )


DECLARED: dict[str, Declared] = {
    d.name: d
    for d in (
        Declared("python", "python", (".py", ".pyi"), _PKG + "python"),
        Declared(
            "typescript", "typescript", (".ts", ".mts", ".cts"), _PKG + "typescript",
            _TS_CONFIGS, "typescript",
        ),
        Declared("tsx", "tsx", (".tsx",), _PKG + "typescript", _TS_CONFIGS, "typescript"),
        Declared(
            "javascript", "javascript", (".js", ".mjs", ".cjs", ".jsx"), _PKG + "typescript",
            _TS_CONFIGS, "typescript",
        ),
        Declared("rust", "rust", (".rs",), _PKG + "rust", ("Cargo.toml",)),
        Declared("go", "go", (".go",), _PKG + "go", ("go.mod",)),
        Declared("java", "java", (".java",), _PKG + "java"),
        Declared(
            "c", "c", (".c", ".h"), _PKG + "cfamily", ("compile_commands.json",), "cfamily",
            by_content=True,
        ),
        Declared(
            "cpp", "cpp",
            (".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++", ".ipp", ".tpp", ".inl"),
            _PKG + "cfamily", ("compile_commands.json",), "cfamily",
        ),
        Declared("csharp", "csharp", (".cs",), _PKG + "csharp"),
        Declared("ruby", "ruby", (".rb",), _PKG + "ruby"),
        Declared("php", "php", (".php",), _PKG + "php"),
        Declared("kotlin", "kotlin", (".kt", ".kts"), _PKG + "kotlin"),
        Declared("swift", "swift", (".swift",), _PKG + "swift"),
        Declared("dart", "dart", (".dart",), _PKG + "dart", ("pubspec.yaml",)),
    )
}  # fmt: skip

_NAME_BY_EXTENSION = {ext: d.name for d in DECLARED.values() for ext in d.extensions}
EXTENSIONS = frozenset(_NAME_BY_EXTENSION)


class _Languages(Mapping):
    """Language name -> its LanguageSpec, the package imported at the first look-up of one of
    its languages. Iterating lists the declared names and imports nothing."""

    def __init__(self) -> None:
        self._specs: dict[str, LanguageSpec] = {}

    def __getitem__(self, name: str) -> LanguageSpec:
        spec = self._specs.get(name)
        if spec is None:
            declared = DECLARED[name]  # KeyError: not a language
            module = importlib.import_module(declared.package)
            for one in getattr(module, "SPECS", None) or (module.SPEC,):
                DECLARED[one.name].check(one)
                self._specs[one.name] = one
            spec = self._specs[name]
        return spec

    def __iter__(self) -> Iterator[str]:
        return iter(DECLARED)

    def __len__(self) -> int:
        return len(DECLARED)

    def __contains__(self, name: object) -> bool:
        return name in DECLARED

    def load(self, names) -> None:
        """Import the packages of these languages now: in a parent before it forks workers
        (each would import them again), or all of them (`load(DECLARED)`)."""
        for name in names:
            if name in DECLARED:
                self[name]


LANGUAGES: _Languages = _Languages()


@cache
def flow_rules(language: str) -> FlowRules:
    """The change plan's flow rules of a language (LanguageSpec.flow_rules). A language
    without its own takes Python's: they planned every language's files before languages
    had the hook, and a language's rules of its own are a change of its plans to measure
    (incremental == full)."""
    spec = LANGUAGES.get(language)
    rules = spec.flow_rules if spec is not None else None
    return rules or LANGUAGES["python"].flow_rules


def group_of(language: str) -> str:
    """The resolver group of a language (LanguageSpec.group), without importing it."""
    return DECLARED[language].group


def content_language(discovered: str, data: bytes | None) -> str:
    """The language of a file its extension gave `discovered`, once its bytes are read
    (LanguageSpec.language_of: a `.h` holding C++ is `cpp`)."""
    if not DECLARED[discovered].by_content or data is None:
        return discovered
    return LANGUAGES[discovered].language_of(data)


def same_spec(recorded: str, discovered: str) -> bool:
    """Whether a file recorded as `recorded` is still one when its extension says
    `discovered` (its bytes unchanged: the content gave the recorded one)."""
    if recorded == discovered:
        return True
    spec = DECLARED[discovered]
    other = DECLARED.get(recorded)
    return spec.by_content and other is not None and other.group == spec.group


def language_name_for(path: str, enabled: frozenset[str] | None = None) -> str | None:
    """The language a path's extension gives (None: none, or not enabled), by the
    declarations alone: what listing files needs, without importing a language."""
    dot = path.rfind(".")
    if dot < 0:
        return None
    name = _NAME_BY_EXTENSION.get(path[dot:].lower())
    if name is None or (enabled is not None and name not in enabled):
        return None
    return name


def language_for(path: str, enabled: frozenset[str] | None = None) -> LanguageSpec | None:
    name = language_name_for(path, enabled)
    return None if name is None else LANGUAGES[name]
