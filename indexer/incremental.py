"""The graph delta of an incremental run, computed from the files it touched only.

Edges are owned by the file that resolved them. Almost always that is the file
of the edge's source; the exceptions (value-flow calls: the callee calls what a
caller passed in) are listed in `GraphState.foreign`, so the owners of any edge
are known without reading every file. For each edge key a touched file had or
has, the best edge over its owners is recomputed before and after; symbols
change only in touched files, except externals, which live as long as an edge
points at them (`GraphState.ext_refs`).
"""

from __future__ import annotations

import contextlib
from array import array
from bisect import bisect_left
from collections.abc import MutableMapping

from codeimpact.graph import snapshot_files as csr
from codeimpact.graph.delta import GraphDelta
from codeimpact.indexer.id_table import Ids, at_or_above, copy_ids, max_id, pairs
from codeimpact.indexer.resolved import (
    EXTERNAL_PREFIX,
    Edge,
    ResolvedFile,
    SymbolRow,
    better,
    native_core,
)
from codeimpact.indexer.state import MAX_IDS, GraphState, edge_code, resolved_blob
from codeimpact.indexer.tables import EdgeKey, edge_row, external_row, symbol_row
from codeimpact.native.record import Compared


def path_of(uid: str) -> str:
    return uid.split("::", 1)[0]


class DeltaResult(Compared):
    delta: GraphDelta
    state: GraphState  # the new state (shares unchanged parts with the old one)
    removed_codes: list[int]
    added: list[tuple[int, float]]  # (code, confidence)
    # new id -> the row of a symbol inserted or changed (its node flags and kind)
    node_updates: dict[int, SymbolRow]
    moves: dict[int, int]  # old id -> new id (ids kept dense)
    newcomers: list[str]  # uids that took an id in this delta
    gone: list[str]  # uids whose id this delta freed
    __slots__ = (
        "delta",
        "state",
        "removed_codes",
        "added",
        "node_updates",
        "moves",
        "newcomers",
        "gone",
    )

    def __init__(
        self,
        delta: GraphDelta,
        state: GraphState,
        removed_codes: list[int] | None = None,
        added: list[tuple[int, float]] | None = None,
        node_updates: dict[int, SymbolRow] | None = None,
        moves: dict[int, int] | None = None,
        newcomers: list[str] | None = None,
        gone: list[str] | None = None,
    ) -> None:
        self.delta = delta
        self.state = state
        self.removed_codes = [] if removed_codes is None else removed_codes
        self.added = [] if added is None else added
        self.node_updates = {} if node_updates is None else node_updates
        self.moves = {} if moves is None else moves
        self.newcomers = [] if newcomers is None else newcomers
        self.gone = [] if gone is None else gone


