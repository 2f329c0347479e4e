"""What the full and the incremental run share: the run's inputs and its bookkeeping
(timings, memory, report, the generation's side files) and the memory rules both follow."""

from __future__ import annotations

import contextlib
import gc
import os
import resource
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from codeimpact.graph import layout
from codeimpact.graph.schema import SCHEMA_VERSION
from codeimpact.graph.sidecar import write_unresolved
from codeimpact.indexer import scanning, worktree
from codeimpact.indexer.config import IndexConfig, RunOptions
from codeimpact.indexer.discover import TrackedListing
from codeimpact.indexer.extraction import EarlyExtraction, facts_for
from codeimpact.indexer.facts_cache import FactsCache, facts_key
from codeimpact.indexer.files_state import FilesState, FileState, save_files_state
from codeimpact.indexer.gitinfo import head_commit
from codeimpact.indexer.lazy_facts import LazyFacts
from codeimpact.indexer.plan import ChangePlan
from codeimpact.indexer.report import AnalyzeReport, FileRecord, Progress, incomplete_record
from codeimpact.native.record import Compared

if TYPE_CHECKING:  # the graph state's module brings numpy: not a no-op's (indexer/files_state.py)
    from codeimpact.indexer.state import GraphState
    from codeimpact.indexer.treesig import TreeSignature

# Below this many files a full build resolves in this process: forking costs more.
PARALLEL_RESOLVE_MIN = 200
# A change to more than this share of the files is cheaper as a full rebuild.
FULL_REBUILD_SHARE = 1 / 3
# What a forked resolution worker comes to hold of its own, as a share of the parent's
# resident memory when it forks: the pages it writes are copied (the reference counts of the
# objects its lookups read, its memo), the rest stays shared. Measured on a 12,332-file
# kernel subset (smaps Private_Dirty): 470 MB per worker by the end against a 900 MB parent
# (0.52); counting a whole copy per worker made that tree resolve in one process.
COW_SHARE = 0.6


def resident_mb() -> int:
    """This process's resident memory now (Linux /proc; 0 elsewhere)."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // (1 << 20)
    except (OSError, ValueError, IndexError):
        return 0


def room_for_two(options: RunOptions) -> bool:
    """Whether twice this process's resident memory fits the budget: a forked child, or
    objects kept alive past their last use, may come to hold as much again."""
    return 2 * resident_mb() <= options.memory_budget_mb


def resolve_workers(options: RunOptions, n_files: int, resident: int) -> int:
    """Processes to resolve a full build in: one per core (or `--workers`), fewer when
    `resident` MB and what each worker copies (COW_SHARE of it) would pass the memory
    budget, 1 (this process) for a small build."""
    workers = options.processes()
    if n_files < PARALLEL_RESOLVE_MIN:
        return 1
    while workers > 1 and resident * (1 + COW_SHARE * workers) > options.memory_budget_mb:
        workers -= 1
    return workers


def process_cpu() -> float:
    """User+sys CPU seconds of this process and of the children it has waited for (the
    extraction and resolution workers, once joined): on a shared machine a phase's wall
    time is mostly waiting for a core, its CPU time is its cost."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


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
    """The run allocates millions of small acyclic tuples; the cyclic GC only costs time here.
    Gives whether the collector ran before (and runs again after)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield was
    finally:
        if was:
            gc.enable()


def languages_of(languages) -> dict[str, int]:
    """File rows per language, as `MATCH (f:File) RETURN f.language, count(*)` counts them
    (files without a language left out)."""
    return dict(sorted(Counter(lang for lang in languages if lang).items()))


def run_stats(records, totals: dict, parsed: int) -> dict:
    return {
        "files": len(records),
        "files_by_status": dict(Counter(r.status for r in records)),
        "symbols": totals["symbols"],
        "edges": dict(totals["edges"]),
        "calls": dict(totals["calls"]),
        "parsed": parsed,
    }


def generation_meta(repo: Path, digest: str, comps: dict, incomplete: list, stats: dict,
                    mode: str, config: IndexConfig, records: list[FileRecord], scanned_at_ns: int,
                    probe: worktree.StatusProbe | None = None,
                    fields: dict | None = None, listed: dict | None = None) -> dict:  # fmt: skip
    """What Meta records about this generation (read by `graph status`); `probe`: a
    `git status` started once the files were read; `fields`: `tree_fields` computed already
    (worktree.EarlyFields); `listed`: the folders discover's walk saw (`Run.listed`)."""
    if fields is None:
        fields = tree_fields(repo, config, records, scanned_at_ns, probe, listed=listed)
    return {
        "schema_version": SCHEMA_VERSION,
        "identity_digest": digest,
        "identity": comps,
        "indexed_commit": indexed_commit(repo, fields),
        "indexed_at": time.time(),
        "incomplete": incomplete,
        "stats": stats,
        "mode": mode,
        # dirty digest + set: what freshness compares the working tree against
        **fields,
    }


