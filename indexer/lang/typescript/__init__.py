"""TypeScript, TSX and JavaScript (JSX included): the three language specs.

Each extension family has its own grammar and so its own spec (extraction gets
only the bytes), but all three share one resolver group: a .ts file imports a
.js file and the reverse, so resolve.TsProject sees every file of the three.
Extraction is extract.py (node helpers in syntax.py), specifier
resolution modules.py, name resolution resolve.py.
"""

from __future__ import annotations

from functools import partial
from pathlib import PurePosixPath

from codeimpact.indexer.lang.api import LanguageSpec, ResolverProject
from codeimpact.indexer.lang.typescript.extract import extract
from codeimpact.indexer.lang.typescript.modules import CONFIG_NAMES, EXTENDED_NAMES

EXTRACT_VERSION = 1
RESOLVE_VERSION = 1
GROUP = "typescript"

# jest's __tests__ / __mocks__, mocha's and most runners' test/ folders, cypress and playwright
# e2e suites
_TEST_DIRS = frozenset({"__tests__", "__mocks__", "test", "tests", "e2e"})
_TEST_MARKERS = (".test.", ".spec.", ".e2e-spec.", ".e2e.")


def is_test_path(path: str) -> bool:
    p = PurePosixPath(path)
    name = p.name
    if any(m in name for m in _TEST_MARKERS):
        return True
    return any(part in _TEST_DIRS for part in p.parts[:-1])


def resolver_class() -> type[ResolverProject]:
    """The resolver class, imported when a run resolves these files (lang/api.py)."""
    from codeimpact.indexer.lang.typescript.resolve import TsProject

    return TsProject


def _spec(name: str, extensions: tuple[str, ...]) -> LanguageSpec:
    return LanguageSpec(
        name=name,
        grammar=name,
        extensions=extensions,
        extract_version=EXTRACT_VERSION,
        resolve_version=RESOLVE_VERSION,
        extract=partial(extract, name),
        is_test_path=is_test_path,
        resolver=resolver_class,
        config_files=(*CONFIG_NAMES, *EXTENDED_NAMES, "package.json"),
        resolver_group=GROUP,
        package=__name__,
    )


TYPESCRIPT = _spec("typescript", (".ts", ".mts", ".cts"))
TSX = _spec("tsx", (".tsx",))
JAVASCRIPT = _spec("javascript", (".js", ".mjs", ".cjs", ".jsx"))
SPECS = (TYPESCRIPT, TSX, JAVASCRIPT)

__all__ = [
    "EXTRACT_VERSION",
    "RESOLVE_VERSION",
    "SPECS",
    "TYPESCRIPT",
    "TSX",
    "JAVASCRIPT",
    "is_test_path",
]
