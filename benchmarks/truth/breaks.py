"""Where the real call path from a test to a function leaves the graph.

For a test item t that really executed function f but that the graph does not name
for f: walk up from f over the executed edges the graph has (callee -> caller), and
take the nearest place where it stops, on a path t really ran (both ends in t's
executed set):

- an executed edge into the walked part that the graph lacks: labelled like a missed
  call (`truth.misses`: through external code, property, decorator, `with`, ...);
- one of t's fixtures (a definition pytest itself called in t, other than t's own
  test function): the graph reaches the fixture but not t, "pytest fixture";
- nothing: f is run only by code entered from outside the project, or the graph
  reaches t's own function and yet does not name t ("other").

The executed edges are the suite's union, not t's own, so the walk is a heuristic
for "nearest the function first", as in issue 26's list of breaks.
"""

from __future__ import annotations

import re
from collections import defaultdict, deque

from truth.misses import SourceIndex, classify

FIXTURE = "pytest fixture (test not linked to its fixture)"
OUTSIDE = "entered from outside (no project caller)"


class NodeIds:
    """pytest node ids by the test symbol that defines them."""

    def __init__(self, nodeids) -> None:
        self.by_file: dict[str, list[tuple[str, str]]] = defaultdict(list)
        for nid in nodeids:
            path, _, rest = nid.partition("::")
            key = ".".join(re.sub(r"\[.*\]$", "", p) for p in rest.split("::")) if rest else ""
            self.by_file[path].append((key, nid))
        self._cache: dict[str, frozenset[str]] = {}

    def of_symbol(self, uid: str) -> frozenset[str]:
        """The node ids a test symbol stands for: a module all its items, a class its
        methods' items, a function its (parametrised) items, a definition nested in a
        test function that test's items; a helper outside any test none."""
        got = self._cache.get(uid)
        if got is None:
            path, _, local = uid.partition("::")
            local = re.sub(r"#\d+", "", local)
            items = self.by_file.get(path, ())
            got = frozenset(
                nid
                for key, nid in items
                if not local
                or key == local
                or key.startswith(local + ".")  # a class: its tests
                or local.startswith(key + ".")  # a function nested in a test: that test
            )
            self._cache[uid] = got
        return got

    def own_function(self, nodeid: str) -> str:
        """The uid of the function a node id runs (``path::Class.test``)."""
        path, _, rest = nodeid.partition("::")
        return f"{path}::" + ".".join(re.sub(r"\[.*\]$", "", p) for p in rest.split("::"))


class BreakFinder:
    def __init__(self, truth: dict, graph_pairs, src: SourceIndex) -> None:
        self.defs = truth["definitions"]
        self.externals = truth["externals"]
        self.src = src
        self.callers: dict[int, list[tuple[int, bool, tuple]]] = defaultdict(list)
        for edge in truth["edges"]:
            caller, callee, kind, _via, _lines = edge
            if kind != "call":
                continue
            present = (self.defs[caller][0], self.defs[callee][0]) in graph_pairs
            self.callers[callee].append((caller, present, edge))
        self._labels: dict[int, str] = {}
        self._walks: dict[int, tuple[dict[int, int], list[tuple[int, int, int, int]]]] = {}

    def _label(self, edge) -> str:
        key = id(edge)
        if key not in self._labels:
            caller, callee, kind, via, lines = edge
            self._labels[key] = classify(
                self.src,
                self.defs[caller][0],
                self.defs[callee][0],
                kind,
                None if via is None else self.externals[via],
                lines,
            )
        return self._labels[key]

    def _walk(self, f: int, mended: frozenset = frozenset()):
        """(depth of every definition the graph links up from f, the breaks sorted by
        depth as (depth, caller, callee, edge index)); the truth edges in `mended` (by
        id) count as present."""
        key = (f, mended) if mended else f
        got = self._walks.get(key)
        if got is None:
            depth = {f: 0}
            breaks = []
            todo = deque([f])
            while todo:
                x = todo.popleft()
                for caller, present, edge in self.callers.get(x, ()):
                    if present or (mended and id(edge) in mended):
                        if caller not in depth:
                            depth[caller] = depth[x] + 1
                            todo.append(caller)
                    else:
                        breaks.append((depth[x], caller, x, edge))
            breaks.sort(key=lambda b: b[0])
            got = self._walks[key] = (depth, breaks)
        return got

    def label(self, f: int, executed: set[int], entries: set[int], own: str) -> str:
        """The nearest break on the path from test (executed, entries, own uid) to f."""
        return self.nearest(f, executed, entries, own)[0]

    def behind(self, f: int, executed: set[int], entries: set[int], own: str, edge) -> str:
        """What stops the path once the nearest break `edge` is mended: "" when the walk
        then reaches the test's own function (mending it alone would name the test, the
        depth bound aside), else the next break's label."""
        label, _ = self.nearest(f, executed, entries, own, frozenset((id(edge),)))
        return "" if label == "other" else label

    def nearest(self, f: int, executed: set[int], entries: set[int], own: str,
                mended: frozenset = frozenset()):  # fmt: skip
        """(label, the break's edge or None): the edge is [caller, callee, kind, via,
        lines] of the truth, None for a fixture, "outside" or "other"."""
        depth, breaks = self._walk(f, mended)
        fixture_depth = None
        for e in entries:
            if e in depth and self.defs[e][0] != own and self.defs[e][2]:
                d = depth[e]
                fixture_depth = d if fixture_depth is None else min(fixture_depth, d)
        for d, caller, callee, edge in breaks:
            if fixture_depth is not None and fixture_depth <= d:
                break
            if caller in executed and callee in executed:
                return self._label(edge), edge
        if fixture_depth is not None:
            return FIXTURE, None
        if any(self.defs[e][0] == own for e in entries if e in depth):
            return "other", None
        return OUTSIDE, None