def indexed_commit(repo: Path, fields: dict) -> str | None:
    """HEAD's commit for the Meta: the one the run's `git status` reported with the dirty set
    (its `branch.oid`), else asked of git (`git rev-parse`: a process the write phase waited
    for, 3-8 ms of an edit's wall on Django)."""
    wt = fields.get("worktree") or {}
    return (wt.get("git") and wt.get("head")) or head_commit(repo)


def tree_fields(repo: Path, config: IndexConfig, records: list[FileRecord], scanned_at_ns: int,
                probe: worktree.StatusProbe | None = None,
                last: TreeSignature | None | bool = True,
                listed: dict | None = None,
                tracked: TrackedListing | None = None) -> dict:  # fmt: skip
    """The working tree's Meta fields (`worktree.index_fields`) for the files a run read."""
    return worktree.index_fields(
        repo,
        config,
        {r.path: (r.content_hash, r.size) for r in records},
        {
            r.path: (r.size, r.mtime_ns)
            for r in records
            if 0 < r.mtime_ns < scanned_at_ns - scanning.RACY_NS
        },  # fmt: skip
        probe,
        scanned_at_ns=scanned_at_ns,
        last=last,
        listed=listed,
        tracked=tracked,
    )


def _side_files(gen, st: GraphState, flags, kinds, unresolved, rank,
                between: Callable[[], None] = lambda: None) -> None:  # fmt: skip
    """The generation's files that need no Meta: the snapshot arrays, the unresolved sites
    (`unresolved`: or a function that gives them) and the graph state; `between()` after
    each."""
    # here, not at the top: the write's modules (Kùzu, Arrow, numpy) are no part of a
    # no-op run
    from codeimpact.indexer.state import save_graph_state
    from codeimpact.indexer.tables import write_snapshot_arrays

    write_snapshot_arrays(gen.path, gen.number, len(st.ids), st.codes, st.confs, flags, kinds,
                          rank, st.edges_from)  # fmt: skip
    between()
    write_unresolved(gen.path, unresolved() if callable(unresolved) else unresolved)
    between()
    save_graph_state(gen.path, st, gen.number)
    between()


def file_state(r: FileRecord) -> FileState:
    """What the state remembers of a file (all a File row holds but its path)."""
    return FileState(r.language, r.size, r.mtime_ns, r.content_hash, r.status, r.detail,
                     r.lines, r.is_test)  # fmt: skip


class Previous(Compared):
    gen: layout.Generation
    files: FilesState
    __slots__ = ("gen", "files")

    def __init__(self, gen: layout.Generation, files: FilesState) -> None:
        self.gen = gen
        self.files = files


