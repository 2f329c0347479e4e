"""`graph analyze`: bring the index up to date, by a delta when it can and in full when it must.

Paths, chosen per run and reported as `mode` (with `reason`):
- `unchanged`: no file's content changed and HEAD did not move: nothing is
  parsed and nothing is written.
- `incremental`: re-extract the changed files, re-resolve the files the change
  plan names (indexer/plan.py says why that set is sufficient), and apply the
  difference to a copy of the live database as a new generation.
- `full`: no usable previous index, another runner identity, changed project
  config files, `--force`, or a change touching (or re-resolving) more than a
  third of the files.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import hashlib
import importlib
import marshal
import os
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from codeimpact.graph import csr, layout, manifest, spare
from codeimpact.graph.arrow import malloc_pool
from codeimpact.graph.errors import BadInput
from codeimpact.graph.schema import SCHEMA_VERSION
from codeimpact.graph.sidecar import read_unresolved, write_unresolved
from codeimpact.graph.storage_errors import storage_error
from codeimpact.graph.store import count_mismatches
from codeimpact.indexer import worktree
from codeimpact.indexer.config import IndexConfig, RunOptions
from codeimpact.indexer.delta_write import salvager, write_delta
from codeimpact.indexer.discover import SourceFile, discover
from codeimpact.indexer.extraction import PARALLEL_MIN_BYTES, facts_for, facts_of_blob  # noqa: F401
from codeimpact.indexer.facts_cache import FactsCache
from codeimpact.indexer.forked_job import ForkedJob
from codeimpact.indexer.gitinfo import head_commit
from codeimpact.indexer.identity import runner_identity
from codeimpact.indexer.incremental import compute_delta, node_arrays, node_ranks
from codeimpact.indexer.lang import LANGUAGES, content_language, same_spec
from codeimpact.indexer.lang.api import FileFacts, Prior
from codeimpact.indexer.lazy_facts import LazyFacts
from codeimpact.indexer.plan import (
    ChangePlan,
    affected_files,
    flow_binders,
    lookup_keys_blob,
    plan_changes,
    reachers_of,
    touched_names,
    used_names,
)
from codeimpact.indexer.reading import read_source
from codeimpact.indexer.report import (  # noqa: F401 (AnalyzeReport, Progress: read from here too)
    AnalyzeReport,
    FileRecord,
    Progress,
    incomplete_record,
)
from codeimpact.indexer.resolution import (
    _resolve_encoded,
    changed_modules,
    hierarchy_changes,
    make_projects,
    module_names,
    resolve_paths,
    summaries_of,
)
from codeimpact.indexer.resolve_workers import resolve_parallel
from codeimpact.indexer.state import (
    FilesState,
    FileState,
    GraphState,
    load_files_state,
    load_graph_state,
    save_files_state,
    save_graph_state,
)
from codeimpact.indexer.tables import (
    expected_counts,
    file_row,
    file_table,
    write_full_generation,
    write_snapshot_arrays,
)

if TYPE_CHECKING:
    from codeimpact.indexer import full_graph


# Below this many files a full build resolves in this process: forking costs more.
PARALLEL_RESOLVE_MIN = 200
# A change to more than this share of the files is cheaper as a full rebuild.
FULL_REBUILD_SHARE = 1 / 3
# Re-resolving more than this many files (and more than that share of them) is cheaper as a
# full build from the cached facts: on Django, 2,000 files by delta took 7 s, a full build 5.5 s.
# Below it either path is quick, and small repositories keep the delta (and its tests).
WIDE_RESOLVE_MIN = 256
# A file modified this close to the last scan may have changed within one mtime tick.
RACY_NS = 2_000_000_000


def check_repo(path: str | os.PathLike) -> Path:
    repo = Path(path)
    if not repo.exists():
        raise BadInput(f"no such directory: {repo}")
    if not repo.is_dir():
        raise BadInput(f"not a directory: {repo}")
    return repo.resolve()


def resident_mb() -> int:
    """This process's resident memory now (Linux /proc; 0 elsewhere)."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // (1 << 20)
    except (OSError, ValueError, IndexError):
        return 0


