"""The incremental run: from the live generation and a change plan, re-extract the changed
files, re-resolve the files the plan names (indexer/plan.py says why that set suffices),
and write the difference as a new generation. Each step may instead say why a full build
must (or had better) be done: it returns that reason as a string."""

from __future__ import annotations

import contextlib
import functools
import marshal
import time
from collections.abc import Callable, Mapping
from itertools import compress, filterfalse
from pathlib import Path
from typing import TYPE_CHECKING

from codeimpact.graph import layout, snapshot_files
from codeimpact.graph.delta import GraphDelta
from codeimpact.graph.sidecar import UNRESOLVED_FILE, read_unresolved
from codeimpact.graph.store import count_mismatches
from codeimpact.indexer import cutoff, spare_leveller, treesig, worktree
from codeimpact.indexer.delta_write import (
    DeltaWrite,
    EarlyWrite,
    PendingWrite,
    prestart,
    salvager,
    start_delta,
)
from codeimpact.indexer.extraction import facts_of_blob
from codeimpact.indexer.facts_cache import facts_key
from codeimpact.indexer.files_state import FileState
from codeimpact.indexer.incremental import (
    DeltaResult,
    compute_delta,
    dangling_edges,
    node_arrays,
    node_ranks,
    patch_unresolved,
    same_unresolved,
)
from codeimpact.indexer.lang import group_of as language_group
from codeimpact.indexer.lang.api import FileFacts, Prior
from codeimpact.indexer.lazy_facts import LazyFacts
from codeimpact.indexer.plan import (
    ChangePlan,
    FlowIndex,
    affected_files,
    flow_binders,
    flow_reads,
    lookup_keys_blob,
    reachers_of,
    touched_names,
    used_names,
)
from codeimpact.indexer.report import AnalyzeReport, FileRecord
from codeimpact.indexer.resolution import (
    changed_modules,
    fresh_summaries,
    hierarchy_changes,
    make_projects,
    module_names,
    resolve_paths,
    shared_summaries,
    summaries_of,
)
from codeimpact.indexer.resolved import ResolvedFile
from codeimpact.indexer.run import (
    FULL_REBUILD_SHARE,
    Previous,
    Run,
    generation_meta,
    run_stats,
    tree_fields,
)
from codeimpact.indexer.state import GraphState, load_graph_state, loads_mapped
from codeimpact.indexer.tables import expected_counts, file_row
from codeimpact.native.record import Compared

if TYPE_CHECKING:
    import numpy as np

# Re-resolving more than this many files (and more than that share of them) is cheaper as a
# full build from the cached facts: on Django, 2,000 files by delta took 7 s, a full build 5.5 s.
# Below it either path is quick, and small repositories keep the delta (and its tests).
WIDE_RESOLVE_MIN = 256


class _Facts(Compared):
    """The facts the delta works from."""

    now: dict[str, FileFacts]  # the changed files' facts (extracted or cached)
    parsed: int  # files parsed for them
    before: dict[str, FileFacts]  # the changed files' facts in the live generation
    present: list[str]  # the files indexed now (not skipped)
    every: LazyFacts  # every present file's facts, loaded when a resolver asks
    __slots__ = ("now", "parsed", "before", "present", "every")

    def __init__(
        self,
        now: dict[str, FileFacts],
        parsed: int,
        before: dict[str, FileFacts],
        present: list[str],
        every: LazyFacts,
    ) -> None:
        self.now = now
        self.parsed = parsed
        self.before = before
        self.present = present
        self.every = every


class _Resolved(Compared):
    out: dict[str, ResolvedFile]  # the files re-resolved
    modules: dict[str, dict[str, str] | None]  # per language, path -> module name
    summaries: dict[str, bytes]  # path -> the resolver's summary of the file
    lookup_keys: dict[str, bytes]  # the lookup keys of the files whose facts changed
    cut_off: bool  # nothing resolved again: the changed files' facts did not change
    # resolver group -> its shared summary: new bytes, or the live generation's file
    shared: dict[str, bytes | Path]
    __slots__ = ("out", "modules", "summaries", "lookup_keys", "cut_off", "shared")

    def __init__(
        self,
        out: dict[str, ResolvedFile],
        modules: dict[str, dict[str, str] | None],
        summaries: dict[str, bytes],
        lookup_keys: dict[str, bytes],
        cut_off: bool = False,
        shared: dict[str, bytes | Path] | None = None,
    ) -> None:
        self.out = out
        self.modules = modules
        self.summaries = summaries
        self.lookup_keys = lookup_keys
        self.cut_off = cut_off
        self.shared = {} if shared is None else shared


