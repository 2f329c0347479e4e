"""`trace` (one shortest dependency path between two symbols) and `cycles` (import cycles).

Both run in the native core: `shortest_path` / BFS for trace, strongly connected
components over the module-to-module import graph for cycles.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from codeimpact.graph import csr as csrmod
from codeimpact.native import traversal as native
from codeimpact.query.freshness import Freshness, freshness_of
from codeimpact.query.graphview import GraphView, SymbolRef
from codeimpact.query.impact_shapes import DEFAULT_LIMIT, check_params, parse_relations
from codeimpact.query.reach import with_members
from codeimpact.query.source import guarded_import_lines
from codeimpact.query.target import resolve_target


@dataclass
class TraceStep:
    uid: str
    kind: str
    qualified_name: str
    file: str
    line: int
    relation: str | None  # of the edge to the next step (None on the last one)
    confidence: float | None


@dataclass
class TraceResult:
    source: SymbolRef
    target: SymbolRef
    relations: list[str]
    min_confidence: float
    found: bool
    # forward: source depends on target; reverse: no such path, but target depends on
    # source (the steps then run from target to source); None: neither.
    direction: str | None
    length: int  # hops
    steps: list[TraceStep]
    freshness: Freshness


def _path_between(
    view: GraphView, a: int, b: int, mask: int, min_confidence: float
) -> list[int] | None:
    """A shortest forward path from a (or a member of it) to b (or a member of it)."""
    sources = with_members(view, [a])
    goals = with_members(view, [b])
    forward = view.csr("downstream")
    if sources.size == 1 and goals.size == 1:
        path = native.shortest_path(
            forward, a, b, type_mask=mask, min_confidence=min_confidence, max_depth=-1
        )
        return None if path is None else path.tolist()
    # Members on either side: one multi-source BFS; its first goal reached is nearest.
    reach = native.bfs(forward, sources, type_mask=mask, min_confidence=min_confidence)
    is_goal = np.zeros(view.n_nodes, dtype=bool)
    is_goal[goals] = True
    hit = np.flatnonzero(is_goal[reach.nodes])
    if hit.size == 0:
        return None
    parent_of = dict(zip(reach.nodes.tolist(), reach.parents.tolist()))
    node = int(reach.nodes[hit[0]])
    path = [node]
    while parent_of[node] >= 0:
        node = parent_of[node]
        path.append(node)
    return path[::-1]


def _steps(view: GraphView, path: list[int], mask: int, min_confidence: float) -> list[TraceStep]:
    s = view.symbols
    arr = np.asarray(path, dtype=np.int64)
    types, confs = view.edges_between("downstream", arr[:-1], arr[1:], mask, min_confidence)
    names = csrmod.EDGE_TYPE_NAMES
    steps = []
    for k, i in enumerate(path):
        last = k == len(path) - 1
        steps.append(
            TraceStep(
                s.uid[i],
                s.kind[i],
                s.qualified_name[i],
                s.file[i],
                int(s.start_line[i]),
                None if last else names[int(types[k])],
                None if last else round(float(confs[k]), 4),
            )
        )
    return steps


def trace(
    index,
    source: str,
    target: str,
    relation: str | list[str] | None = None,
    min_confidence: float = 0.0,
    check_freshness: bool = True,
) -> TraceResult:
    """A shortest path of dependencies from `source` to `target` (members included)."""
    check_params("downstream", 1, min_confidence, None)
    relations = parse_relations(relation)
    mask = csrmod.type_mask(relations)
    conf = float(min_confidence)
    view = index.graph
    a = resolve_target(view.symbols, source, index.repo)
    b = resolve_target(view.symbols, target, index.repo)
    direction = None
    path = _path_between(view, a.id, b.id, mask, conf)
    if path is not None:
        direction = "forward"
    else:
        path = _path_between(view, b.id, a.id, mask, conf)
        if path is not None:
            direction = "reverse"
    steps = _steps(view, path, mask, conf) if path else []
    return TraceResult(
        source=a.symbol,
        target=b.symbol,
        relations=relations,
        min_confidence=conf,
        found=path is not None,
        direction=direction,
        length=max(len(steps) - 1, 0),
        steps=steps,
        freshness=freshness_of(index, check_freshness),
    )


# --------------------------------------------------------------------------- cycles


@dataclass
class ImportStep:
    file: str  # the importing module's file
    line: int  # the first import statement of `imports` in it
    imports: str  # the imported module's file


@dataclass
class ImportCycle:
    size: int  # modules in the strongly connected component
    modules: list[str]  # their files, sorted (cut by `limit`)
    loop: list[ImportStep]  # one concrete cycle through the first module, back to it


@dataclass
class CyclesResult:
    count: int  # all cycles; `cycles` may be cut by `limit`
    include_tests: bool
    include_deferred: bool
    cycles: list[ImportCycle]
    freshness: Freshness
    include_guarded: bool = False


_FUNCTION_KINDS = ("function", "method")


def _in_function(view: GraphView, src: np.ndarray, lines: np.ndarray) -> np.ndarray:
    """True for imports made inside a function or method of the importing file: they run
    when it is called, not when the module loads (imports in a class body do run)."""
    s = view.symbols
    out = np.zeros(src.shape[0], dtype=bool)
    order = np.argsort(src, kind="stable")
    bounds = np.flatnonzero(np.diff(src[order])) + 1
    for idx in np.split(order, bounds):
        if idx.size == 0:
            continue
        m = int(src[idx[0]])
        if s.kind[m] in _FUNCTION_KINDS:
            out[idx] = True
            continue
        fns = [i for i in s.by_file.get(s.file[m], ()) if s.kind[i] in _FUNCTION_KINDS]
        if fns:
            starts, ends = s.start_line[fns], s.end_line[fns]
            at = lines[idx][:, None]
            out[idx] = ((starts[None, :] <= at) & (at <= ends[None, :])).any(axis=1)
    return out


def _guarded(index, files: list[str], lines: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """True for the candidate imports that do not run when their module is imported: under
    `if TYPE_CHECKING:` or `if __name__ == "__main__":`, as the file's extractor tells
    (`extra["guarded_imports"]`; the file is read again, so a file edited since indexing
    may be misread: the freshness block says so)."""
    out = np.zeros(lines.shape[0], dtype=bool)
    by_file: dict[str, list[int]] = {}
    for k in np.flatnonzero(candidates).tolist():
        by_file.setdefault(files[k], []).append(k)
    for path, ks in by_file.items():
        guarded = guarded_import_lines(index.repo, path)
        for k in ks:
            out[k] = int(lines[k]) in guarded
    return out


@dataclass
class ModuleGraph:
    modules: np.ndarray  # module symbol ids; local node k = modules[k]
    csr: csrmod.CSR
    first_line: dict[tuple[int, int], int]  # (local src, local dst) -> first import line


def _module_csr(n: int, src: np.ndarray, dst: np.ndarray) -> csrmod.CSR:
    graph, _ = csrmod.build_csr(
        n,
        src,
        dst,
        np.full(src.size, csrmod.EDGE_TYPES["IMPORTS"], dtype=np.uint8),
        np.ones(src.size, dtype=np.float32),
    )
    return graph


def module_import_graph(index, include_tests: bool, include_deferred: bool,
                        include_guarded: bool = False) -> ModuleGraph:  # fmt: skip
    """`module A imports something defined in module B`, as a CSR over module symbols.

    An import of a symbol counts as an import of the module defining it; imports of
    external things and of the importing module itself are left out, and so are the
    imports that do not run when the module is imported: unless `include_deferred`,
    those in a function (they run when it is called); unless `include_guarded`, those
    under `if TYPE_CHECKING:` or `if __name__ == "__main__":`.
    """
    view = index.graph
    s = view.symbols
    # The snapshot has no import lines, so this reads the IMPORTS table (one scan).
    table = index.reader.conn.execute(
        "MATCH (a:Symbol)-[r:IMPORTS]->(b:Symbol) RETURN a.id AS a, b.id AS b, r.line AS l"
    ).get_as_arrow()
    src = np.asarray(table.column("a").to_pylist(), dtype=np.int64)
    dst = np.asarray(table.column("b").to_pylist(), dtype=np.int64)
    lines = np.asarray([x or 0 for x in table.column("l").to_pylist()], dtype=np.int64)
    src_modules, dst_modules = s.module_id[src], s.module_id[dst]
    keep = (dst_modules >= 0) & (src_modules >= 0) & (dst_modules != src_modules)
    if not include_tests:
        keep &= ~s.is_test[np.maximum(src_modules, 0)] & ~s.is_test[np.maximum(dst_modules, 0)]
    if not include_deferred:
        keep &= ~_in_function(view, src, lines)
    src_modules, dst_modules, lines = src_modules[keep], dst_modules[keep], lines[keep]
    modules = np.unique(np.concatenate([src_modules, dst_modules]))
    local_src = np.searchsorted(modules, src_modules)
    local_dst = np.searchsorted(modules, dst_modules)
    if not include_guarded and local_src.size:
        # Only an import inside a strongly connected component can be part of a cycle, and
        # dropping edges only splits components: reading just those files is exact.
        labels = native.strongly_connected_components(
            _module_csr(int(modules.size), local_src, local_dst)
        )
        files = [s.file[int(m)] for m in src_modules.tolist()]
        runs = ~_guarded(index, files, lines, labels[local_src] == labels[local_dst])
        local_src, local_dst, lines = local_src[runs], local_dst[runs], lines[runs]
    first_line: dict[tuple[int, int], int] = {}
    for a, b, line in zip(local_src.tolist(), local_dst.tolist(), lines.tolist()):
        if line < first_line.get((a, b), line + 1):
            first_line[(a, b)] = line
    return ModuleGraph(modules, _module_csr(int(modules.size), local_src, local_dst), first_line)


def _loop(graph: csrmod.CSR, members: np.ndarray) -> list[int]:
    """A shortest cycle through members[0] that stays inside the component."""
    first = int(members[0])
    inside = np.zeros(graph.n_nodes, dtype=np.uint8)
    inside[members] = 1
    best: list[int] | None = None
    for succ in sorted(set(graph.neighbors(first).tolist())):
        if not inside[succ]:
            continue
        path = native.shortest_path(graph, succ, first, node_mask=inside, max_depth=-1)
        if path is not None and (best is None or len(path) + 1 < len(best)):
            best = [first, *path.tolist()]
    return best or [first]


def cycles(
    index,
    include_tests: bool = False,
    include_deferred: bool = False,
    limit: int | None = DEFAULT_LIMIT,
    check_freshness: bool = True,
    *,
    include_guarded: bool = False,
) -> CyclesResult:
    """Import cycles between modules (strongly connected components of two or more), of the
    imports that run when a module is imported (see `module_import_graph`)."""
    check_params("upstream", 1, 0.0, limit)
    mg = module_import_graph(index, include_tests, include_deferred, include_guarded)
    files = index.graph.symbols.file

    def file_of(local: int) -> str:
        return files[int(mg.modules[local])]

    found = []
    for members in native.cycles(mg.csr):
        if members.size < 2:
            continue  # self-imports were dropped, so this cannot happen; be safe
        loop = _loop(mg.csr, members)
        found.append(
            ImportCycle(
                int(members.size),
                sorted(file_of(m) for m in members)[: limit or None],
                [
                    ImportStep(file_of(a), mg.first_line.get((a, b), 0), file_of(b))
                    for a, b in zip(loop, loop[1:])
                ],
            )
        )
    found.sort(key=lambda c: (-c.size, c.modules))
    return CyclesResult(
        count=len(found),
        include_tests=bool(include_tests),
        include_deferred=bool(include_deferred),
        cycles=found[: limit or None],
        freshness=freshness_of(index, check_freshness),
        include_guarded=bool(include_guarded),
    )
