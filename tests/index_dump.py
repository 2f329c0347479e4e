"""Everything users read from an index, in a form two indexes of one tree can be compared by.

Symbol ids are internal: a full build numbers symbols in uid order, an incremental run keeps
the ids symbols had and fills the holes of deleted ones, so two equal graphs may number
their symbols differently. Everything here is therefore keyed by uid:

- `rows`: every table's rows through Cypher (the `id` column left out, checked dense), sorted;
- `csr`: the CSR snapshot as a graph over uids (forward edges with type and confidence; the
  reverse CSR checked to be their transpose), and each symbol's kind and test flag;
- `unresolved`: the unresolved call sites (name, calling uid, line), sorted;
- `answers`: `impact` (both directions) and `context` of every symbol, as their JSON. Where
  an answer depends on the numbering, it is made canonical: lists of symbols are sorted by
  their content, and the one path (and the relation and confidence of its first edge) that
  explains each impact entry, which BFS picks among equally short ones by id, is checked to
  be a real path in that index's graph and then left out.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from codeimpact.cli import to_jsonable
from codeimpact.graph import csr
from codeimpact.graph.schema import NODE_TABLES, REL_TABLES
from codeimpact.graph.sidecar import read_unresolved
from codeimpact.query.index import Index

EXPLANATION = ("path", "relation", "confidence")  # of an impact entry or a test hit


def _sorted_rows(index: Index, query: str) -> list[tuple]:
    """The query's rows, sorted (read as Arrow columns: Django's ~300,000 rows row by row
    through the driver cost seconds per dump)."""
    table = index.reader.conn.execute(query).get_as_arrow()
    return sorted(zip(*(column.to_pylist() for column in table.columns)))


def rows(index: Index) -> dict[str, list[tuple]]:
    out: dict[str, list[tuple]] = {}
    for table, columns in NODE_TABLES.items():
        if table == "Meta":
            continue  # times, the generation, the mode: not graph content
        names = [c for c, _ in columns if c != "id"]
        out[table] = _sorted_rows(
            index, f"MATCH (n:{table}) RETURN " + ", ".join(f"n.{c}" for c in names)
        )
    ids = sorted(r[0] for r in index.query("MATCH (s:Symbol) RETURN s.id").rows)
    assert ids == list(range(len(ids))), "symbol ids are not dense 0..n-1"
    for rel, (src_t, dst_t, props) in REL_TABLES.items():
        sk, dk = NODE_TABLES[src_t][0][0], NODE_TABLES[dst_t][0][0]
        extra = "".join(f", r.{p}" for p, _ in props)
        out[rel] = _sorted_rows(
            index, f"MATCH (a:{src_t})-[r:{rel}]->(b:{dst_t}) RETURN a.{sk}, b.{dk}{extra}"
        )
    return out


def _edge_columns(c: csr.CSR, reverse: bool) -> np.ndarray:
    """Every edge of `c` as (source id, target id, type, confidence) columns, sorted; a
    reverse CSR's edges turned back to the forward direction."""
    at = np.repeat(np.arange(c.n_nodes), np.diff(c.indptr))
    src, dst = (c.indices, at) if reverse else (at, c.indices)
    cols = np.stack([src, dst, c.edge_type, c.confidence]).astype(np.float64)
    return cols[:, np.lexsort(cols[::-1])]


def uid_graph(index: Index) -> dict[tuple[str, str], list[tuple[str, float]]]:
    """(source uid, target uid) -> [(edge type, confidence)] from the snapshot queries read
    (the reverse CSR checked to hold the same edges)."""
    view = index.graph
    fwd = _edge_columns(view.snapshot.forward, reverse=False)
    back = _edge_columns(view.snapshot.reverse, reverse=True)
    assert np.array_equal(fwd, back), "the reverse CSR is not the transpose of the forward one"
    c = view.snapshot.forward
    uid = view.symbols.uid
    rows = np.repeat(np.arange(c.n_nodes), np.diff(c.indptr)).tolist()
    kinds = [csr.EDGE_TYPE_NAMES[t] for t in c.edge_type.tolist()]
    confs = [round(x, 4) for x in c.confidence.tolist()]
    out: dict[tuple[str, str], list] = {}
    for r, k, t, x in zip(rows, c.indices.tolist(), kinds, confs):
        out.setdefault((uid[r], uid[k]), []).append((t, x))
    return out


def csr_dump(index: Index, graph: dict | None = None) -> dict:
    view = index.graph
    assert not view.rebuilt, "the on-disk snapshot was unusable"
    graph = uid_graph(index) if graph is None else graph
    nodes = sorted(
        (u, csr.KIND_NAMES[k] if k < len(csr.KIND_NAMES) else k, int(f))
        for u, k, f in zip(
            view.symbols.uid, view.snapshot.node_kind.tolist(), view.snapshot.node_flags.tolist()
        )  # fmt: skip
    )
    return {"edges": sorted((k, sorted(v)) for k, v in graph.items()), "nodes": nodes}