class _Diff(Compared):
    result: DeltaResult
    flags: np.ndarray  # per node, after the delta
    kinds: np.ndarray
    rank: np.ndarray  # each node's rank in uid order
    # name -> (scope, line) of its call sites; or the live generation's folder, whose
    # unresolved sites stand (none of the files resolved again changed theirs); asked for
    # once the writer has the delta: neither it nor the Meta needs them
    unresolved: Callable[[], dict[str, list[tuple[str, int]]] | Path]
    __slots__ = ("result", "flags", "kinds", "rank", "unresolved")

    def __init__(
        self,
        result: DeltaResult,
        flags: np.ndarray,
        kinds: np.ndarray,
        rank: np.ndarray,
        unresolved: Callable[[], dict[str, list[tuple[str, int]]] | Path],
    ) -> None:
        self.result = result
        self.flags = flags
        self.kinds = kinds
        self.rank = rank
        self.unresolved = unresolved


class Writer(Compared):
    """The database writer of a delta run (`prestart`), started before the run knows it will
    write by delta (indexer/pipeline.py: while git lists the files, once a file's stat moved),
    with the generation it writes; `drop` when no delta is written after all."""

    live: layout.Generation  # the generation it brings its database level with
    gen: layout.Generation
    early: EarlyWrite | None  # None: a fork was unsafe (the delta is written later)
    __slots__ = ("live", "gen", "early")

    def __init__(
        self, live: layout.Generation, gen: layout.Generation, early: EarlyWrite | None
    ) -> None:
        self.live = live
        self.gen = gen
        self.early = early

    def drop(self) -> None:
        if self.early is not None:
            self.early.cancel()
        layout.discard(self.gen)


def start_writer(idx: Path, live: layout.Generation, buffer_pool: int) -> Writer:
    """A `Writer` for the generation after `live`, its child forked now (this process is
    still small, and the other core idle while git lists the files)."""
    gen = layout.next_generation(idx)
    try:
        return Writer(live, gen, prestart(idx, live, gen, buffer_pool))
    except BaseException:
        layout.discard(gen)
        raise


def incremental(run: Run, prev: Previous, plan: ChangePlan, reason: str,
                writer: Writer | None = None) -> AnalyzeReport | str:  # fmt: skip
    """The delta run, or why a full build must (or had better) be done instead; `writer`:
    started already for `prev`'s generation (taken over: dropped here if not used)."""
    # the working tree's Meta fields (git status, the stat pass, the tree signature) are
    # taken beside the run, the files being read: not in its write phase (its pipe's reads
    # are length-prefixed: a writer forked before holds no copy of it; one forked after
    # would, harmlessly)
    try:
        fields = worktree.EarlyFields(functools.partial(_tree_fields, run, prev))
    except BaseException:
        if writer is not None:
            writer.drop()
        raise
    run.forks["tree fields"] = fields.path
    try:
        return _incremental(run, prev, plan, reason, fields, writer)
    finally:
        fields.close()


def _tree_fields(run: Run, prev: Previous) -> dict:
    last = treesig.load_last(run.idx)  # the live generation's, `prev`'s (the run holds the lock)
    since = worktree.StatusRecord.from_json(last.status) if last is not None else None
    asked = _status_paths(run, prev, last) if since is not None else ()
    probe = worktree.StatusProbe(run.repo, run.untracked, since, asked)
    try:
        return tree_fields(run.repo, run.config, run.records, run.scanned_at, probe, last,
                           tracked=run.tracked)  # fmt: skip
    finally:
        probe.close()


