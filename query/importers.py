"""Tests by imports: the selection a CI can fall back to when the graph's is a lower bound.

A test file runs the code of the modules it imports, directly or through the modules those
import (`from m import f` imports m), and of the conftest.py files above it (pytest imports
them before the tests of their folder). The test files whose modules import a changed file's
module that way hold every test that can run the change's code by an import, whatever call
the graph could not follow (on Flask and Click's suites: 0.93-0.97 of the tests that really
run a function, against the graph's lower bound; issue 26). It is coarse: most of a suite
imports the package's core modules.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from codeimpact.graph import csr as csrmod
from codeimpact.query.graphview import GraphView


def importing_modules(view: GraphView, files: Iterable[str]) -> set[int]:
    """The module symbols of `files` and of every file importing one of them, transitively."""
    s = view.symbols
    start = {int(s.module_id[s.by_file[f][0]]) for f in files if s.by_file.get(f)}
    start.discard(-1)
    fwd = view.csr("downstream")
    rows = np.repeat(np.arange(fwd.n_nodes, dtype=np.int64), np.diff(fwd.indptr))
    imports = fwd.edge_type == csrmod.EDGE_TYPES["IMPORTS"]
    src = s.module_id[rows[imports]]
    dst = s.module_id[fwd.indices[imports].astype(np.int64)]
    importers: dict[int, set[int]] = {}
    for a, b in zip(src.tolist(), dst.tolist(), strict=True):
        if a >= 0 and b >= 0 and a != b:
            importers.setdefault(b, set()).add(a)
    seen = set(start)
    todo = list(start)
    while todo:
        for m in importers.get(todo.pop(), ()):
            if m not in seen:
                seen.add(m)
                todo.append(m)
    return seen


def importing_tests(view: GraphView, files: Iterable[str]) -> list[int]:
    """The module symbols of the test files that import one of `files` (themselves included),
    or lie below a conftest.py that does, transitively (see the module docstring): a test
    module stands for every test in it."""
    s = view.symbols
    modules = importing_modules(view, files)
    reached = {s.file[m] for m in modules}
    conftests = {f.rpartition("/")[0] for f in reached if f.rpartition("/")[2] == "conftest.py"}
    module_kind = csrmod.KIND_CODES["module"]
    out = []
    for i in np.flatnonzero(s.is_test & (view.snapshot.node_kind == module_kind)).tolist():
        f = s.file[i]
        if f.rpartition("/")[2] == "conftest.py" or len(s.by_file[f]) < 2:
            continue  # fixtures only, or no definition at all (a package's __init__.py)
        if f in reached or any(_below(f, folder) for folder in conftests):
            out.append(i)
    return out


def _below(path: str, folder: str) -> bool:
    return not folder or path.startswith(folder + "/")