def compute_delta(
    old: GraphState,
    new_out: dict[str, ResolvedFile],
    removed: set[str],
    new_used: dict[str, bytes],
    modules: dict,
    summaries: dict[str, bytes],
) -> DeltaResult:
    """`new_out`: fresh outputs of the re-resolved files; `removed`: files that are gone."""
    touched = set(new_out) | removed

    def old_rf(p: str) -> ResolvedFile | None:
        return old.resolved(p)

    def new_rf(p: str) -> ResolvedFile | None:
        if p in new_out:
            return new_out[p]
        if p in removed:
            return None
        return old.resolved(p)

    # -- foreign owners, before and after: only the keys a touched file's output held or
    # holds change (a file owns a key there for each edge of its output whose source is
    # another file's); the others keep their lists (Django: 5,565 keys rebuilt twice per
    # edit, ~2-3 ms, for the few of one file)
    new_foreign = old.foreign.copy()  # (a ForeignOwners copies only what it decoded)
    changed: dict[EdgeKey, list[str]] = {}
    for p in touched:
        rf = old_rf(p)
        for e in rf.edges if rf is not None else ():
            if path_of(e.src) != p:
                k = (e.rel, e.src, e.dst)
                if k not in changed:
                    changed[k] = [o for o in old.foreign.get(k, ()) if o not in touched]
    for p, rf in new_out.items():
        for e in rf.edges:
            if path_of(e.src) != p:
                k = (e.rel, e.src, e.dst)
                if k not in changed:
                    changed[k] = [o for o in old.foreign.get(k, ()) if o not in touched]
                changed[k].append(p)
    for k, owners in changed.items():
        if owners:
            new_foreign[k] = sorted(owners)
        else:
            new_foreign.pop(k, None)

    # -- edge keys that may have changed
    keys: set[EdgeKey] = set()
    for p in touched:
        for rf in (old_rf(p), new_out.get(p)):
            if rf is not None:
                keys.update((e.rel, e.src, e.dst) for e in rf.edges)

    per_file: dict[tuple[int, str], dict[EdgeKey, Edge]] = {}

    def file_best(side: int, owner: str, rf_of) -> dict[EdgeKey, Edge]:
        """The best edge per key within one file's output (cached per side)."""
        got = per_file.get((side, owner))
        if got is None:
            got = {}
            rf = rf_of(owner)
            for e in rf.edges if rf is not None else ():
                k = (e.rel, e.src, e.dst)
                if better(e, got.get(k)):
                    got[k] = e
            per_file[(side, owner)] = got
        return got

    def best(key: EdgeKey, side: int, foreign: dict, rf_of) -> Edge | None:
        found = None
        for o in {path_of(key[1]), *foreign.get(key, ())}:
            e = file_best(side, o, rf_of).get(key)
            if e is not None and better(e, found):
                found = e
        return found

    # -- symbols of touched files
    old_syms: dict[str, SymbolRow] = {}
    new_syms: dict[str, SymbolRow] = {}
    for p in touched:
        rf = old_rf(p)
        if rf is not None:
            old_syms.update((s.uid, s) for s in rf.symbols)
        rf = new_out.get(p)
        if rf is not None:
            new_syms.update((s.uid, s) for s in rf.symbols)
    # the live generation's ids, copied only when one changes (an edit that adds and drops
    # no symbol keeps them; an `Ids` copies only its changes since its table was written)
    ids = old.ids
    gone_syms = [u for u in old_syms if u not in new_syms]
    if gone_syms:
        ids = copy_ids(old.ids)
        for u in gone_syms:
            ids.pop(u, None)

    def exists(uid: str) -> bool:
        return (
            uid in new_syms
            or (uid in ids and path_of(uid) not in touched)
            or (uid.startswith(EXTERNAL_PREFIX))
        )

    # -- edges before/after, and external reference counts
    d = GraphDelta()
    ext_refs = dict(old.ext_refs)
    old_best: dict[EdgeKey, Edge] = {}
    new_best: dict[EdgeKey, Edge] = {}
    for key in keys:
        ob = best(key, 0, old.foreign, old_rf)
        if ob is not None and key[1] in old.ids and key[2] in old.ids:
            old_best[key] = ob
        nb = best(key, 1, new_foreign, new_rf)
        if nb is not None and exists(key[1]) and exists(key[2]):
            new_best[key] = nb
    for key in old_best:
        if key[2].startswith(EXTERNAL_PREFIX):
            ext_refs[key[2]] -= 1
    for key in new_best:
        if key[2].startswith(EXTERNAL_PREFIX):
            ext_refs[key[2]] = ext_refs.get(key[2], 0) + 1
    ext_gone = sorted(u for u, n in ext_refs.items() if n <= 0)
    if ext_gone and ids is old.ids:
        ids = copy_ids(old.ids)
    for u in ext_gone:
        del ext_refs[u]
        ids.pop(u, None)
    # every key of the live ext_refs is a node (it has an id): only the others are looked up
    # in the id table (each lookup hashes and searches: ~1,100 of them cost Django ~12 ms)
    ext_new = sorted(u for u in ext_refs if u not in old.ext_refs and u not in old.ids)

    # -- ids: dense 0..n-1, as the CSR and the query side's symbol table index them. The
    # survivors keep theirs and newcomers take freed ones first; when more symbols went than
    # came, the ones holding the highest ids move down into the holes left below n.
    freed = sorted(set(old.free_ids) | {old.ids[u] for u in gone_syms if u in old.ids}
                   | {old.ids[u] for u in ext_gone if u in old.ids})  # fmt: skip
    newcomers = sorted({u for u in new_syms if u not in old.ids} | set(ext_new))
    # the next never-used id: above every id in use and every freed one
    nxt = max(max_id(old.ids), max(freed, default=-1)) + 1
    pos = 0
    if newcomers and ids is old.ids:
        ids = copy_ids(old.ids)
    for u in newcomers:
        if pos < len(freed):
            ids[u] = freed[pos]
            pos += 1
        else:
            ids[u] = nxt
            nxt += 1
    if nxt > MAX_IDS:
        raise OverflowError("more symbols than edge codes can hold")
    holes = [h for h in freed[pos:] if h < len(ids)]
    if holes and ids is old.ids:
        ids = copy_ids(old.ids)
    moves = dense_moves(ids, holes)

    # -- rows
    res = DeltaResult(d, old)
    res.moves = {old.ids[u]: ids[u] for u in moves if u in old.ids}
    res.newcomers = newcomers
    res.gone = [u for u in sorted(gone_syms) + ext_gone if u in old.ids]
    for u in sorted(gone_syms) + ext_gone:
        d.symbols_delete.append(u)
        if u in old_syms and old_syms[u].file:
            d.rels_delete.setdefault("DEFINES", []).append((old_syms[u].file, u))
    kept = next((s for u, s in sorted(new_syms.items()) if u in old_syms and s.file), None)
    if kept is not None:  # a symbol of a touched file that stays: its DEFINES edge too
        d.survivors["DEFINES"] = [(kept.file, kept.uid)]
    for u in newcomers:
        s = new_syms.get(u) or external_row(u)
        d.symbols_insert.append(symbol_row(s, ids[u]))
        res.node_updates[ids[u]] = s
        if s.file:
            d.rels_insert.setdefault("DEFINES", []).append((s.file, u))
    for u in sorted(new_syms):
        if u in old_syms and (old_syms[u] != new_syms[u] or u in moves):
            d.update("Symbol", symbol_row(old_syms[u], old.ids[u]),
                     symbol_row(new_syms[u], ids[u]))  # fmt: skip
            res.node_updates[ids[u]] = new_syms[u]
    for u in sorted(moves):
        if u in old.ids and not (u in old_syms and u in new_syms):  # a symbol of an untouched file
            d.set_column("Symbol", u, "id", ids[u])
    for key in sorted(keys):
        ob, nb = old_best.get(key), new_best.get(key)
        if ob == nb:
            if nb is not None and nb.rel not in d.survivors:  # in the database before and after
                d.survivors[nb.rel] = [edge_row(nb)]
            continue
        if ob is not None and nb is not None and edge_row(ob) == edge_row(nb):
            # the same row in the database (a CONTAINS edge whose target moved down: its line
            # is not a column there): deleted and created again it cost the writer ~1.8 ms a
            # row (Django's edit B: 13 of them). The snapshot's code follows its ids (renumbered
            # by `moves` in patch_codes); only a confidence that is not a column changes there
            if nb.rel not in d.survivors:
                d.survivors[nb.rel] = [edge_row(nb)]
            if ob.confidence != nb.confidence:
                res.removed_codes.append(
                    edge_code(old.ids[ob.src], old.ids[ob.dst], csr.EDGE_TYPES[ob.rel])
                )
                res.added.append(
                    (edge_code(ids[nb.src], ids[nb.dst], csr.EDGE_TYPES[nb.rel]), nb.confidence)
                )
            continue
        if ob is not None and nb is not None:
            # the same two nodes, other properties: set in place (the snapshot's code and
            # confidence as for any change)
            d.rels_update.setdefault(nb.rel, []).append(edge_row(nb))
            res.removed_codes.append(
                edge_code(old.ids[ob.src], old.ids[ob.dst], csr.EDGE_TYPES[ob.rel])
            )
            res.added.append(
                (edge_code(ids[nb.src], ids[nb.dst], csr.EDGE_TYPES[nb.rel]), nb.confidence)
            )
            if nb.rel not in d.survivors:
                d.survivors[nb.rel] = [edge_row(nb)]
            continue
        if ob is not None:
            # deleted one by one, not left to DETACH DELETE: apply_delta needs to know
            # where every deleted edge was (see graph.delta.KUZU_NODE_GROUP_SIZE)
            d.rels_delete.setdefault(ob.rel, []).append((ob.src, ob.dst))
            res.removed_codes.append(
                edge_code(old.ids[ob.src], old.ids[ob.dst], csr.EDGE_TYPES[ob.rel])
            )
        if nb is not None:
            d.rels_insert.setdefault(nb.rel, []).append(edge_row(nb))
            res.added.append(
                (edge_code(ids[nb.src], ids[nb.dst], csr.EDGE_TYPES[nb.rel]), nb.confidence)
            )

    # -- totals
    totals = {k: dict(v) if isinstance(v, dict) else v for k, v in old.totals.items()}
    calls = totals.setdefault("calls", {})
    for p in touched:
        for rf, sign in ((old_rf(p), -1), (new_out.get(p), 1)):
            if rf is not None:
                calls["total"] = calls.get("total", 0) + sign * rf.calls_total
                calls["builtin"] = calls.get("builtin", 0) + sign * rf.calls_builtin
                calls["unresolved"] = calls.get("unresolved", 0) + sign * len(rf.unresolved)
    calls["resolved"] = calls["total"] - calls["builtin"] - calls["unresolved"]
    edges = totals.setdefault("edges", {})
    for key in keys:
        if key in old_best:
            edges[key[0]] = edges.get(key[0], 0) - 1
        if key in new_best:
            edges[key[0]] = edges.get(key[0], 0) + 1
    edges["DEFINES"] = (
        edges.get("DEFINES", 0)
        + sum(1 for s in new_syms.values() if s.uid not in old_syms)
        - sum(1 for u in gone_syms if old_syms[u].file)
    )
    totals["symbols"] = len(ids)

    # -- the new state
    refs = {p: r for p, r in old.resolved_refs.items() if p not in touched}
    blobs = {p: b for p, b in old.new_blobs.items() if p not in touched}
    blobs.update((p, resolved_blob(rf)) for p, rf in new_out.items())
    used = {p: b for p, b in old.used.items() if p not in removed}
    used.update(new_used)
    codes, confs = patch_codes(old.codes, old.confs, res.removed_codes, res.added, res.moves)
    res.state = GraphState(refs, used, modules, ids, [], new_foreign, ext_refs, totals,
                           summaries, codes, confs, blobs, old.pack_dir,
                           keys_base=old.keys_base, keys_digest=old.keys_digest,
                           names=old.names)  # fmt: skip
    if codes is old.codes and confs is old.confs:  # no edge came, went or was renumbered
        res.state.edges_from = old.pack_dir
    return res