def _status_paths(run: Run, prev: Previous, last: treesig.TreeSignature) -> set[str]:
    """The files whose git status may have changed since `prev`'s: read with other content
    than `prev` holds (or new, or gone), unhashed (too large: the content is not known), and
    symbolic links (a link retargeted to a file of the same content)."""
    before = prev.files.files
    out = set(last.links)
    for r in run.records:
        fs = before.get(r.path)
        if fs is None or not r.content_hash or fs.content_hash != r.content_hash:
            out.add(r.path)
    now = {r.path for r in run.records}
    out.update(p for p in before if p not in now)
    return out


def _incremental(run: Run, prev: Previous, plan: ChangePlan, reason: str,
                 fields: worktree.EarlyFields,
                 writer: Writer | None) -> AnalyzeReport | str:  # fmt: skip
    # the database's writer starts now (unless it did while git listed the files), while this
    # process is small, and brings its copy level with the live generation while the run
    # resolves (indexer/wal_commit.py)
    if writer is None:
        writer = start_writer(run.idx, prev.gen, run.options.buffer_pool)
    gen, early = writer.gen, writer.early
    try:
        outcome = _delta_run(run, prev, plan, reason, fields, gen, early)
    except BaseException:
        writer.drop()
        raise
    if isinstance(outcome, str):  # a full build instead: the delta's generation goes
        writer.drop()
        return outcome
    # outside the discard above: a publish that failed part way is the layout's to undo
    db = outcome.write.db_checksum
    layout.publish(run.idx, gen, outcome.write.rows, run.cache.sealed_files(),
                   salvage=salvager(run.idx, prev.gen),
                   checked={layout.DB_FILENAME: db} if db else None, defer=True,
                   grown=run.cache.grown_files())  # fmt: skip
    # the database it replaced is the spare now: brought level with `gen` in the background,
    # the next run only opens it (graph/spare_level.py); the leveller removes the old folder
    started = run.forks["spare leveller"] = spare_leveller.start(
        run.idx, gen.number, outcome.delta, outcome.meta, outcome.write.rows,
        run.options.buffer_pool,
    )  # fmt: skip
    if started != spare_leveller.STARTED:
        layout.remove_trash(run.idx)
    return outcome.report()


def _delta_run(run: Run, prev: Previous, plan: ChangePlan, reason: str,
               fields: worktree.EarlyFields, gen: layout.Generation,
               early: EarlyWrite | None) -> _Written | str:  # fmt: skip
    t = time.perf_counter()
    old_state = load_graph_state(prev.gen.path)
    try:
        # its arrays mapped as memoryviews (an edit imports no numpy)
        snap = snapshot_files.load_nodes(prev.gen.path, prev.gen.number)
    except snapshot_files.SnapshotMismatch:
        snap = None
    if old_state is None or snap is None:
        return "incremental state unusable"
    run.phase("load_state", t)

    t = time.perf_counter()
    facts = _facts(run, prev, plan)
    if isinstance(facts, str):
        return facts
    run.phase("extract", t)

    t = time.perf_counter()
    resolved = _resolve(run, prev, plan, old_state, facts)
    if isinstance(resolved, str):
        return resolved
    run.phase("resolve", t)

    t = time.perf_counter()
    diff = _diff(run, prev, old_state, snap, facts, resolved)
    dangling = dangling_edges(old_state, snap, diff.result)
    if dangling:  # written, the delta would fail in the database: a full build instead
        return "edges of files not resolved again reach symbols removed: " + "; ".join(dangling)
    run.phase("diff", t)

    return _write(run, prev, plan, reason, fields, facts.parsed, resolved, diff, gen, early)


def _facts(run: Run, prev: Previous, plan: ChangePlan) -> _Facts | str:
    changed = plan.changed
    # the changed files' facts now (extracted, or cached under their content) and before
    now = [r for r in run.records if r.path in changed]
    new_facts, parsed = run.facts_for(now)
    old_facts: dict[str, FileFacts] = {}
    for p in changed:
        fs = prev.files.files.get(p)
        if fs is None or fs.status.startswith("skipped:"):
            continue
        blob = run.cache.get(facts_key(fs.language, fs.content_hash))
        if blob is None:
            return "the previous facts of a changed file are not cached"
        with contextlib.suppress(ValueError, EOFError, TypeError, IndexError):
            old_facts[p] = FileFacts.from_bytes(blob)
    by_path = {r.path: r for r in run.records}
    present = [r.path for r in run.records if not r.status.startswith("skipped:")]

    def load(path: str) -> FileFacts:
        if path in new_facts:
            return new_facts[path]
        rec = by_path[path]
        blob = run.cache.get(facts_key(rec.language, rec.content_hash))
        return facts_of_blob(rec, blob, run.repo, run.config.max_file_size, run.cache)

    return _Facts(new_facts, parsed, old_facts, present, LazyFacts(present, load))


