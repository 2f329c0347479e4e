"""Tree-sitter queries of the languages: the .scm files in each language's package."""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path

import tree_sitter as ts

from codeimpact.indexer.lang.grammars import get_language
from codeimpact.native.runner import QueryRunner


def query_text(package: str, filename: str) -> str:
    """The text of a .scm file of a language package (`codeimpact.indexer.lang.python`):
    read beside the package's own files when they are files (importlib.resources, for other
    installs, imports importlib.readers and zipfile: ~1.5 ms of a one-file edit's CPU)."""
    module = sys.modules.get(package)
    origin = getattr(module, "__file__", None)
    if origin is not None:
        path = Path(origin).parent / filename
        if path.is_file():
            return path.read_text()
    from importlib import resources

    return resources.files(package).joinpath(filename).read_text()


@cache
def load_query(
    grammar: str, package: str, filename: str | None, text: str | None = None
) -> ts.Query:
    """A compiled query, from a .scm file of a language package or from literal text."""
    if text is None:
        text = query_text(package, filename)
    return ts.Query(get_language(grammar), text)


@cache
def query_runner(grammar: str, package: str, *filenames: str, native: bool = True) -> QueryRunner:
    """A language's queries (its .scm files, joined) through the shared runner: the native
    one when it runs and `native` is true, py-tree-sitter's QueryCursor otherwise."""
    text = "\n".join(query_text(package, name) for name in filenames)
    return QueryRunner(get_language(grammar), text, native=native)