def dense_moves(ids: MutableMapping[str, int], holes: list[int]) -> dict[str, int]:
    """Fill `holes` (free ids below len(ids)) with the symbols holding the ids at or above
    len(ids), lowest first; updates `ids` and returns uid -> new id of the moved ones."""
    if not holes:
        return {}
    n = len(ids)
    high = sorted(at_or_above(ids, n))
    if len(high) != len(holes):
        raise AssertionError(f"{len(holes)} free ids below {n} but {len(high)} ids above")
    moves = {}
    for (_, u), hole in zip(high, sorted(holes)):
        ids[u] = moves[u] = hole
    return moves


def patch_codes(codes, confs, removed: list[int], added, moves: dict[int, int] | None = None):
    """The sorted edge codes after a delta: `removed` (codes in the old ids) go, the old ids
    in `moves` (old id -> new id) are renumbered, `added` (in the new ids) come in; the
    arrays given when nothing does (no sort of the kernel's 5M codes). Buffers in (int64
    codes, float32 confidences), memoryviews out: the native core's work (no numpy)."""
    if not moves and len(removed) == len(added) and _same_codes(codes, confs, removed, added):
        return codes, confs
    new_codes, new_confs = native_core().patch_codes(codes, confs, removed, added, moves or {})
    return memoryview(new_codes).cast("q"), memoryview(new_confs).cast("f")