def _resolve(run: Run, prev: Previous, plan: ChangePlan, old_state: GraphState,
             f: _Facts) -> _Resolved | str:  # fmt: skip
    """Re-resolve the files a change reaches, or say why a full build is cheaper."""
    cut = _cut_off(plan, old_state, f)
    if cut is not None:
        return cut
    changed = plan.changed
    present, facts = f.present, f.every
    lang_of = {r.path: r.language for r in run.records}
    # names are planned per resolver group: a Python name never binds in a JS file. Only the
    # changed files' groups are planned: no name of another group's files changed
    group_of = _GroupOf(lang_of, prev.files.files)
    groups = {group_of[p] for p in changed}
    plans = {g: plan.within({p for p in changed if group_of[p] == g}) for g in groups}
    # language -> its group, for the languages of the present files (each asked once: asked
    # per path of the tree, the groups were ~11M instructions of a Django edit)
    langs = {lang: group_of.of_language(lang) for lang in set(map(lang_of.__getitem__, present))}
    here = {g: _of_groups(present, lang_of, langs, {g}) for g in groups}  # present files
    within = {g: set(here[g]) for g in groups}
    new_used: dict[str, bytes] = {}
    used = _StandingKeys(old_state)  # the unchanged files' used names, decoded when asked
    eager: dict[str, list] = {}  # group -> the changed files' flow binders, before and after
    for p, ff in f.before.items():
        eager.setdefault(group_of[p], []).append(flow_binders(ff))
    # the files read this run: the changed ones, and any the live generation has no lookup
    # keys of; the others' keys stand (sets and C filters: no Python step per file)
    read_now = set(present)
    read_now = read_now.difference(old_state.used).union(p for p in changed if p in read_now)
    for p in filter(read_now.__contains__, present):
        ff = facts[p]
        new_used[p] = lookup_keys_blob(ff)
        used.fresh[p] = frozenset(used_names(ff))
        if group_of[p] in groups:
            eager.setdefault(group_of[p], []).append(flow_binders(ff))
    every = f.every

    def reads_of(g: str):
        # what FlowIndex reads of each unchanged file, when a plan first asks about a name
        return lambda: {p: flow_reads(used.keys_of(p))
                        for p in filterfalse(read_now.__contains__, here[g])}  # fmt: skip

    def readers_in(g: str):
        # the same files found by the live generation's index of names, none decoded
        def find(names: set[str]) -> set[str] | None:
            found = old_state.users_of(names, used_only=False)
            return None if found is None else (found & within[g]) - read_now

        return find

    binders = {
        g: FlowIndex(eager.get(g, ()), reads_of(g), lambda p: flow_binders(every[p]), readers_in(g))
        for g in groups
    }
    touched = {g: touched_names(plans[g], f.before, f.now, binders[g]) for g in groups}

    def affected_by(touched: dict[str, set[str] | None]) -> set[str]:
        out: set[str] = set()
        for g, names in touched.items():
            found = old_state.users_of(names, used_only=True) if names else None
            if found is None:
                out |= affected_files(plans[g], here[g], used, names)
                continue
            # affected_files' answer: the changed files, the files read this run that use a
            # name, the others' users found by the index
            mine, read = within[g], used.fresh
            out |= {p for p in plans[g].changed if p in mine}
            out |= {p for p, names_of in read.items()
                    if p in mine and not names_of.isdisjoint(names)}  # fmt: skip
            out |= (found & mine).difference(read)
        return out

    # re-resolve what uses a changed name. Projects summarise only those files again (a
    # class's bases are looked up like its calls); a changed class hierarchy touches more
    # names, whose users are summarised in turn, until no name is added
    affected = affected_by(touched)
    before = _Decoded(old_state.summaries)
    # only the resolver groups of the changed files: no name of another group's files
    # changed, so nothing there is resolved again and their summaries and module names
    # stand (a Python edit of Django decoded and indexed every TypeScript file before)
    facts = facts.subset(here[next(iter(groups))] if len(groups) == 1
                         else _of_groups(present, lang_of, langs, groups))  # fmt: skip
    while True:
        prior = Prior(before, affected, old_state.modules, _shared_loader(old_state))
        projects = make_projects(facts, lang_of, run.configs, prior)
        grew = False
        for g, (values, edges) in hierarchy_changes(projects, before, group_of).items():
            names = touched.setdefault(g, set())
            if names is not None and not (values | edges) <= names:
                names |= values | edges | reachers_of(values, binders.get(g, []))
                grew = True
        grown = affected_by(touched) if grew else affected
        if grown <= affected:
            break
        affected = grown
    kept_langs = {lang for lang, g in langs.items() if g not in groups}
    modules = {lang: old_state.modules.get(lang) for lang in kept_langs}
    modules.update(module_names(projects))
    old_files = prev.files.files
    changed_langs = {lang_of.get(p) or (old_files[p].language if p in old_files else None)
                     for p in changed}  # fmt: skip
    module_changed = changed_modules(modules, old_state.modules, lang_of, present,
                                     changed_langs)  # fmt: skip
    affected |= module_changed
    if len(affected) > max(len(present) * FULL_REBUILD_SHARE, WIDE_RESOLVE_MIN):
        # a delta over most of the graph costs more than writing it anew (facts are cached)
        return f"{len(affected)} of {len(present)} files to re-resolve"
    new_out = resolve_paths(projects, lang_of, affected)
    fresh = fresh_summaries(projects)
    if fresh is not None:  # the others' stand: no loop over every file's (2.8K on Django)
        summaries = dict(old_state.summaries)
        summaries.update(fresh)
    else:
        summaries = {p: b for p, b in old_state.summaries.items() if group_of.get(p) not in groups}
        summaries.update(summaries_of(projects, old_state.summaries))
    shared = {g: f for g, f in old_state.shared.items() if g not in groups}
    for g, value in shared_summaries(projects).items():
        if value is not None:
            shared[g] = marshal.dumps(value)
        elif g in old_state.shared:  # the project kept the live generation's, unchanged
            shared[g] = old_state.shared[g]
    return _Resolved(new_out, modules, summaries, new_used, shared=shared)


