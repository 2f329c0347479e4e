"""`graph status`: does the index still describe the repository, and if not, why not.

Fresh iff all of these hold (DESIGN.md section 3):
- the schema version is this codeimpact's (the Reader refuses any other on open);
- the runner identity digest equals the one the index was built with;
- the indexed commit is HEAD (both null outside git or before the first commit);
- no content drift: no indexable file changed, added or deleted since indexing;
- no incomplete reasons: every file was fully indexed, and no write was interrupted;
- no damage: every file of the generation (and the facts cache it relies on) matches the
  checksum its manifest records, and the database holds the rows its writer counted.
  `exact` checks every byte and counts the rows; the cheap check compares sizes (the files a
  query reads were checked when the index was opened). A generation Kùzu must not open
  (a damaged database) gets a status from `damaged_status`, which says only that.

`collect(index, exact=True)` measures drift exactly: it re-hashes every file
`discover` would index and compares with the File table. `exact=False` is the
cheap check every query runs: first the tree's stat signature recorded at
indexing (`indexer.treesig`: a stat of each indexed file and folder, no git, no
read), which settles the common case, an untouched tree; when it cannot decide,
in git it compares the dirty set (`git status` plus the hashes of the files it
lists) with the one recorded at indexing; outside git there is no dirty set to
lean on, so it re-hashes like `exact`. `drift.method` says which decided.
"""

from __future__ import annotations

import datetime as dt
import functools
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codeimpact.graph import layout, lock, manifest
from codeimpact.graph.errors import CorruptIndex
from codeimpact.graph.schema import SCHEMA_VERSION
from codeimpact.graph.store import check_rows
from codeimpact.indexer import worktree
from codeimpact.indexer.config import IndexConfig
from codeimpact.indexer.identity import (
    OVERRIDE_ENV,
    component_changes,
    config_from_identity,
    flatten,
    runner_identity,
)
from codeimpact.native.runner import native_status

STATUS_SCHEMA = "codeimpact.status/1"
NAMES_IN_REASON = 5  # files named in one reason line before "+N more"


@dataclass
class SchemaVersionState:
    indexed: Any
    current: int
    ok: bool


@dataclass
class IdentityState:
    current: bool
    indexed_digest: str
    current_digest: str
    changed: list[dict]  # [{component, indexed, current}]
    # every component of the current runner identity by dotted name (`python.resolve`,
    # `tree_sitter`, `engine.code`) -> its version or digest
    components: dict = field(default_factory=dict)


@dataclass
class CommitState:
    git: bool
    indexed: str | None
    head: str | None
    behind: int | None  # commits in HEAD not in the indexed commit; null when unknown
    ahead: int | None  # commits in the indexed commit not in HEAD (HEAD went back)
    branch: str | None
    detached: bool
    shallow: bool | None  # null outside git, and in the cheap check


@dataclass
class DriftState:
    exact: bool  # False: from the git dirty set (cheap check), not a full re-hash
    known: bool  # False: not measured (cheap check after HEAD moved)
    changed: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    # how it was decided: stat (the tree's stat signature), watch (file events since a
    # stat check), git-status (git's dirty set), rehash (every indexable file hashed)
    method: str | None = None


@dataclass
class Status:
    schema: str
    repo: str
    fresh: bool
    reasons: list[str]
    schema_version: SchemaVersionState
    identity: IdentityState
    commit: CommitState
    drift: DriftState
    incomplete: list[dict]  # [{code, path, detail}]
    generation: int
    indexed_at: str | None  # ISO 8601, UTC
    analyzing: dict | None  # {pid, since} of an analyze running now
    # the extraction path: {native, reason, indexed}: whether this process runs the native
    # path (why not), and whether the index was built by it (None: not recorded)
    extraction: dict = field(default_factory=dict)
    damaged: list[dict] = field(default_factory=list)  # [{file, detail}]: `graph analyze` repairs


# ------------------------------------------------------------------ meta checks
def _damaged(index, key: str) -> CorruptIndex:
    return CorruptIndex(
        f"the index at {index.repo} has damaged metadata ({key}): "
        f"run `graph analyze --force {index.repo}`"
    )


