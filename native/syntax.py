"""Native walks of py-tree-sitter syntax trees (the ``_syntax`` C extension).

``python_calls(root, source, chain)`` lists the call sites of a Python tree, as
``indexer/languages/python.py`` would get them from its query (see native/syntax.c),
or is None when the native path must not be used:

- the extension is not built;
- the installed ``tree-sitter`` distribution is not the version whose C runtime the
  extension vendors (native/tree_sitter/vendored.h): the extension reads trees built by
  py-tree-sitter's own copy of the runtime, so the two copies must be the same sources;
- ``tree_sitter.Node`` does not have the object size that version has.

Callers then use the query; nothing here raises on a mismatch.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import metadata

__all__ = ["VENDORED_TREE_SITTER", "python_calls"]

try:
    from codeimpact.native import _syntax
except ImportError:  # not built
    _syntax = None

VENDORED_TREE_SITTER: str | None = _syntax.TREE_SITTER_VERSION if _syntax is not None else None
"""The py-tree-sitter version the extension's runtime was copied from (None: not built)."""

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


python_calls: Callable | None = _syntax.python_calls if _usable() else None