def _shared_loader(state: GraphState):
    """group -> its shared summary in the live generation, decoded anew at each call."""

    def load(group: str):
        path = state.shared.get(group)
        if path is None:
            return None
        try:
            return loads_mapped(path)[0]  # (Python's on Django: 3 MB)
        except (OSError, ValueError, EOFError, TypeError):
            return None

    return load


class _GroupOf(Mapping[str, str]):
    """path -> its resolver group: its language's now, else before (a file gone); each
    language's group asked once."""

    def __init__(self, lang_of: dict[str, str], before: Mapping[str, FileState]):
        self._lang_of = lang_of
        self._before = before
        self._groups: dict[str, str] = {}

    def of_language(self, lang: str) -> str:
        g = self._groups.get(lang)
        if g is None:
            g = self._groups[lang] = language_group(lang)
        return g

    def __getitem__(self, path: str) -> str:
        lang_of = self._lang_of
        return self.of_language(lang_of[path] if path in lang_of else self._before[path].language)

    def __contains__(self, path: object) -> bool:
        return path in self._lang_of or path in self._before

    def __iter__(self):
        return iter({**self._before, **self._lang_of})

    def __len__(self) -> int:
        return len(self._lang_of.keys() | self._before.keys())


def _of_groups(present: list[str], lang_of: dict[str, str], langs: dict[str, str],
               groups: set[str]) -> list[str]:  # fmt: skip
    """The present files of `groups`, in order (`langs`: the present files' languages ->
    their group): filtered in C, or `present` itself when every language is of them."""
    mine = {lang for lang, g in langs.items() if g in groups}
    if len(mine) == len(langs):
        return present
    return list(compress(present, map(mine.__contains__, map(lang_of.__getitem__, present))))