def _same_codes(codes, confs, removed: list[int], added) -> bool:
    """Whether the edges `added` are exactly those `removed`, each with the confidence it
    had: an edit above a file's calls moves their lines, so each is deleted and inserted
    again in the database, the same code and confidence."""
    if not removed:
        return True
    new = sorted(range(len(added)), key=lambda j: added[j][0])  # (stable, as numpy's)
    gone = sorted(removed)
    if gone != [added[j][0] for j in new]:
        return False
    # each confidence as the float32 the state keeps
    want = array("f", [added[j][1] for j in new])
    n = len(codes)
    for k, c in enumerate(gone):
        at = bisect_left(codes, c)
        if at >= n or codes[at] != c or confs[at] != want[k]:
            return False
    return True


def node_ranks(res: DeltaResult, old_rank, old_ids=None):
    """Each node's rank in uid order after the delta (the previous ranks when no symbol
    came or went). With the live generation's ids (`old_ids`, an `Ids` over its table) the
    previous ranks are patched: the survivors keep their order, each newcomer's place among
    them is found by bisection over the old order (a few uids decoded), instead of
    decoding and sorting every uid (Django: 48,000, ~30 ms of an edit that adds a symbol).
    int32 buffers (the native core's, or numpy's on the rare way that sorts every uid)."""
    if not (res.delta.symbols_insert or res.delta.symbols_delete or res.moves):
        return old_rank
    if isinstance(old_ids, Ids) and len(old_ids) == len(old_rank):
        rank = _patched_ranks(old_rank, old_ids, res.gone, res.newcomers, res.moves,
                              res.state.ids)  # fmt: skip
        if rank is not None:
            return rank
    from codeimpact.graph.csr import uid_ranks  # (numpy's)

    return uid_ranks(*pairs(res.state.ids))


