/*
 * The tree-sitter C runtime in this folder (include/, src/) is a verbatim copy of
 * tree_sitter/core/lib from the sdist of py-tree-sitter 0.26.1 (LICENSE: MIT; src/unicode
 * keeps its own ICU licence).
 *
 * Why vendored: py-tree-sitter's `_binding` module does not export the C API (ts_* are
 * hidden symbols), so native/syntax.c links its own copy. That copy reads trees which the
 * binding's copy built (Subtree, TSTree, TreeCursor internals), so it must be the very same
 * runtime version: native/syntax.py uses the native walk only when the installed
 * `tree-sitter` distribution has exactly the version below, and falls back to the query
 * path otherwise. When upgrading tree-sitter, copy the new sdist's tree_sitter/core/lib here
 * and change this version in the same commit.
 */
#ifndef CODEIMPACT_VENDORED_H_
#define CODEIMPACT_VENDORED_H_

#define CODEIMPACT_VENDORED_PY_TREE_SITTER "0.26.1"

#endif