class _Decoded(Mapping[str, object]):
    """path -> the previous run's summary of the file, decoded when first asked (a kernel
    edit reads a few hundred of 55,000)."""

    def __init__(self, blobs: dict[str, bytes]):
        self._blobs = blobs
        self._done: dict[str, object] = {}

    def __getitem__(self, path: str):
        hit = self._done.get(path, self)
        if hit is self:
            hit = self._done[path] = marshal.loads(self._blobs[path])
        return hit

    def __iter__(self):
        return iter(self._blobs)

    def __len__(self) -> int:
        return len(self._blobs)

    def __contains__(self, path) -> bool:
        return path in self._blobs


class _StandingKeys(Mapping[str, frozenset[str]]):
    """path -> the names a file's lookups use: `fresh` (files whose facts were read this run),
    else the live generation's lookup keys, each decoded when first asked (a plan asks only
    when a name is touched)."""

    def __init__(self, state: GraphState):
        self._state = state
        self.fresh: dict[str, frozenset[str]] = {}
        self._keys: dict[str, tuple[frozenset[str], list]] = {}

    def keys_of(self, path: str) -> tuple[frozenset[str], list]:
        hit = self._keys.get(path)
        if hit is None:
            hit = self._keys[path] = self._state.lookup_keys(path)
        return hit

    def __getitem__(self, path: str) -> frozenset[str]:
        hit = self.fresh.get(path)
        return hit if hit is not None else self.keys_of(path)[0]

    def __iter__(self):
        return iter(self.fresh.keys() | self._state.used.keys())

    def __len__(self) -> int:
        return len(self.fresh.keys() | self._state.used.keys())


def _cut_off(plan: ChangePlan, old_state: GraphState, f: _Facts) -> _Resolved | None:
    """Early cut-off (indexer/cutoff.py): when every changed file was modified and its facts
    moved at most in its symbols' byte offsets, nothing is resolved again; None otherwise."""
    if not plan.modified or plan.added or plan.deleted or plan.renamed:
        return None
    out: dict[str, ResolvedFile] = {}
    for p in plan.changed:
        now = f.now.get(p)
        if not cutoff.same_but_offsets(f.before.get(p), now):
            return None
        moved = cutoff.moved(old_state.resolved(p), now, p)
        if moved is None:
            return None
        out[p] = moved
    # their lookup keys anew: a local keyed by its offset is among the names a file uses
    keys = {p: lookup_keys_blob(f.now[p]) for p in out}
    return _Resolved(out, old_state.modules, old_state.summaries, keys, cut_off=True,
                     shared=dict(old_state.shared))  # fmt: skip


def _diff(run: Run, prev: Previous, old_state: GraphState, snap: snapshot_files.Nodes, f: _Facts,
          resolved: _Resolved) -> _Diff:  # fmt: skip
    """The database delta, the new state and side files, from the re-resolved files."""
    new_out = resolved.out
    removed = {p for p in old_state.files() if p not in f.every}
    res = compute_delta(old_state, new_out, removed, resolved.lookup_keys, resolved.modules,
                        resolved.summaries)  # fmt: skip
    res.state.shared = resolved.shared
    _file_rows(run, prev, res.delta)
    st = res.state
    flags, kinds = node_arrays(res, len(st.ids), snap.node_flags, snap.node_kind)
    rank = node_ranks(res, snap.node_rank, old_state.ids)

    # the live generation's file (2.4 MB on Django: read, patched and written again cost
    # ~30 ms of CPU) is linked when no site changed (a comment edited, a function added
    # whose calls all resolve); else it is read (~18 ms) while the writer commits
    def unresolved() -> dict[str, list[tuple[str, int]]] | Path:
        if (
            removed
            or not (prev.gen.path / UNRESOLVED_FILE).is_file()
            or not same_unresolved(old_state, new_out)
        ):
            sites = read_unresolved(prev.gen.path)
            patch_unresolved(sites, old_state, new_out, removed)
            return sites
        return prev.gen.path

    return _Diff(res, flags, kinds, rank, unresolved)


