"""Native walks of py-tree-sitter syntax trees (the ``_syntax`` C extension).

``python_matches(root, source, chain)`` finds the matches of every pattern of
``indexer/languages/python.scm`` in a Python tree, in the query's order, as
``indexer/languages/python.py`` would get them from ``QueryCursor.matches`` (see
native/syntax.c): the call sites as plain tuples, the other matches as
``(pattern index, nodes)``, and the line of the first syntax error. It is None when the
native path must not be used:

- the extension is not built;
- the installed ``tree-sitter`` distribution is not the version whose C runtime the
  extension vendors (native/tree_sitter/vendored.h): the extension reads trees built by
  py-tree-sitter's own copy of the runtime, so the two copies must be the same sources;
- ``tree_sitter.Node`` does not have the object size that version has.

``python_call_facts(calls, source, scopes, decorators, chain, local_names, rename,
fact_type)`` turns those call tuples into python.py's CallFact objects, as its ``call_fact``
does (the scope by binary search over the body and decorator intervals, the chain through
python.py's own ``callee_chain`` and comprehension/lambda renaming, ``?.name`` for a callee
without a chain). It reads no tree: it is None only when the extension is not built.

``PYTHON_PATTERNS`` is the text of the patterns the walk implements and ``PYTHON_CAPTURES``
their capture names in the order of a match's nodes (python.py uses the walk only when
python.scm holds these very patterns). Callers use the query when anything is None; nothing
here raises on a mismatch.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import metadata

__all__ = [
    "PYTHON_CAPTURES",
    "PYTHON_PATTERNS",
    "VENDORED_TREE_SITTER",
    "python_call_facts",
    "python_matches",
]

try:
    from codeimpact.native import _syntax
except ImportError:  # not built
    _syntax = None

VENDORED_TREE_SITTER: str | None = _syntax.TREE_SITTER_VERSION if _syntax is not None else None
"""The py-tree-sitter version the extension's runtime was copied from (None: not built)."""

PYTHON_PATTERNS: tuple[str, ...] | None = _syntax.PYTHON_PATTERNS if _syntax is not None else None
PYTHON_CAPTURES: tuple[tuple[str, ...], ...] | None = (
    _syntax.PYTHON_CAPTURES if _syntax is not None else None
)

_NODE_SIZE = 64  # sizeof(Node) in py-tree-sitter 0.26 (PyObject_HEAD, TSNode, two pointers)


def _usable() -> bool:
    if _syntax is None:
        return False
    try:
        installed = metadata.version("tree-sitter")
        import tree_sitter
    except (metadata.PackageNotFoundError, ImportError):
        return False
    return installed == VENDORED_TREE_SITTER and tree_sitter.Node.__basicsize__ == _NODE_SIZE


python_matches: Callable | None = _syntax.python_matches if _usable() else None
python_call_facts: Callable | None = _syntax.python_call_facts if _syntax is not None else None
