"""`graph analyze`: discover, read, extract, resolve and write a new index generation."""

from __future__ import annotations

import multiprocessing as mp
import os
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from codeimpact.graph import layout
from codeimpact.graph.errors import BadInput
from codeimpact.graph.schema import SCHEMA_VERSION
from codeimpact.indexer import worktree
from codeimpact.indexer.config import IndexConfig, RunOptions
from codeimpact.indexer.discover import SourceFile, discover
from codeimpact.indexer.facts import FileFacts
from codeimpact.indexer.facts_cache import FactsCache
from codeimpact.indexer.gitinfo import head_commit
from codeimpact.indexer.identity import runner_identity
from codeimpact.indexer.languages import LANGUAGES
from codeimpact.indexer.reading import extract_many, extract_source, read_source
from codeimpact.indexer.resolved import ResolvedFile
from codeimpact.indexer.tables import build_tables, write_generation

Progress = Callable[[str, int, int], None]  # (phase, done, total)

# Below this, worker start-up costs more than it saves.
PARALLEL_MIN_BYTES = 2 * 1024 * 1024
BATCH_BYTES = 512 * 1024


@dataclass
class FileRecord:
    """One discovered file after reading: what the File table and the freshness check need."""

    path: str
    language: str
    size: int
    content_hash: str
    status: str
    detail: str
    lines: int = 0
    is_test: bool = False


@dataclass
class AnalyzeReport:
    repo: str
    mode: str  # full | incremental | unchanged
    generation: int
    files: int
    files_by_status: dict[str, int]
    symbols: int
    edges: dict[str, int]
    calls: dict[str, int]
    incomplete: list[dict]
    seconds: float
    timings: dict[str, float] = field(default_factory=dict)
    reason: str = ""  # why this mode was chosen

    def summary(self) -> str:
        edges = ", ".join(f"{k} {v}" for k, v in sorted(self.edges.items()) if v)
        extra = f", {len(self.incomplete)} incomplete" if self.incomplete else ""
        return (
            f"indexed {self.files} files ({self.mode}): {self.symbols} symbols; {edges}; "
            f"{self.calls.get('unresolved', 0)} unresolved calls{extra}; {self.seconds:.2f}s"
        )


def incomplete_record(rec: FileRecord) -> dict | None:
    if rec.status == "ok":
        return None
    if rec.status == "partial":
        return {"code": "parse_error", "path": rec.path, "detail": rec.detail}
    code = rec.status.split(":", 1)[1]
    return {"code": code, "path": rec.path, "detail": rec.detail}


def check_repo(path: str | os.PathLike) -> Path:
    repo = Path(path)
    if not repo.exists():
        raise BadInput(f"no such directory: {repo}")
    if not repo.is_dir():
        raise BadInput(f"not a directory: {repo}")
    return repo.resolve()


def read_all(
    repo: Path,
    files: list[SourceFile],
    config: IndexConfig,
    cache: FactsCache | None,
    options: RunOptions,
    progress: Progress | None = None,
) -> tuple[list[FileRecord], dict[str, FileFacts], int]:
    """Read and hash every file; facts from the cache or from extraction. Returns parsed count."""
    root = str(repo)
    records: list[FileRecord] = []
    blobs: dict[str, bytes] = {}
    todo: list[tuple[str, str, bytes]] = []
    for sf in files:
        rr = read_source(root, sf.path, config.max_file_size)
        rec = FileRecord(sf.path, sf.language, rr.size, rr.content_hash, rr.status, rr.detail)
        rec.is_test = LANGUAGES[sf.language].is_test_path(sf.path)
        records.append(rec)
        if rr.data is None:
            continue
        rec.lines = rr.data.count(b"\n") + (0 if rr.data.endswith(b"\n") or not rr.data else 1)
        blob = cache.get(rr.content_hash) if cache is not None else None
        if blob is not None:
            blobs[sf.path] = blob
        else:
            todo.append((sf.path, sf.language, rr.data))
    total = len(todo)
    for path, blob in _extract(todo, options, progress):
        blobs[path] = blob
    by_path = {r.path: r for r in records}
    facts: dict[str, FileFacts] = {}
    hashes_written = set()
    for path, blob in blobs.items():
        try:
            f = FileFacts.from_bytes(blob)
        except (ValueError, EOFError, TypeError):
            # a cache entry of another facts format: extract again and replace it
            blob = extract_source(by_path[path].language, _reread(root, path))
            f = FileFacts.from_bytes(blob)
        facts[path] = f
        rec = by_path[path]
        if f.status != "ok":
            rec.status, rec.detail = f.status, f.error
        if cache is not None and rec.content_hash not in hashes_written:
            hashes_written.add(rec.content_hash)
            cache.put(rec.content_hash, blob)
    return records, facts, total