def _room_for_two(options: RunOptions) -> bool:
    """Whether twice this process's resident memory fits the budget: a forked child, or
    objects kept alive past their last use, may come to hold as much again."""
    return 2 * resident_mb() <= options.memory_budget_mb


def _release_when(job: ForkedJob, held: list) -> threading.Thread:
    """A started thread that empties `held` (the last references to what it holds) once
    `job`'s child has exited. Before, freeing would write to pages the child shares, and
    each would be copied; after, the thread frees while Kùzu's write, which runs without
    the GIL on one core, leaves it the other."""

    def run() -> None:
        job.exited()
        held.clear()

    thread = threading.Thread(target=run, name="codeimpact-release", daemon=True)
    thread.start()
    return thread


def resolve_workers(options: RunOptions, n_files: int, resident: int) -> int:
    """Processes to resolve a full build in: one per core (or `--workers`), fewer when
    (1 + workers) x `resident` MB would pass the memory budget (a forked worker may copy
    every page it reads), 1 (this process) for a small build."""
    workers = options.processes()
    if n_files < PARALLEL_RESOLVE_MIN:
        return 1
    while workers > 1 and (1 + workers) * resident > options.memory_budget_mb:
        workers -= 1
    return workers


def rss_mb() -> int:
    """This process's peak resident memory so far (Linux /proc; 0 elsewhere)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) // 1024
    except OSError:
        pass
    return 0


@contextlib.contextmanager
def gc_paused():
    """The run allocates millions of small acyclic tuples; the cyclic GC only costs time here."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


# ---------------------------------------------------------------------- reading
def scan(
    repo: Path,
    files: list[SourceFile],
    config: IndexConfig,
    previous: dict[str, FileState] | None,
    scanned_at_ns: int,
) -> tuple[list[FileRecord], dict[str, bytes]]:
    """Stat, read and hash the files; a file whose size and mtime match the previous run (and
    was not modified within a tick of it) is taken as unchanged without reading it.
    Returns the records and the bytes of the files that were read and can be parsed."""
    root = str(repo)
    records: list[FileRecord] = []
    data: dict[str, bytes] = {}
    for sf in files:
        full = os.path.join(root, sf.path)
        try:
            st = os.stat(full)
            mtime = st.st_mtime_ns
        except OSError:
            mtime = 0
        old = previous.get(sf.path) if previous else None
        if (
            old is not None
            and same_spec(old.language, sf.language)
            and old.size == sf.size
            and old.mtime_ns == mtime
            and mtime < scanned_at_ns - RACY_NS
        ):
            records.append(
                FileRecord(
                    sf.path,
                    old.language,
                    old.size,
                    old.content_hash,
                    old.status,
                    old.detail,
                    old.lines,
                    old.is_test,
                    mtime,
                )  # fmt: skip
            )
            continue
        rr = read_source(root, sf.path, config.max_file_size)
        lang = content_language(sf.language, rr.data)  # a `.h` holding C++ is cpp
        rec = FileRecord(sf.path, lang, rr.size, rr.content_hash, rr.status, rr.detail)
        if old is not None and rr.status == "ok" and old.content_hash == rr.content_hash:
            # same bytes, same facts: the status extraction gave them (ok or partial) stands
            if old.status in ("ok", "partial"):
                rec.status, rec.detail = old.status, old.detail
        rec.mtime_ns = mtime
        rec.is_test = LANGUAGES[sf.language].is_test_path(sf.path)
        if rr.data is not None:
            rec.lines = rr.data.count(b"\n") + (0 if rr.data.endswith(b"\n") or not rr.data else 1)
            data[sf.path] = rr.data
        records.append(rec)
    return records, data


def _configs_digest(configs: dict[str, str]) -> str:
    h = hashlib.sha256()
    for path in sorted(configs):
        h.update(path.encode() + b"\0" + configs[path].encode() + b"\0")
    return h.hexdigest()


def _stats(records, totals: dict, parsed: int) -> dict:
    return {
        "files": len(records),
        "files_by_status": dict(Counter(r.status for r in records)),
        "symbols": totals["symbols"],
        "edges": dict(totals["edges"]),
        "calls": dict(totals["calls"]),
        "parsed": parsed,
    }