def _file_rows(run: Run, prev: Previous, delta: GraphDelta) -> None:
    """The File rows' part of `delta`: rows of files gone, new and changed."""
    before = prev.files.files
    now = {r.path: r for r in run.records}
    states = run.file_states()  # (the files state's, made once)
    delta.files_delete = sorted(p for p in before if p not in now)
    for p, r in sorted(now.items()):
        fs = before.get(p)
        if fs is None:
            delta.files_upsert.append(file_row(r))
        elif fs != states[p]:  # a File row is made of these fields and the path
            delta.update("File", file_row(_record_of(p, fs)), file_row(r))


def _write(run: Run, prev: Previous, plan: ChangePlan, reason: str,
           fields: worktree.EarlyFields, parsed: int, resolved: _Resolved, diff: _Diff,
           gen: layout.Generation, early: EarlyWrite | None) -> _Written | str:  # fmt: skip
    """Write the delta as generation `gen` (published by the caller), unless rows were lost."""
    t = time.perf_counter()
    delta, st = diff.result.delta, diff.result.state
    if early is not None:  # its statements run while the Meta's tree fields are awaited
        early.send(delta)
    incomplete = run.incomplete_files()
    stats = run_stats(run.records, st.totals, parsed)
    run.phase("write", t)
    handed: list[tuple[dict, PendingWrite]] = []  # the Meta, once the writer has it

    def hand_over(wait: bool = False) -> None:
        # the Meta goes to the writer (which commits it with the delta) once the tree fields
        # are there; until then the side files that need no Meta are written, a step at a time
        # (the fields' child shares the other core with the writer: at load it was often
        # late, and the run sat idle), then the rest of them beside the writer's commit
        if handed or not (wait or fields.ready()):
            return
        t = time.perf_counter()
        meta = generation_meta(run.repo, run.digest, run.comps, incomplete, stats,
                               "incremental", run.config, run.records, run.scanned_at,
                               fields=fields.result())  # fmt: skip
        if early is not None:
            handed.append((meta, early.commit(delta, meta)))
        else:
            handed.append((meta, start_delta(run.idx, prev.gen, gen, delta, meta,
                                             run.options.buffer_pool)))  # fmt: skip
        run.phase("write", t, add=True)

    try:
        hand_over()
        run.save_side_files(gen, st, diff.flags, diff.kinds, diff.unresolved, diff.rank,
                            between=hand_over)  # fmt: skip
        hand_over(wait=True)
        meta, pending = handed[0]
        run.save_files_meta(gen, meta)
        layout.sync_ahead(gen)  # the disk writes the side files back while the writer commits
        t = time.perf_counter()
        written = pending.result()
        run.phase("write", t, add=True)
    finally:
        for _, p in handed:
            p.cancel()
    run.forks["delta writer"] = written.commit_path
    lost = count_mismatches(written.rows, expected_counts(stats))
    if lost:  # never published: the full build writes the graph anew
        return f"the delta lost database rows ({', '.join(lost)})"
    n_resolved = 0 if resolved.cut_off else len(resolved.out)
    return _Written(written, delta, pending.meta, lambda: run.report(
        "incremental", gen.number, stats, incomplete, reason, n_resolved, pending.meta, plan,
        {**delta.counts(), **written.counts(), "cut_off": int(resolved.cut_off)}))  # fmt: skip


class _Written(Compared):
    """A generation written whole, to be published (`report()` once it is)."""

    write: DeltaWrite
    delta: GraphDelta  # what made the generation from the live one, and its Meta
    meta: dict
    report: Callable[[], AnalyzeReport]
    __slots__ = ("write", "delta", "meta", "report")

    def __init__(
        self, write: DeltaWrite, delta: GraphDelta, meta: dict, report: Callable[[], AnalyzeReport]
    ) -> None:
        self.write = write
        self.delta = delta
        self.meta = meta
        self.report = report


def _record_of(path: str, fs: FileState) -> FileRecord:
    return FileRecord(path, fs.language, fs.size, fs.content_hash, fs.status, fs.detail,
                      fs.lines, fs.is_test, fs.mtime_ns)  # fmt: skip