def _reread(root: str, path: str) -> bytes:
    with open(os.path.join(root, path), "rb") as fh:
        return fh.read()


def _extract(todo, options: RunOptions, progress: Progress | None):
    total = len(todo)
    nbytes = sum(len(d) for _, _, d in todo)
    workers = options.workers or os.cpu_count() or 1
    if workers <= 1 or nbytes < PARALLEL_MIN_BYTES or total < 8:
        for i, item in enumerate(todo):
            yield from extract_many([item])
            if progress and (i % 16 == 0 or i + 1 == total):
                progress("extract", i + 1, total)
        return
    # biggest files first so one large file does not finish last; batches by bytes
    order = sorted(todo, key=lambda t: -len(t[2]))
    batches: list[list] = []
    cur: list = []
    cur_bytes = 0
    for item in order:
        cur.append(item)
        cur_bytes += len(item[2])
        if cur_bytes >= BATCH_BYTES:
            batches.append(cur)
            cur, cur_bytes = [], 0
    if cur:
        batches.append(cur)
    done = 0
    with ProcessPoolExecutor(max_workers=workers, mp_context=mp.get_context("fork")) as pool:
        for result in pool.map(extract_many, batches):
            done += len(result)
            if progress:
                progress("extract", done, total)
            yield from result


def resolve_all(
    facts: dict[str, FileFacts], records: list[FileRecord], configs: dict[str, str]
) -> list[ResolvedFile]:
    by_lang: dict[str, dict[str, FileFacts]] = {}
    lang_of = {r.path: r.language for r in records}
    for path, f in facts.items():
        by_lang.setdefault(lang_of[path], {})[path] = f
    out: list[ResolvedFile] = []
    for lang in sorted(by_lang):
        project = LANGUAGES[lang].make_project(by_lang[lang], configs)
        for path in sorted(by_lang[lang]):
            out.append(project.resolve_file(path))
    return out


def analyze(
    path: str | os.PathLike,
    config: IndexConfig | None = None,
    options: RunOptions | None = None,
    progress: Progress | None = None,
) -> AnalyzeReport:
    config = config or IndexConfig()
    options = options or RunOptions()
    t0 = time.perf_counter()
    repo = check_repo(path)
    idx = layout.ensure_index_dir(repo)
    timings: dict[str, float] = {}
    with layout.writer_lock(idx, options.lock_wait):
        digest, comps = runner_identity(config)
        cache = FactsCache(idx, digest)
        if options.force:
            cache.clear()
        cache.prune_other_identities()
        t = time.perf_counter()
        configs: dict[str, str] = {}
        files = discover(repo, config, configs)
        timings["discover"] = time.perf_counter() - t
        t = time.perf_counter()
        records, facts, parsed = read_all(repo, files, config, cache, options, progress)
        timings["extract"] = time.perf_counter() - t
        t = time.perf_counter()
        resolved = resolve_all(facts, records, configs)
        timings["resolve"] = time.perf_counter() - t
        t = time.perf_counter()
        tables = build_tables(records, resolved)
        timings["tables"] = time.perf_counter() - t
        incomplete = [r for r in (incomplete_record(rec) for rec in records) if r]
        calls = Counter()
        for rf in resolved:
            calls["total"] += rf.calls_total
            calls["builtin"] += rf.calls_builtin
            calls["unresolved"] += len(rf.unresolved)
        calls["resolved"] = calls["total"] - calls["builtin"] - calls["unresolved"]
        stats = {
            "files": len(records),
            "files_by_status": dict(Counter(r.status for r in records)),
            "symbols": tables.symbol_count,
            "edges": tables.edge_counts,
            "calls": dict(calls),
            "parsed": parsed,
        }
        meta = {
            "schema_version": SCHEMA_VERSION,
            "identity_digest": digest,
            "identity": comps,
            "indexed_commit": head_commit(repo),
            "indexed_at": time.time(),
            "incomplete": incomplete,
            "stats": stats,
            "mode": "full",
            # dirty digest + set: what freshness compares the working tree against
            **worktree.index_fields(
                repo, config, {r.path: (r.content_hash, r.size) for r in records}
            ),
        }
        t = time.perf_counter()
        gen = write_generation(idx, tables, meta, options.buffer_pool)
        timings["write"] = time.perf_counter() - t
    return AnalyzeReport(
        repo=str(repo),
        mode="full",
        generation=gen,
        files=len(records),
        files_by_status=stats["files_by_status"],
        symbols=tables.symbol_count,
        edges=tables.edge_counts,
        calls=dict(calls),
        incomplete=incomplete,
        seconds=time.perf_counter() - t0,
        timings=timings,
        reason="forced" if options.force else "",
    )
