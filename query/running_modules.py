"""Which modules of an upstream closure run something in it when they are imported.

A module is in the closure of a function when it imports the function's name (or
imports a package that re-exports it), but importing a name does not run it: only a
module's top-level code does (a call, a decorator applied, a value handed over), or the
import of a module whose top-level code does. A test module stands for every test in
its file, so listing one reached by imports alone selected whole files of tests that
never run the target (Click: `import click` re-exports most of the package, 0.24 of
the suite per function). A test file's `from m import x` IMPORTS m itself too (lang/python/
file_edges.py `_import_run_edge`): it runs m's top-level code as `import m` does, so the test
module is a test of what m runs (`from flask.cli import FlaskGroup` and the callback
flask/cli.py hands to click), through an edge of the graph.
"""

from __future__ import annotations

import numpy as np

from codeimpact.graph import csr as csrmod

_IMPORTS = csrmod.EDGE_TYPES["IMPORTS"]
_REFERENCES = csrmod.EDGE_TYPES["REFERENCES"]
_MODULE = csrmod.KIND_CODES["module"]


def runs_on_import(view, nodes, closure_nodes, sources, type_mask, min_confidence) -> np.ndarray:
    """Bool per node of `nodes` (symbols of the closure): importing it runs code in the
    closure. A function runs it unless it is in the closure only by importing modules in
    its body that run nothing of it (a test's `from app import x`)."""
    kind = view.snapshot.node_kind[nodes]
    importing = _imports_in_body(view)[nodes]
    if not (kind == _MODULE).any() and not importing.any():
        return np.ones(nodes.shape[0], dtype=bool)
    running = running_modules(view, closure_nodes, sources, type_mask, min_confidence)
    keep = (kind != _MODULE) | running[nodes]
    if importing.any():
        fn = nodes[importing]
        keep[importing] = _reached_otherwise(
            view, fn, closure_nodes, running, type_mask, min_confidence
        ) | np.isin(fn, np.asarray(sources, dtype=np.int64))
    return keep


def _imports_in_body(view) -> np.ndarray:
    """Bool per node: a definition other than a module with an IMPORTS edge (an import in
    a function's body, resolvers' lang/python/file_edges.py `_import_run_edge`)."""
    got = view.cached("imports_in_body")
    if got is None:
        c = view.csr("downstream")
        edges = np.flatnonzero(c.edge_type == _IMPORTS)
        got = np.zeros(view.n_nodes, dtype=bool)
        got[np.searchsorted(c.indptr, edges, side="right") - 1] = True
        got &= view.snapshot.node_kind != _MODULE
        view.cache("imports_in_body", got)
    return got


def _reached_otherwise(view, fn, closure_nodes, running, type_mask, min_confidence) -> np.ndarray:
    """Bool per function of `fn`: an edge other than an import of a module that runs nothing
    of the closure leads it into the closure (or none does: it entered by a first hop)."""
    in_closure = np.zeros(view.n_nodes, dtype=bool)
    in_closure[closure_nodes] = True
    c = view.csr("downstream")
    starts, ends = c.indptr[fn], c.indptr[fn + 1]
    counts = (ends - starts).astype(np.int64)
    owner = np.repeat(np.arange(fn.size), counts)
    edge = np.repeat(starts - np.cumsum(counts) + counts, counts) + np.arange(counts.sum())
    dst = c.indices[edge].astype(np.int64)
    etype = c.edge_type[edge].astype(np.int64)
    ok = (((type_mask >> etype) & 1) == 1) & (c.confidence[edge] >= min_confidence)
    ok &= in_closure[dst]
    idle = (etype == _IMPORTS) & (view.snapshot.node_kind[dst] == _MODULE) & ~running[dst]
    entering = np.bincount(owner[ok], minlength=fn.size)
    real = np.bincount(owner[ok & ~idle], minlength=fn.size)
    return (real > 0) | (entering == 0)


def running_modules(
    view, closure_nodes: np.ndarray, sources: np.ndarray, type_mask: int, min_confidence: float
) -> np.ndarray:
    """Bool per node: importing the module runs code in the closure. Sources that are modules
    run (a change to a module's top-level code); a module of the closure runs when an edge
    other than an import (or a reference to its own definition) leaves it for the closure,
    or it imports a running module (or a name defined in one)."""
    n = view.n_nodes
    kind = view.snapshot.node_kind
    in_closure = np.zeros(n, dtype=bool)
    in_closure[closure_nodes] = True
    running = np.zeros(n, dtype=bool)
    src = np.asarray(sources, dtype=np.int64)
    running[src[kind[src] == _MODULE]] = True
    mods = closure_nodes[kind[closure_nodes] == _MODULE]
    if mods.size == 0:
        return running
    c = view.csr("downstream")
    starts, ends = c.indptr[mods], c.indptr[mods + 1]
    counts = (ends - starts).astype(np.int64)
    owner = np.repeat(mods, counts)
    edge = np.repeat(starts - np.cumsum(counts) + counts, counts) + np.arange(counts.sum())
    dst = c.indices[edge].astype(np.int64)
    etype = c.edge_type[edge].astype(np.int64)
    ok = (((type_mask >> etype) & 1) == 1) & (c.confidence[edge] >= min_confidence)
    owner, dst, etype = owner[ok], dst[ok], etype[ok]
    # a module's body handing over its own function (`@repo_decorator def test_x`)
    # references it but does not run it: the decorator does, and it is reached itself
    own = (etype == _REFERENCES) & (view.symbols.module_id[dst] == owner)
    running[owner[(etype != _IMPORTS) & ~own & in_closure[dst]]] = True
    # `from m import x` imports m: it runs when m's top-level code runs something (to a
    # fixed point: import chains are short)
    imp = etype == _IMPORTS
    owner, dst = owner[imp], dst[imp]
    home = np.where(kind[dst] == _MODULE, dst, view.symbols.module_id[dst])
    owner, home = owner[home >= 0], home[home >= 0]
    while True:
        new = owner[running[home] & ~running[owner]]
        if new.size == 0:
            return running
        running[new] = True