def _meta(index, key: str, types: tuple, required: bool = True) -> Any:
    meta = index.meta
    if key not in meta:
        if required:
            raise _damaged(index, f"{key} missing")
        return None
    value = meta[key]
    if not isinstance(value, types) or isinstance(value, bool) and bool not in types:
        raise _damaged(index, key)
    return value


def _incomplete(index) -> list[dict]:
    records = _meta(index, "incomplete", (list,))
    out = []
    for r in records:
        if not isinstance(r, dict) or not isinstance(r.get("code"), str):
            raise _damaged(index, "incomplete")
        out.append(
            {"code": r["code"], "path": str(r.get("path", "")), "detail": str(r.get("detail", ""))}
        )
    return out


def _iso(ts: float | None) -> str | None:
    if ts is None:
        return None
    return (
        dt.datetime.fromtimestamp(ts, dt.timezone.utc)
        .isoformat(timespec="seconds")
        .replace("+00:00", "Z")
    )


def _names(paths: list[str]) -> str:
    shown = ", ".join(paths[:NAMES_IN_REASON])
    more = len(paths) - NAMES_IN_REASON
    return shown + (f" (+{more} more)" if more > 0 else "")


def _files(n: int) -> str:
    return f"{n} file{'s' if n != 1 else ''}"


def _short(commit: str | None) -> str:
    return commit[:12] if commit else "none"


# ----------------------------------------------------------------------- parts
@functools.lru_cache(maxsize=8)
def _current_identity(
    config: IndexConfig, override: str | None, cache_dir: Path
) -> tuple[str, dict]:
    # This process's runner does not change while it runs (reading the installed
    # versions costs ~4 ms a query); the test override is part of the key. The index
    # folder keeps the components between processes (identity.runner_identity).
    return runner_identity(config, cache_dir)


def _identity(index, stored_comps: dict, config: IndexConfig) -> IdentityState:
    indexed_digest = _meta(index, "identity_digest", (str,))
    digest, comps = _current_identity(
        config, os.environ.get(OVERRIDE_ENV), layout.index_dir(index.repo)
    )
    changed = component_changes(stored_comps, comps)
    return IdentityState(digest == indexed_digest, indexed_digest, digest, changed, flatten(comps))


def _file_table(index, paths: list[str] | None = None) -> dict[str, str]:
    """path -> entry of the indexed files (only `paths`, when given)."""
    query = "MATCH (f:File) RETURN f.path, f.content_hash, f.size"
    params = {}
    if paths is not None:
        query = "MATCH (f:File) WHERE f.path IN $paths RETURN f.path, f.content_hash, f.size"
        params = {"paths": paths}
    try:
        _, rows = index.reader.query(query, params)
    except RuntimeError as e:
        raise CorruptIndex(
            f"the index at {index.repo} is unreadable ({str(e).splitlines()[0]}): "
            f"run `graph analyze --force {index.repo}`"
        ) from e
    return {p: worktree.entry(h or "", s or 0) for p, h, s in rows}


def _interrupted(index) -> dict | None:
    marker = layout.interrupted_write(layout.index_dir(index.repo))
    if marker is None:
        return None
    who = f"graph analyze (pid {marker.pid})" if marker.pid else "a graph analyze"
    what = f"generation {marker.generation}" if marker.generation else "a new generation"
    when = f", started {_iso(marker.started_at)}" if marker.started_at else ""
    return {
        "code": "interrupted",
        "path": "",
        "detail": (
            f"{who} stopped while writing {what}{when}; generation {index.generation} "
            f"is still live: run `graph analyze {index.repo}`"
        ),
    }


def _commit_reason(c: CommitState) -> str | None:
    if c.indexed == c.head:
        return None
    if not c.git:
        return f"indexed at commit {_short(c.indexed)}, but this folder is no longer in git"
    if c.head is None:
        return f"indexed at commit {_short(c.indexed)}; the repository has no commit now"
    if c.indexed is None:
        return f"indexed before any commit; HEAD is now {_short(c.head)}"
    if c.behind is None:
        how = "the indexed commit is not in this repository"
    elif c.ahead:
        how = f"{c.behind} commits behind and {c.ahead} not in HEAD's history"
    else:
        how = f"{c.behind} commit{'s' if c.behind != 1 else ''} behind"
    return f"HEAD moved from {_short(c.indexed)} to {_short(c.head)} ({how})"