def _meta(repo: Path, digest: str, comps: dict, incomplete: list, stats: dict, mode: str,
          config: IndexConfig, records: list[FileRecord], scanned_at_ns: int,
          probe: worktree.StatusProbe | None = None) -> dict:  # fmt: skip
    """What Meta records about this generation (read by `graph status`); `probe`: a
    `git status` started once the files were read."""
    return {
        "schema_version": SCHEMA_VERSION,
        "identity_digest": digest,
        "identity": comps,
        "indexed_commit": head_commit(repo),
        "indexed_at": time.time(),
        "incomplete": incomplete,
        "stats": stats,
        "mode": mode,
        # dirty digest + set: what freshness compares the working tree against
        **worktree.index_fields(
            repo,
            config,
            {r.path: (r.content_hash, r.size) for r in records},
            {
                r.path: (r.size, r.mtime_ns)
                for r in records
                if 0 < r.mtime_ns < scanned_at_ns - RACY_NS
            },  # fmt: skip
            probe,
            scanned_at_ns=scanned_at_ns,
        ),
    }


@dataclass
class _Previous:
    gen: layout.Generation
    files: FilesState


def _previous(idx: Path, digest: str, configs_digest: str) -> tuple[_Previous | None, str]:
    """The live generation to build on, or why there is none; a damaged file (by the
    generation's manifest) has the run rebuild in full from the undamaged facts."""
    try:
        gen = layout.read_current(idx)
        check = manifest.verify(gen.path, manifest.load(gen.path, gen.manifest, gen.number))
    except manifest.Damaged as e:
        return None, manifest.reasons(e.damage)[0]
    except Exception:  # no index or an unreadable one: rebuild
        return None, "no usable index"
    if check.damage:
        return None, "; ".join(manifest.reasons(check.damage)[:3])
    manifest.write_stamp(gen.path, check.verified)  # what was hashed again is whole
    st = load_files_state(gen.path)
    if st is None:
        return None, "no incremental state"
    if st.identity != digest:
        return None, "runner identity changed"
    if st.configs_digest != configs_digest:
        return None, "project config files changed"
    return _Previous(gen, st), ""


def analyze(
    path: str | os.PathLike,
    config: IndexConfig | None = None,
    options: RunOptions | None = None,
    progress: Progress | None = None,
) -> AnalyzeReport:
    notes: list[str] = []  # what the user should know beside the result (a lock taken over)
    try:
        report = _analyze(path, config, options, progress, notes)
    except (OSError, RuntimeError) as e:
        # a full disk, a path that may not be written, a read-only file system: said as
        # such (the failed generation is already gone, the previous one still live)
        storage = storage_error(e, layout.index_dir(Path(path).resolve()))
        if storage is None:
            raise
        raise storage from e
    report.notes = notes
    return report


def _analyze(
    path: str | os.PathLike,
    config: IndexConfig | None,
    options: RunOptions | None,
    progress: Progress | None,
    notes: list[str],
) -> AnalyzeReport:
    config = config or IndexConfig()
    options = options or RunOptions()
    t0 = time.perf_counter()
    repo = check_repo(path)
    idx = layout.ensure_index_dir(repo)
    with (
        gc_paused(),
        layout.writer_lock(idx, options.lock_wait, notes.append),
        contextlib.ExitStack() as stack,
    ):
        digest, comps = runner_identity(config)
        cache = stack.enter_context(contextlib.closing(FactsCache(idx, digest)))
        if options.force:
            cache.clear()
        timings: dict[str, float] = {}
        t = time.perf_counter()
        configs: dict[str, str] = {}
        # before discover lists the files: the tree signature trusts a folder's mtime only
        # when it is older than that (a file added while the run lists and reads is not indexed)
        scanned_at = time.time_ns()
        files = discover(repo, config, configs)
        configs_digest = _configs_digest(configs)
        prev, reason = (None, "forced") if options.force else _previous(idx, digest, configs_digest)
        records, data = scan(repo, files, config, prev.files.files if prev else None, scanned_at)
        timings["scan"] = time.perf_counter() - t
        run = _Run(repo, idx, config, options, progress, digest, comps, cache, configs,
                   configs_digest, records, data, timings, t0, scanned_at)  # fmt: skip
        if prev is not None:
            old_hashes = {p: f.content_hash for p, f in prev.files.files.items()}
            plan = plan_changes(old_hashes, {r.path: r.content_hash for r in records})
            if plan.is_empty() and prev.files.commit == head_commit(repo):
                return run.unchanged(prev)
            if plan.size() > len(records) * FULL_REBUILD_SHARE:
                reason = f"{plan.size()} of {len(records)} files changed"
            else:
                outcome = run.incremental(prev, plan, "HEAD moved" if plan.is_empty() else "")
                if isinstance(outcome, AnalyzeReport):
                    return outcome
                reason = outcome
        cache.prune_other_identities()
        return run.full(reason)