def unresolved(index: Index) -> list[tuple]:
    sites = read_unresolved(Path(index.reader.gen.path))
    return sorted((name, caller, line) for name, found in sites.items() for caller, line in found)


# ---------------------------------------------------------------------------- answers
def _check_explanation(entry: dict, graph, direction: str, ends: set[str]) -> None:
    """The entry's path is a chain of real edges, as long as its depth, from the entry to the
    target (or a member of it); its relation and confidence are those of the first edge."""
    path = entry["path"]
    assert path[0] == entry["uid"] and path[-1] in ends, entry
    assert len(path) == entry["depth"] + 1, entry
    for a, b in zip(path, path[1:]):
        pair = (a, b) if direction == "upstream" else (b, a)
        assert pair in graph, (pair, entry)
    if "relation" in entry and len(path) > 1:
        pair = (path[0], path[1]) if direction == "upstream" else (path[1], path[0])
        assert (entry["relation"], round(entry["confidence"], 4)) in graph[pair], entry


def canonical(obj, check=None):
    """`obj` (JSON) with id-dependent orders sorted away and explanations checked, then
    dropped; `check(entry)` validates each dict that carries a path."""
    if isinstance(obj, dict):
        if "path" in obj and "uid" in obj:
            if check is not None:
                check(obj)
            obj = {k: v for k, v in obj.items() if k not in EXPLANATION}
        return {k: canonical(v, check) for k, v in obj.items()}
    if isinstance(obj, list):
        items = [canonical(v, check) for v in obj]
        if items and all(isinstance(v, dict) and "uid" in v for v in items):
            items.sort(key=lambda v: json.dumps(v, sort_keys=True))
        return items
    return obj


def answers(index: Index, uids: list[str] | None = None, graph: dict | None = None) -> dict:
    """uid -> {"upstream", "downstream", "context"} (all symbols when `uids` is None)."""
    graph = uid_graph(index) if graph is None else graph
    children: dict[str, list[str]] = {}
    for (a, b), kinds in graph.items():
        if any(t == "CONTAINS" for t, _ in kinds):
            children.setdefault(a, []).append(b)

    def members(uid: str) -> set[str]:
        out, todo = {uid}, [uid]
        while todo:
            for c in children.get(todo.pop(), ()):
                if c not in out:
                    out.add(c)
                    todo.append(c)
        return out

    out = {}
    for uid in uids if uids is not None else list(index.graph.symbols.uid):
        ends = members(uid)
        got = {}
        for direction in ("upstream", "downstream"):
            res = to_jsonable(
                index.impact(uid, direction=direction, limit=0, check_freshness=False)
            )
            res.pop("freshness")

            def check(entry, direction=direction, ends=ends):
                # test hits reach the target upstream, whatever the question's direction
                way = direction if "relation" in entry else "upstream"
                _check_explanation(entry, graph, way, ends)

            got[direction] = canonical(res, check)
        ctx = to_jsonable(index.context(uid, limit=0, check_freshness=False))
        ctx.pop("freshness")
        got["context"] = canonical(
            ctx, lambda e, ends=ends: _check_explanation(e, graph, "upstream", ends)
        )
        out[uid] = got
    return out


def dump(repo: Path, with_answers: bool = True, pick=None) -> dict:
    """Everything above for the index of `repo`; `answers` of every symbol if `with_answers`,
    or of the uids `pick(index, graph)` chooses (one opening, one uid graph: on Django each
    costs seconds)."""
    with Index.open(repo) as index:
        graph = uid_graph(index)
        out = {
            "rows": rows(index),
            "csr": csr_dump(index, graph),
            "unresolved": unresolved(index),
        }
        if with_answers or pick is not None:
            uids = None if pick is None else pick(index, graph)
            out["answers"] = answers(index, uids, graph)
    return out


def first_difference(a: dict, b: dict, where: str = "") -> str | None:
    """A short description of where two dumps first differ (None if they are equal)."""
    if a == b:
        return None
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b), key=str):
            if k not in a or k not in b:
                return f"{where}/{k}: only in {'the first' if k in a else 'the second'}"
            diff = first_difference(a[k], b[k], f"{where}/{k}")
            if diff:
                return diff
    if isinstance(a, list) and isinstance(b, list):
        only_a = [x for x in a if x not in b][:3]
        only_b = [x for x in b if x not in a][:3]
        if only_a or only_b:
            return f"{where}: only in the first {only_a}; only in the second {only_b}"
    return f"{where}: {str(a)[:300]} != {str(b)[:300]}"