def _reasons(st: Status) -> list[str]:
    out = manifest.reasons([(d["file"], d["detail"]) for d in st.damaged])
    if not st.identity.current:
        if st.identity.changed:
            parts = [
                f"{c['component']} {c['indexed']} -> {c['current']}" for c in st.identity.changed
            ]
            out.append("runner identity changed: " + ", ".join(parts))
        else:
            out.append("runner identity changed")
    commit = _commit_reason(st.commit)
    if commit:
        out.append(commit)
    for kind in ("changed", "added", "deleted"):
        paths = getattr(st.drift, kind)
        if paths:
            out.append(f"{_files(len(paths))} {kind} since indexing: {_names(paths)}")
    interrupted = [r for r in st.incomplete if r["code"] == "interrupted"]
    for r in interrupted:
        out.append("interrupted: " + r["detail"])
    partial = [r for r in st.incomplete if r["code"] != "interrupted"]
    if partial:
        named = [f"{r['code']} {r['path']}" for r in partial]
        out.append(f"{_files(len(partial))} not fully indexed: {_names(named)}")
    return out


def _by_signature(index, config: IndexConfig,
                  indexed_commit: str | None) -> tuple[CommitState, DriftState] | None:  # fmt: skip
    """Commit and drift from the tree's stat signature; None when it cannot decide."""
    from codeimpact.query.freshness import tree_watch

    watch = tree_watch(index, config)
    if watch is None or watch.signature.commit != indexed_commit:
        return None
    method = watch.decide()
    if method is None:
        return None
    sig = watch.signature
    detached = sig.git and sig.branch is None
    distance = 0 if sig.git and indexed_commit else None  # as commit_distance would say
    commit = CommitState(
        sig.git, indexed_commit, sig.commit, distance, distance, sig.branch, detached, None
    )
    return commit, DriftState(False, True, method=method)


def _by_git_or_hash(index, config: IndexConfig, exact: bool, indexed_commit: str | None,
                    indexed_dirty: dict | None) -> tuple[CommitState, DriftState]:  # fmt: skip
    """Commit and drift from `git status` and the hashes of the files it lists, or (outside
    git, or `exact`) from hashing every indexable file."""
    repo = index.repo
    wt = worktree.scan(repo, config)
    behind = ahead = None
    shallow = None
    if wt.in_git and indexed_commit and wt.head:
        distance = worktree.commit_distance(repo, indexed_commit, wt.head)
        if distance is not None:
            behind, ahead = distance
    if exact and wt.in_git:
        shallow = worktree.is_shallow(repo)
    commit = CommitState(
        wt.in_git, indexed_commit, wt.head, behind, ahead, wt.branch, wt.detached, shallow
    )

    if not wt.in_git:
        # outside git the scan already re-hashed every indexable file
        drift = _drift(worktree.drift_between(_file_table(index), wt.dirty), True, "rehash")
    elif exact or indexed_dirty is None:
        current = worktree.current_files(repo, config)
        drift = _drift(worktree.drift_between(_file_table(index), current), True, "rehash")
    elif indexed_commit == wt.head and wt.dirty_digest == index.meta.get("dirty_digest"):
        drift = DriftState(False, True, method="git-status")  # the same dirty files, contents
    elif indexed_commit == wt.head:
        # Same HEAD: a file in neither dirty set had HEAD's content both then and now,
        # so only the files in either set can differ; compare those with the File table.
        paths = sorted(set(indexed_dirty) | set(wt.dirty))
        root = str(repo)
        current = {
            p: wt.dirty[p] if p in wt.dirty else worktree.hash_entry(root, p, config) for p in paths
        }
        drift = _drift(
            worktree.drift_between(_file_table(index, paths), current), False, "git-status"
        )
    else:
        drift = DriftState(False, False, method="git-status")
    return commit, drift


