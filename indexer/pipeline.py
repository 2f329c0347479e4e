"""`graph analyze`: bring the index up to date, by a delta when it can and in full when it must.

The pipeline: discover the files (indexer/discover.py), scan them (indexer/scanning.py:
stat, read, hash), choose the mode, then the mode's run extracts, resolves and writes
(indexer/full_run.py, indexer/incremental_run.py; what they share is indexer/run.py).

Modes, chosen per run and reported as `mode` (with `reason`):
- `unchanged`: no file's content changed and HEAD did not move: nothing is
  parsed and nothing is written.
- `incremental`: re-extract the changed files, re-resolve the files the change
  plan names (indexer/plan.py says why that set is sufficient), and write the
  difference as a new generation.
- `full`: no usable previous index, another runner identity, changed project
  config files, `--force`, or a change touching (or re-resolving) more than a
  third of the files.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

from codeimpact.graph import layout, manifest
from codeimpact.graph.errors import CorruptIndex
from codeimpact.graph.layout import check_repo  # noqa: F401 (imported from here)
from codeimpact.graph.storage_errors import storage_error
from codeimpact.indexer.config import IndexConfig, RunOptions
from codeimpact.indexer.discover import Listed, Untracked, discover
from codeimpact.indexer.extraction import EarlyExtraction
from codeimpact.indexer.facts_cache import FactsCache
from codeimpact.indexer.files_state import load_files_state
from codeimpact.indexer.gitinfo import head_commit
from codeimpact.indexer.identity import IdentitySoon, runner_identity
from codeimpact.indexer.plan import plan_changes
from codeimpact.indexer.report import AnalyzeReport, Progress
from codeimpact.indexer.run import FULL_REBUILD_SHARE, Previous, Run, gc_paused, process_cpu
from codeimpact.indexer.scanning import scan, unread_records
from codeimpact.native.sha import sha256


def _configs_digest(configs: dict[str, str]) -> str:
    h = sha256()
    for path in sorted(configs):
        h.update(path.encode() + b"\0" + configs[path].encode() + b"\0")
    return h.hexdigest()


def _previous(idx: Path, digest: str, configs_digest: str,
              live: tuple[Previous | None, str] | None = None) -> tuple[Previous | None, str]:  # fmt: skip
    """The live generation to build on, or why there is none; a damaged file (by the
    generation's manifest) has the run rebuild in full from the undamaged facts. `live`:
    `_live`'s answer, when it was had while git listed the files."""
    prev, reason = _live(idx, digest) if live is None else live
    if prev is not None and prev.files.configs_digest != configs_digest:
        return None, "project config files changed"
    return prev, reason


def _live(idx: Path, digest: str) -> tuple[Previous | None, str]:
    """`_previous` but for the project config files (read by discover)."""
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
    return Previous(gen, st), ""


class _WhileListing:
    """What a run on a live generation does while git lists the files (Django: ~40 ms of
    git on another core, a wait for this process): `_live`, and the `os.lstat` of that
    generation's files, which discover takes instead of its own (the same calls, earlier:
    after `scanned_at` still); at the first whose size or mtime moved (an edit, most likely:
    the scan says), the import of the incremental run's modules. A file added is not looked
    for (its run imports them after the scan, as before)."""

    def __init__(self, repo: Path, idx: Path, digest: str, buffer_pool: int):
        self.repo, self.idx, self.digest = str(repo), idx, digest
        self.buffer_pool = buffer_pool
        self.live: tuple[Previous | None, str] | None = None
        self.writer = None  # incremental_run.Writer, started at the first moved file

    def take_writer(self, prev: Previous):
        """The writer started for `prev`'s generation (None: none, or another one: dropped);
        the caller's from now on."""
        writer, self.writer = self.writer, None
        if writer is not None and writer.live.path != prev.gen.path:
            writer.drop()
            return None
        return writer

    def drop_writer(self) -> None:
        """Stop the writer started meanwhile when the run writes no delta."""
        writer, self.writer = self.writer, None
        if writer is not None:
            writer.drop()

    def __call__(self) -> dict[str, os.stat_result]:
        self.live = _live(self.idx, self.digest)
        prev = self.live[0]
        if prev is None:
            return {}
        out: dict[str, os.stat_result] = {}
        lstat, root, moved = os.lstat, os.path.join(self.repo, ""), False
        for path, fs in prev.files.files.items():
            try:
                st = out[path] = lstat(root + path)
            except OSError:  # gone (discover says): a change too
                st = None
            if moved or (st and st.st_mtime_ns == fs.mtime_ns and st.st_size == fs.size):
                continue
            moved = True
            from codeimpact.indexer import incremental_run

            # its database writer too: the other core is idle while git lists the files, and
            # the writer's start (Kùzu imported, the spare taken and checked, opened: ~0.1 s of
            # CPU) no longer shares it with the tree fields' child and this process later
            self.writer = incremental_run.start_writer(self.idx, prev.gen, self.buffer_pool)
        return out


def analyze(
    path: str | os.PathLike,
    config: IndexConfig | None = None,
    options: RunOptions | None = None,
    progress: Progress | None = None,
) -> AnalyzeReport:
    notes: list[str] = []  # what the user should know beside the result (a lock taken over)
    try:
        report = _analyze(path, config, options, progress, notes)
    except (OSError, RuntimeError, CorruptIndex) as e:
        # a full disk, a path that may not be written, a read-only file system: said as
        # such (the failed generation is already gone, the previous one still live). A new
        # database Kùzu cannot write is a CorruptIndex over Kùzu's error (store._open)
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
    repo = layout.check_repo(path)
    idx = layout.ensure_index_dir(repo)
    with (
        gc_paused() as collecting,
        layout.writer_lock(idx, options.lock_wait, notes.append),
        contextlib.ExitStack() as stack,
    ):
        # a new index (or a forced one) builds on no live generation: its runner identity is
        # first needed once the files are scanned, and may be computed beside the listing and
        # the scan meanwhile (identity.IdentitySoon)
        fresh = options.force or not (idx / layout.CURRENT).exists()
        soon = IdentitySoon(config, idx, fork=options.processes() > 1) if fresh else None
        if soon is not None:
            stack.callback(soon.cancel)
        else:
            digest, comps = runner_identity(config, idx)
        timings: dict[str, float] = {}
        t, cpu = time.perf_counter(), process_cpu()
        configs: dict[str, str] = {}
        # before discover lists the files: the tree signature trusts a folder's mtime only
        # when it is older than that (a file added while the run lists and reads is not indexed)
        scanned_at = time.time_ns()
        untracked = Untracked()
        # outside git, a full build's tree signature takes each folder as the walk listed
        # it; the walk's stat of each folder is not paid by a run with a live generation
        listed: Listed | None = {} if fresh else None
        early = None if fresh else _WhileListing(repo, idx, digest, options.buffer_pool)
        if early is not None:  # a writer it started and no delta run took: stopped
            stack.callback(early.drop_writer)
        # a new index is built in full: its files are read by the extraction workers, forked
        # as soon as the walk lists enough of them, as they parse them (no scan here first,
        # the other core idle), while the walk lists the rest
        parsing = None
        if fresh:
            parsing = EarlyExtraction(repo, config.max_file_size, options,
                                      config.parse_timeout_ms / 1000)  # fmt: skip
            stack.callback(parsing.cancel)
        files = discover(repo, config, configs, untracked, listed, early,
                         parsing and parsing.add)  # fmt: skip
        configs_digest = _configs_digest(configs)
        prev, reason = None, "forced"
        if not fresh:
            prev, reason = _previous(idx, digest, configs_digest, early and early.live)
            records, data = scan(repo, files, config, prev.files.files if prev else None,
                                 scanned_at)  # fmt: skip
        else:
            records, data = unread_records(files), {}
        timings["scan"] = time.perf_counter() - t
        if soon is not None:
            digest, comps = soon.result()
            if not options.force:  # (no live generation: the reason none is used)
                prev, reason = _previous(idx, digest, configs_digest)
            if prev is not None and parsing is not None:  # (one appeared: never, under the lock)
                parsing.cancel()
                parsing = None
                records, data = scan(repo, files, config, prev.files.files, scanned_at)
        cache = stack.enter_context(contextlib.closing(FactsCache(idx, digest)))
        if options.force:
            cache.clear()
        run = Run(repo, idx, config, options, progress, digest, comps, cache, configs,
                  configs_digest, records, data, timings, t0, scanned_at,
                  untracked=untracked.paths, listed=listed or {},
                  tracked=untracked.tracked, early=parsing, collecting=collecting)  # fmt: skip
        run.cpu_mark = process_cpu()
        run.cpu_seconds["scan"] = round(run.cpu_mark - cpu, 3)
        if soon is not None and soon.path != "cached":
            run.forks["runner identity"] = soon.path
        if prev is not None:
            old_hashes = {p: f.content_hash for p, f in prev.files.files.items()}
            plan = plan_changes(old_hashes, {r.path: r.content_hash for r in records})
            if plan.is_empty() and prev.files.commit == head_commit(repo):
                if early is not None:
                    early.drop_writer()
                return run.unchanged(prev)
            if plan.size() > len(records) * FULL_REBUILD_SHARE:
                reason = f"{plan.size()} of {len(records)} files changed"
            else:
                from codeimpact.indexer.incremental_run import incremental

                writer = early.take_writer(prev) if early is not None else None
                outcome = incremental(run, prev, plan, "HEAD moved" if plan.is_empty() else "",
                                      writer)  # fmt: skip
                if isinstance(outcome, AnalyzeReport):
                    return outcome
                reason = outcome
        if early is not None:  # (before the full build forks its own)
            early.drop_writer()
        cache.prune_other_identities()
        from codeimpact.indexer.full_run import full

        return full(run, reason)