def _patched_ranks(old_rank, old_ids: Ids, gone: list[str], newcomers: list[str],
                   moves: dict[int, int], new_ids):  # fmt: skip
    """csr.uid_ranks of the new ids, from the old ranks (ids dense 0..n-1 before and after),
    as an int32 memoryview; None when the old ranks are not a permutation."""
    n_old = len(old_rank)
    by_rank = native_core().rank_order(old_rank)  # the old id at each old rank
    if by_rank is None:
        return None
    by_rank = memoryview(by_rank).cast("i")
    held = {i: u for u, i in old_ids.changed.items()}  # old ids the base table does not name

    def uid_of(i: int) -> str:
        u = held.get(i)
        return u if u is not None else old_ids.base.uid_at(i)

    gone_ids = sorted(old_ids[u] for u in gone)
    gone_ranks = sorted(old_rank[g] for g in gone_ids)
    # each newcomer: how many survivors sort before it (old uids before it, less the gone)
    places = []
    ordered = sorted(newcomers)
    for u in ordered:
        lo, hi = 0, n_old
        while lo < hi:
            mid = (lo + hi) // 2
            if uid_of(by_rank[mid]) < u:
                lo = mid + 1
            else:
                hi = mid
        places.append(lo - bisect_left(gone_ranks, lo))
    rank = native_core().patched_ranks(old_rank, gone_ids, moves, places,
                                       [new_ids[u] for u in ordered], len(new_ids))  # fmt: skip
    return memoryview(rank).cast("i")


def node_arrays(res: DeltaResult, n: int, old_flags, old_kinds) -> tuple[bytearray, bytearray]:
    """The snapshot's per-node flags and kinds (uint8) after the delta, from the previous
    ones."""
    flags = bytearray(n)
    kinds = bytearray(b"\xff") * n
    m = min(n, len(old_flags))
    flags[:m] = old_flags[:m]
    kinds[:m] = old_kinds[:m]
    for old_id, new_id in res.moves.items():
        flags[new_id] = old_flags[old_id]
        kinds[new_id] = old_kinds[old_id]
    for i, row in res.node_updates.items():
        flags[i] = csr.FLAG_TEST if row.is_test else 0
        kinds[i] = csr.KIND_CODES.get(row.kind, 255)
    return flags, kinds