def collect(index, exact: bool = True) -> Status:
    """The status of an open index (see the module docstring for `exact`)."""
    repo = index.repo
    stored_comps = _meta(index, "identity", (dict,))
    config = config_from_identity(stored_comps.get("config")) or IndexConfig()
    indexed_commit = _meta(index, "indexed_commit", (str, type(None)))
    indexed_dirty = _meta(index, "dirty", (dict, type(None)), required=False)
    indexed_tree = _meta(index, "worktree", (dict,), required=False) or {}
    if indexed_tree.get("head") != indexed_commit:
        indexed_dirty = None  # taken against another HEAD (meta rewritten without it)
    indexed_at = _meta(index, "indexed_at", (int, float), required=False)
    incomplete = _incomplete(index)
    interrupted = _interrupted(index)
    if interrupted:
        incomplete.append(interrupted)

    decided = None if exact else _by_signature(index, config, indexed_commit)
    if decided is not None:
        commit, drift = decided
    else:
        commit, drift = _by_git_or_hash(index, config, exact, indexed_commit, indexed_dirty)

    st = Status(
        schema=STATUS_SCHEMA,
        repo=str(repo),
        fresh=False,
        reasons=[],
        schema_version=SchemaVersionState(
            index.meta.get("schema_version"),
            SCHEMA_VERSION,
            index.meta.get("schema_version") == SCHEMA_VERSION,
        ),
        identity=_identity(index, stored_comps, config),
        commit=commit,
        drift=drift,
        incomplete=incomplete,
        generation=index.generation,
        indexed_at=_iso(indexed_at),
        analyzing=_analyzing(index),
        extraction=_extraction(stored_comps),
    )
    st.damaged = _damage(index, exact)
    st.reasons = _reasons(st)
    st.fresh = not st.reasons
    return st


def _extraction(stored_comps: dict) -> dict:
    now = native_status()
    indexed = stored_comps.get("native_extraction")
    return {
        "native": now.used,
        "reason": now.reason,
        "indexed": indexed if isinstance(indexed, bool) else None,
    }


def _drift(d: worktree.Drift, exact: bool, method: str) -> DriftState:
    return DriftState(exact, True, d.changed, d.added, d.deleted, method)


def _damage(index, exact: bool) -> list[dict]:
    """Files of the generation that differ from its manifest (every byte when `exact`, else
    sizes only), and row counts that differ from the writer's."""
    reader = index.reader
    check = manifest.verify(
        reader.gen.path, reader.manifest, trust_stamp=False, sizes_only=not exact
    )
    damage = list(check.damage)
    if exact and not damage:
        try:
            check_rows(index.repo, reader.gen, reader.conn, reader.manifest)
        except manifest.Damaged as e:
            damage += e.damage
    return [{"file": name, "detail": why} for name, why in damage]


def damaged_status(repo, error: manifest.Damaged) -> Status:
    """The status of an index whose database may not be opened: damaged, nothing else known."""
    try:
        generation = layout.read_current(layout.index_dir(repo)).number
    except CorruptIndex:
        generation = 0
    wt = worktree.scan(repo, IndexConfig())
    st = Status(
        schema=STATUS_SCHEMA,
        repo=str(repo),
        fresh=False,
        reasons=[],
        schema_version=SchemaVersionState(None, SCHEMA_VERSION, False),
        identity=IdentityState(False, "", runner_identity(IndexConfig())[0], []),
        commit=CommitState(wt.in_git, None, wt.head, None, None, wt.branch, wt.detached, None),
        drift=DriftState(False, False),
        incomplete=[],
        generation=generation,
        indexed_at=None,
        analyzing=_analyzing_at(repo),
        extraction=_extraction({}),
        damaged=[{"file": name, "detail": why} for name, why in error.damage],
    )
    st.reasons = manifest.reasons(error.damage)  # the rest was not read: no reason from it
    return st


def _analyzing(index) -> dict | None:
    return _analyzing_at(index.repo)


def _analyzing_at(repo) -> dict | None:
    holder = lock.lock_holder(layout.index_dir(repo))
    if holder is None:
        return None
    since = holder.get("since")
    return {
        "pid": holder.get("pid"),
        "since": _iso(since) if isinstance(since, (int, float)) else None,
    }