class Run(Compared):
    """One analyze run: its inputs, what it measured so far, and the steps both modes take."""

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
    memory_mb: dict[str, int]  # resident memory after each phase
    cpu_seconds: dict[str, float]  # CPU of each phase
    cpu_mark: float  # process_cpu() when the last phase ended
    # job -> the path it took: "forked", or why not (indexer/fork_guard.py)
    forks: dict[str, str]
    # the untracked files discover's `git ls-files` listed (None: git did not list them)
    untracked: set[str] | None
    # outside git, what discover's walk saw of each folder (discover.Listed; empty in git):
    # a full build's tree signature takes it instead of listing every folder again
    listed: dict
    # what discover's `git ls-files` said git tracks (None: git did not list the files)
    tracked: TrackedListing | None
    # a new index's extraction, started as discover listed the files (taken by `facts_for`)
    early: EarlyExtraction | None
    # the caller's cyclic collector runs once the run ends (`gc_paused`: paused meanwhile)
    collecting: bool
    _file_states: dict[str, FileState] | None
    __slots__ = (
        "repo",
        "idx",
        "config",
        "options",
        "progress",
        "digest",
        "comps",
        "cache",
        "configs",
        "configs_digest",
        "records",
        "data",
        "timings",
        "t0",
        "scanned_at",
        "memory_mb",
        "cpu_seconds",
        "cpu_mark",
        "forks",
        "untracked",
        "listed",
        "tracked",
        "early",
        "collecting",
        "_file_states",
    )
    _unshown = ("_file_states",)

    def __init__(
        self,
        repo: Path,
        idx: Path,
        config: IndexConfig,
        options: RunOptions,
        progress: Progress | None,
        digest: str,
        comps: dict,
        cache: FactsCache,
        configs: dict[str, str],
        configs_digest: str,
        records: list[FileRecord],
        data: dict[str, bytes],
        timings: dict[str, float],
        t0: float,
        scanned_at: int,
        memory_mb: dict[str, int] | None = None,
        cpu_seconds: dict[str, float] | None = None,
        cpu_mark: float = 0.0,
        forks: dict[str, str] | None = None,
        untracked: set[str] | None = None,
        listed: dict | None = None,
        tracked: TrackedListing | None = None,
        early: EarlyExtraction | None = None,
        collecting: bool = False,
        _file_states: dict[str, FileState] | None = None,
    ) -> None:
        self.repo = repo
        self.idx = idx
        self.config = config
        self.options = options
        self.progress = progress
        self.digest = digest
        self.comps = comps
        self.cache = cache
        self.configs = configs
        self.configs_digest = configs_digest
        self.records = records
        self.data = data
        self.timings = timings
        self.t0 = t0
        self.scanned_at = scanned_at
        self.memory_mb = {} if memory_mb is None else memory_mb
        self.cpu_seconds = {} if cpu_seconds is None else cpu_seconds
        self.cpu_mark = cpu_mark
        self.forks = {} if forks is None else forks
        self.untracked = untracked
        self.listed = {} if listed is None else listed
        self.tracked = tracked
        self.early = early
        self.collecting = collecting
        self._file_states = _file_states

    def report(self, mode, gen_no, stats, incomplete, reason, n_resolved, meta: dict,
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
            cpu_seconds=self.cpu_seconds,
            reason=reason,
            changes=changes,
            parsed=stats["parsed"],
            resolved=n_resolved,
            delta=delta or {},
            forks=self.forks,
            indexed_commit=meta["indexed_commit"],
            indexed_at=meta["indexed_at"],
            languages=languages_of(r.language for r in self.records),
        )

    def phase(self, name: str, started: float, *, add: bool = False) -> None:
        """Record a phase's wall, CPU and memory; `add`: a second part of the same phase."""
        wall = time.perf_counter() - started
        now = process_cpu()
        cpu = now - self.cpu_mark
        if add:
            wall += self.timings.get(name, 0.0)
            cpu += self.cpu_seconds.get(name, 0.0)
        self.timings[name] = wall
        self.memory_mb[name] = rss_mb()
        self.cpu_seconds[name] = round(cpu, 3)
        self.cpu_mark = now

    def incomplete_files(self) -> list[dict]:
        return [r for r in (incomplete_record(rec) for rec in self.records) if r]

    def file_states(self) -> dict[str, FileState]:
        """path -> what the state remembers of each file read, made once (an edit's File rows
        are those that differ from the live generation's: 2,930 made twice on Django)."""
        if self._file_states is None:
            self._file_states = {r.path: file_state(r) for r in self.records}
        return self._file_states

    def files_state(self, meta: dict) -> FilesState:
        return FilesState(
            self.digest,
            self.configs_digest,
            meta["indexed_commit"],
            meta["stats"],
            self.file_states(),
        )

    def facts_for(self, records: list[FileRecord], meanwhile: Callable[[], None] | None = None,
                  feed: Callable[[str, bytes], None] | None = None) -> tuple[LazyFacts, int]:  # fmt: skip
        early, self.early = self.early, None
        return facts_for(self.repo, self.config.max_file_size, records, self.data, self.cache,
                         self.options, self.progress, self.config.parse_timeout_ms / 1000,
                         meanwhile, early, feed)  # fmt: skip

    def flush_facts(self, gen) -> None:
        """The facts cache written into generation `gen`: the facts of every file read."""
        self.cache.flush({facts_key(r.language, r.content_hash) for r in self.records}, gen.path)

    def save_side_files(self, gen, st: GraphState, flags, kinds, unresolved, rank,
                        between: Callable[[], None] = lambda: None) -> None:  # fmt: skip
        """An incremental generation's files that need no Meta (all but the files state, see
        `save_files_meta`), the facts cache flushed first; `unresolved` may be a function
        (called when they are written); `between()` is called after each step (the run hands
        the writer its Meta there, once it has it)."""
        t = time.perf_counter()
        self.flush_facts(gen)
        between()
        _side_files(gen, st, flags, kinds, unresolved, rank, between)
        self.phase("sidecars", t, add=True)

    def save_files_meta(self, gen, meta) -> None:
        """The files state of an incremental generation, which holds the Meta's commit."""
        t = time.perf_counter()
        save_files_state(gen.path, self.files_state(meta))
        self.phase("sidecars", t, add=True)

    def save_sidecars(self, gen, st: GraphState, flags, kinds, unresolved, meta,
                      rank=None) -> None:  # fmt: skip
        """Every file of the generation but the database and the facts cache."""
        _side_files(gen, st, flags, kinds, unresolved, rank)
        save_files_state(gen.path, self.files_state(meta))

    def unchanged(self, prev: Previous) -> AnalyzeReport:
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
            incomplete=self.incomplete_files(),
            seconds=time.perf_counter() - self.t0,
            timings=self.timings,
            reason="no file changed",
            indexed_commit=prev.files.commit,
            languages=languages_of(f.language for f in prev.files.files.values()),
        )