def patch_unresolved(sites: dict[str, list[tuple[str, int]]], old: GraphState,
                     new_out: dict[str, ResolvedFile], removed: set[str]) -> None:  # fmt: skip
    """Bring the unresolved call sites (callee name -> [(calling symbol uid, line)], the
    live generation's) to this run's, in place: the touched files' sites as the old state
    resolved them go, their new ones are appended. Only the touched files' sites are read
    (a pass filtering every site by its file cost Django 40 ms per run)."""
    for p in sorted(set(new_out) | removed):
        rf = old.resolved(p)
        if rf is None:
            continue
        for scope, name, line in rf.unresolved:
            kept = sites.get(name)
            if kept is None:
                continue
            with contextlib.suppress(ValueError):
                kept.remove((scope, line))
            if not kept:
                del sites[name]
    for rf in new_out.values():
        for scope, name, line in rf.unresolved:  # (a resolver's may be plain tuples)
            sites.setdefault(name, []).append((scope, line))


def same_unresolved(old: GraphState, new_out: dict[str, ResolvedFile]) -> bool:
    """Whether the files resolved again keep the unresolved call sites (callee, scope, line)
    the live generation holds for them: then `patch_unresolved` would change nothing but
    the order of the sites in a name's list (which no reader depends on)."""
    for p, rf in new_out.items():
        was = old.resolved(p)
        if was is None:
            if rf.unresolved:
                return False
            continue
        if sorted(map(tuple, was.unresolved)) != sorted(map(tuple, rf.unresolved)):
            return False
    return True


def dangling_edges(old: GraphState, snap: csr.Nodes, res: DeltaResult,
                   most: int = 3) -> list[str]:  # fmt: skip
    """The edges `res` keeps although it removes one of their ends (at most `most`, each
    said as `src -REL (reason)-> dst` and the file whose resolution made it). Such an edge
    belongs to a file the run did not resolve again although the edit removed a symbol it
    reaches: a rule that reads another file's symbols without the change plan knowing.
    Written, the symbol's DELETE fails in the database (Kùzu 0.11 says only "No active
    transaction for ROLLBACK"), and the edge codes would keep an id a newcomer then takes."""
    if not res.gone:
        return []
    removed = set(res.removed_codes)
    found: set[tuple[int, int, int]] = set()
    for u in res.gone:
        g = old.ids[u]
        if g >= snap.n_nodes:
            continue
        for c, outgoing in ((snap.forward, True), (snap.reverse, False)):
            part = c.row(g)
            for n, t in zip(c.indices[part].tolist(), c.edge_type[part].tolist()):
                src, dst = (g, n) if outgoing else (n, g)
                if edge_code(src, dst, t) not in removed:
                    found.add((src, dst, t))
    if not found:
        return []
    wanted = {i for s, d, _ in found for i in (s, d)}
    uids, ids = pairs(old.ids)
    uid_of = {int(i): uids[k] for k, i in enumerate(ids.tolist()) if i in wanted}
    said = []
    for s, d, t in sorted(found)[:most]:
        rel = csr.EDGE_TYPE_NAMES[t]
        src, dst = uid_of.get(s, f"#{s}"), uid_of.get(d, f"#{d}")
        owners = sorted({path_of(src), *old.foreign.get((rel, src, dst), ())})
        reasons = sorted({e.reason for o in owners for e in _edges_of(old, o)
                          if (e.rel, e.src, e.dst) == (rel, src, dst) and e.reason})  # fmt: skip
        why = f" ({', '.join(reasons)})" if reasons else ""
        said.append(f"{src} -{rel}{why}-> {dst}, resolved by {', '.join(owners)}")
    return said


def _edges_of(old: GraphState, path: str) -> list[Edge]:
    with contextlib.suppress(Exception):  # only to say which rule made an edge
        rf = old.resolved(path)
        return rf.edges if rf is not None else []
    return []