@dataclass
class _Run:
    repo: Path
    idx: Path
    config: IndexConfig
    options: RunOptions
    progress: Progress | None
    digest: str
    comps: dict
    cache: FactsCache
    configs: dict[str, str]
    configs_digest: str
    records: list[FileRecord]
    data: dict[str, bytes]
    timings: dict[str, float]
    t0: float
    scanned_at: int  # time.time_ns() when the scan began
    memory_mb: dict[str, int] = field(default_factory=dict)  # resident memory after each phase

    def _report(self, mode, gen_no, stats, incomplete, reason, n_resolved,
                plan: ChangePlan | None = None, delta=None) -> AnalyzeReport:  # fmt: skip
        changes = {}
        if plan is not None:
            changes = {"added": len(plan.added), "modified": len(plan.modified),
                       "deleted": len(plan.deleted), "renamed": len(plan.renamed)}  # fmt: skip
        return AnalyzeReport(
            repo=str(self.repo),
            mode=mode,
            generation=gen_no,
            files=len(self.records),
            files_by_status=stats["files_by_status"],
            symbols=stats["symbols"],
            edges=stats["edges"],
            calls=stats["calls"],
            incomplete=incomplete,
            seconds=time.perf_counter() - self.t0,
            timings=self.timings,
            memory_mb=self.memory_mb,
            reason=reason,
            changes=changes,
            parsed=stats["parsed"],
            resolved=n_resolved,
            delta=delta or {},
        )

    def _phase(self, name: str, started: float) -> None:
        self.timings[name] = time.perf_counter() - started
        self.memory_mb[name] = rss_mb()

    def _incomplete(self) -> list[dict]:
        return [r for r in (incomplete_record(rec) for rec in self.records) if r]

    def _files_state(self, meta: dict) -> FilesState:
        return FilesState(
            self.digest,
            self.configs_digest,
            meta["indexed_commit"],
            meta["stats"],
            {
                r.path: FileState(
                    r.language,
                    r.size,
                    r.mtime_ns,
                    r.content_hash,
                    r.status,
                    r.detail,
                    r.lines,
                    r.is_test,
                )  # fmt: skip
                for r in self.records
            },
        )

    def _facts_for(self, records: list[FileRecord],
                   meanwhile: Callable[[], None] | None = None) -> tuple[dict[str, FileFacts], int]:  # fmt: skip
        return facts_for(self.repo, self.config.max_file_size, records, self.data, self.cache,
                         self.options, self.progress, self.config.parse_timeout_ms / 1000,
                         meanwhile)  # fmt: skip

    def _save_state(self, gen, st: GraphState, flags, kinds, unresolved, meta, rank) -> None:
        t = time.perf_counter()
        self.cache.flush({r.content_hash for r in self.records})
        self._save_sidecars(gen, st, flags, kinds, unresolved, meta, rank)
        self._phase("sidecars", t)

    def _save_sidecars(self, gen, st: GraphState, flags, kinds, unresolved, meta,
                       rank=None) -> None:  # fmt: skip
        """Every file of the generation but the database and the facts cache."""
        write_snapshot_arrays(gen.path, gen.number, len(st.ids), st.codes, st.confs, flags,
                              kinds, rank)  # fmt: skip
        write_unresolved(gen.path, unresolved)
        save_graph_state(gen.path, st, gen.number)
        save_files_state(gen.path, self._files_state(meta))

    # -------------------------------------------------------------- full
    def full(self, reason: str) -> AnalyzeReport:
        # git runs while the files are parsed (they were read by the scan): not after the write
        probe = worktree.StatusProbe(self.repo)
        try:
            return self._full(reason, probe)
        finally:
            probe.close()

    def _full(self, reason: str, probe: worktree.StatusProbe) -> AnalyzeReport:
        with contextlib.ExitStack() as arrow_scope:

            @functools.cache  # once
            def start_arrow() -> None:
                # the full build's graph needs pyarrow (incremental runs go without its
                # import time): imported, set up and started while the workers extract
                importlib.import_module("codeimpact.indexer.full_graph").warm_up()
                arrow_scope.enter_context(malloc_pool())

            return self._full_graph(reason, probe, start_arrow)

    def _full_graph(self, reason: str, probe: worktree.StatusProbe,
                    start_arrow: Callable[[], None]) -> AnalyzeReport:  # fmt: skip
        t = time.perf_counter()
        facts, parsed = self._facts_for(self.records, start_arrow)
        start_arrow()  # when every file's facts came from the cache
        self.data.clear()  # every source file's bytes (shared with the caller): last used here
        self._phase("extract", t)
        from codeimpact.indexer import full_graph

        t = time.perf_counter()
        graph = full_graph.FullGraph(self.idx)
        try:
            modules, summaries, used, resolvers = self._resolve_all(facts, graph)
            # Millions of small objects: freeing them took 0.09 s on Django and gives the OS
            # no memory back. When memory allows they are freed by a thread during Kùzu's
            # write, which leaves the GIL and one core to it (see `_release_when`).
            held = [facts, resolvers]
            del facts, resolvers
            if not _room_for_two(self.options):
                held.clear()
            content = graph.finish()
        except BaseException:
            graph.abandon()
            raise
        del graph
        self._phase("resolve", t)
        t = time.perf_counter()
        incomplete = self._incomplete()
        gen = layout.next_generation(self.idx)
        try:
            st = full_graph.full_state(content, used, modules, summaries, gen)
            stats = _stats(self.records, st.totals, parsed)
            meta = _meta(self.repo, self.digest, self.comps, incomplete, stats, "full",
                         self.config, self.records, self.scanned_at, probe)  # fmt: skip
            flags, kinds = full_graph.node_arrays(content)
            n_resolved = content.n_resolved
            # the sidecars are written by a forked child while this process writes Kùzu, when
            # both fit the memory budget (pages either writes get copied: a large tree's
            # build writes them in turn)
            sidecars = ForkedJob(
                lambda: self._save_sidecars(
                    gen,
                    st,
                    flags,
                    kinds,
                    full_graph.unresolved_sites(gen.path, st.resolved_refs),
                    meta,
                ),
                fork=self.options.processes() > 1 and _room_for_two(self.options),
                name="the sidecar writer",
            )
            release = _release_when(sidecars, held)
            del held
            try:
                tables = full_graph.symbol_tables(content, file_table(self.records))
                rows = write_full_generation(gen, tables, meta, self.options.buffer_pool)
                del content, tables
                self._phase("write", t)
                t = time.perf_counter()
                self.cache.flush({r.content_hash for r in self.records})
                sidecars.wait()
                self._phase("sidecars", t)
            finally:
                sidecars.cancel()
                release.join()
        except BaseException:
            layout.discard(gen)
            raise
        layout.publish(self.idx, gen, rows, self.cache.sealed_files())
        spare.seed(self.idx, gen)  # the first edit writes there instead of copying
        return self._report("full", gen.number, stats, incomplete, reason, n_resolved)

    def _resolve_all(self, facts: dict[str, FileFacts], graph: full_graph.FullGraph) -> tuple:
        """Resolve every file into `graph`; returns the module names, the resolvers'
        summaries and each file's lookup keys."""
        lang_of = {r.path: r.language for r in self.records}
        projects = make_projects(LazyFacts(facts, facts.__getitem__), lang_of, self.configs)
        used: dict[str, bytes] = {}
        order = sorted(facts)
        workers = resolve_workers(self.options, len(order), resident_mb())

        def tick(i: int) -> None:
            if self.progress and (i % 64 == 0 or i == len(order)):
                self.progress("resolve", i, len(order))

        if workers > 1:
            one = functools.partial(_resolve_encoded, projects, lang_of, facts)
            for i, (path, blob, keys) in enumerate(resolve_parallel(order, one, workers), 1):
                graph.add_blob(path, blob)
                used[path] = keys
                tick(i)
            del one
        else:
            for i, path in enumerate(order, 1):
                project = projects[lang_of[path]]
                graph.add(project.resolve_file(path))
                used[path] = lookup_keys_blob(facts[path])
                release = getattr(project, "release", None)
                if release is not None:
                    release(path)
                tick(i)
        # the collector is paused for the run: the resolvers' indexes (every file's facts
        # among them) must be free of reference cycles to be freed when the caller drops them
        return module_names(projects), summaries_of(projects), used, projects

    # -------------------------------------------------------------- no change
    def unchanged(self, prev: _Previous) -> AnalyzeReport:
        """Nothing parsed, nothing written: the live generation already says all of it."""
        stats = prev.files.stats
        return AnalyzeReport(
            repo=str(self.repo),
            mode="unchanged",
            generation=prev.gen.number,
            files=len(self.records),
            files_by_status=stats.get("files_by_status", {}),
            symbols=stats.get("symbols", 0),
            edges=stats.get("edges", {}),
            calls=stats.get("calls", {}),
            incomplete=self._incomplete(),
            seconds=time.perf_counter() - self.t0,
            timings=self.timings,
            reason="no file changed",
        )

    # -------------------------------------------------------------- delta
    def incremental(self, prev: _Previous, plan: ChangePlan, reason: str) -> AnalyzeReport | str:
        """The delta run, or why a full build must (or had better) be done instead."""
        # git runs beside the run (the files were read by the scan), not in its write phase
        probe = worktree.StatusProbe(self.repo)
        try:
            return self._incremental(prev, plan, reason, probe)
        finally:
            probe.close()

    def _incremental(self, prev: _Previous, plan: ChangePlan, reason: str,
                     probe: worktree.StatusProbe) -> AnalyzeReport | str:  # fmt: skip
        t = time.perf_counter()
        old_state = load_graph_state(prev.gen.path)
        try:
            snap = csr.load_snapshot(prev.gen.path, prev.gen.number)
        except csr.SnapshotMismatch:
            snap = None
        if old_state is None or snap is None:
            return "incremental state unusable"
        self._phase("load_state", t)

        t = time.perf_counter()
        changed = plan.changed
        # the changed files' facts now (extracted, or cached under their content) and before
        now = [r for r in self.records if r.path in changed]
        new_facts, parsed = self._facts_for(now)
        old_facts: dict[str, FileFacts] = {}
        for p in changed:
            fs = prev.files.files.get(p)
            if fs is None or fs.status.startswith("skipped:"):
                continue
            blob = self.cache.get(fs.content_hash)
            if blob is None:
                return "the previous facts of a changed file are not cached"
            with contextlib.suppress(ValueError, EOFError, TypeError, IndexError):
                old_facts[p] = FileFacts.from_bytes(blob)
        by_path = {r.path: r for r in self.records}
        present = [r.path for r in self.records if not r.status.startswith("skipped:")]

        def load(path: str) -> FileFacts:
            if path in new_facts:
                return new_facts[path]
            rec = by_path[path]
            blob = self.cache.get(rec.content_hash)
            return facts_of_blob(rec, blob, self.repo, self.config.max_file_size, self.cache)

        facts = LazyFacts(present, load)
        self._phase("extract", t)

        t = time.perf_counter()
        lang_of = {r.path: r.language for r in self.records}
        old_lang = {p: fs.language for p, fs in prev.files.files.items()}
        # names are planned per resolver group: a Python name never binds in a JS file
        group_of = {p: LANGUAGES[lang].group for p, lang in {**old_lang, **lang_of}.items()}
        members: dict[str, set[str]] = {}
        for p in group_of:
            members.setdefault(group_of[p], set()).add(p)
        new_used: dict[str, bytes] = {}
        used: dict[str, frozenset[str]] = {}
        binders: dict[str, list] = {}
        for p, f in old_facts.items():
            binders.setdefault(group_of[p], []).append(flow_binders(f))
        for p in present:
            keys = None if p in changed else old_state.lookup_keys(p)
            if keys is None:
                f = facts[p]
                new_used[p] = lookup_keys_blob(f)
                keys = (frozenset(used_names(f)), flow_binders(f))
            used[p] = keys[0]
            binders.setdefault(group_of[p], []).append(keys[1])
        touched = {
            g: touched_names(plan.within(members[g]), old_facts, new_facts, binders.get(g, []))
            for g in {group_of[p] for p in changed}
        }

        def affected_by(touched: dict[str, set[str] | None]) -> set[str]:
            out: set[str] = set()
            for g, names in touched.items():
                here = [p for p in present if p in members[g]]
                out |= affected_files(plan.within(members[g]), here,
                                      {p: used[p] for p in here}, names)  # fmt: skip
            return out

        # re-resolve what uses a changed name. Projects summarise only those files again (a
        # class's bases are looked up like its calls); a changed class hierarchy touches more
        # names, whose users are summarised in turn, until no name is added
        affected = affected_by(touched)
        before = {p: marshal.loads(b) for p, b in old_state.summaries.items()}
        while True:
            projects = make_projects(facts, lang_of, self.configs, Prior(before, affected))
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
        modules = module_names(projects)
        changed_langs = {lang_of.get(p) or old_lang.get(p) for p in changed}
        module_changed = changed_modules(modules, old_state.modules, lang_of, present,
                                         changed_langs)  # fmt: skip
        affected |= module_changed
        if len(affected) > max(len(present) * FULL_REBUILD_SHARE, WIDE_RESOLVE_MIN):
            # a delta over most of the graph costs more than writing it anew (facts are cached)
            return f"{len(affected)} of {len(present)} files to re-resolve"
        new_out = resolve_paths(projects, lang_of, affected)
        summaries = summaries_of(projects)
        self._phase("resolve", t)

        t = time.perf_counter()
        removed = {p for p in old_state.files() if p not in facts}
        res = compute_delta(old_state, new_out, removed, new_used, modules, summaries)
        delta = res.delta
        files_now = {r.path: file_row(r) for r in self.records}
        files_before = {p: file_row(_record_of(p, fs)) for p, fs in prev.files.files.items()}
        delta.files_delete = sorted(p for p in files_before if p not in files_now)
        for p, row in sorted(files_now.items()):
            if p not in files_before:
                delta.files_upsert.append(row)
            else:
                delta.update("File", files_before[p], row)
        st = res.state
        flags, kinds = node_arrays(res, len(st.ids), snap.node_flags, snap.node_kind)
        rank = node_ranks(res, snap.node_rank)
        unresolved = read_unresolved(prev.gen.path)
        touched = set(new_out) | removed
        unresolved = {
            name: kept
            for name, sites in unresolved.items()
            if (kept := [s for s in sites if s[0].split("::", 1)[0] not in touched])
        }
        for rf in new_out.values():
            for site in rf.unresolved:
                unresolved.setdefault(site.name, []).append((site.scope, site.line))
        self._phase("diff", t)

        t = time.perf_counter()
        incomplete = self._incomplete()
        stats = _stats(self.records, st.totals, parsed)
        meta = _meta(self.repo, self.digest, self.comps, incomplete, stats, "incremental",
                     self.config, self.records, self.scanned_at, probe)  # fmt: skip
        gen = layout.next_generation(self.idx)
        try:
            written = write_delta(self.idx, prev.gen, gen, delta, meta, self.options.buffer_pool)
            rows = written.rows
            lost = count_mismatches(rows, expected_counts(stats))
            if not lost:
                self._phase("write", t)
                self._save_state(gen, st, flags, kinds, unresolved, meta, rank)
        except BaseException:
            layout.discard(gen)
            raise
        if lost:  # never published: the full build writes the graph anew
            layout.discard(gen)
            return f"the delta lost database rows ({', '.join(lost)})"
        layout.publish(self.idx, gen, rows, self.cache.sealed_files(),
                       salvage=salvager(self.idx, prev.gen))  # fmt: skip
        return self._report("incremental", gen.number, stats, incomplete, reason, len(new_out),
                            plan, {**delta.counts(), **written.counts()})  # fmt: skip


def _record_of(path: str, fs: FileState) -> FileRecord:
    return FileRecord(path, fs.language, fs.size, fs.content_hash, fs.status, fs.detail,
                      fs.lines, fs.is_test, fs.mtime_ns)  # fmt: skip
