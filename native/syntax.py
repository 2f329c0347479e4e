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

``python_facts(root, source, facts, module_vars, env)`` runs the same walk and makes all of
python.py's facts of the tree from its matches, as python.py's query path does (calling back
python.py's chain functions and, for the rarer patterns, its ``_other``); it returns the
first syntax error's line (0: none), or None, having added nothing, where the walk cannot
reproduce the query. It is None under the same conditions as ``python_matches``.

``chain_text(text)`` and ``callee_chain_text(text, chain)`` are python.py's ``_chain`` and
``callee_chain`` without their caches (python.py caches these instead when the extension is
built); they read no tree, so they are None only when the extension is not built.

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
    "callee_chain_text",
    "chain_text",
    "python_facts",
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
python_facts: Callable | None = _syntax.python_facts if _usable() else None
# they read no tree: usable whenever the extension is built
chain_text: Callable | None = _syntax.chain_text if _syntax is not None else None
callee_chain_text: Callable | None = _syntax.callee_chain_text if _syntax is not None else None
