"""Tree-sitter queries of the languages: the .scm files in each language's package."""

from __future__ import annotations

from functools import cache
from importlib import resources

import tree_sitter as ts
from tree_sitter_language_pack import get_language

from codeimpact.native.runner import QueryRunner


def query_text(package: str, filename: str) -> str:
    """The text of a .scm file of a language package (`codeimpact.indexer.lang.python`)."""
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
