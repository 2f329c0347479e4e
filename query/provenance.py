"""Provenance records and drift: has the code a plan was based on changed since?

A record holds HEAD, the dirty working tree (every changed or untracked path,
indexable or not, with its content hash, and a digest over them), and for each
path the plan references its sha256 and the symbols it holds, each with a hash
of its own lines (`changes.own_hashes`: nested definitions and blank lines
left out), so `drift` can tell a modified symbol from one that only moved.

Symbols come from the index when it holds the file's current bytes, otherwise
they are extracted on the fly (`symbols_from` says which); either way the uids
are the index's. Paths in a record are checked like any input: a record cannot
make us read outside the repository.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from codeimpact.graph.errors import BadInput
from codeimpact.indexer import worktree
from codeimpact.indexer.config import IndexConfig
from codeimpact.indexer.lang import language_for
from codeimpact.query import gitdiff
from codeimpact.query.changes import SymbolSpan, own_hashes, spans_of
from codeimpact.query.freshness import Freshness, freshness
from codeimpact.query.gate import repo_relative

RECORD_SCHEMA = "codeimpact.provenance/1"
DRIFT_SCHEMA = "codeimpact.drift/1"
PATH_STATUSES = ("unchanged", "modified", "deleted", "created")


@dataclass
class SymbolRecord:
    uid: str
    kind: str
    name: str
    start_line: int
    end_line: int
    sha256: str  # of the symbol's own lines


@dataclass
class PathRecord:
    path: str
    exists: bool
    sha256: str | None
    indexed: bool  # the index has this path (at whatever content)
    symbols_from: str | None  # "index" (same bytes as indexed) | "extracted" | None
    symbols: list[SymbolRecord] = field(default_factory=list)


@dataclass
class ProvenanceRecord:
    schema: str
    created_at: str
    head: str | None
    indexed_commit: str | None
    dirty_digest: str | None  # None outside git
    dirty: dict[str, str]  # path -> content hash (xxh3), "size:N" if unhashed, "-" if absent
    paths: list[PathRecord]
    freshness: Freshness


@dataclass
class SymbolDelta:
    uid: str
    kind: str
    old_range: list[int] | None
    new_range: list[int] | None


@dataclass
class PathDrift:
    path: str
    status: str  # unchanged | modified | deleted | created
    sha256_recorded: str | None
    sha256_now: str | None
    added: list[SymbolDelta] = field(default_factory=list)
    modified: list[SymbolDelta] = field(default_factory=list)
    deleted: list[SymbolDelta] = field(default_factory=list)


@dataclass
class HeadDrift:
    recorded: str | None
    now: str | None
    moved: bool


@dataclass
class DriftReport:
    schema: str
    drifted: bool  # a referenced path changed (exit 1)
    head: HeadDrift
    dirty_digest_changed: bool
    summary: dict  # paths, drifted, added, modified, deleted
    paths: list[PathDrift]
    notes: list[str]
    freshness: Freshness


# ----------------------------------------------------------------------------- reading


def _indexed_state(index, path: str) -> tuple[str | None, list[SymbolSpan]]:
    """The indexed content hash of `path` (None if not indexed) and its indexed spans."""
    if index is None:
        return None, []
    res = index.query(
        "MATCH (f:File) WHERE f.path = $p RETURN f.content_hash, f.status", {"p": path}
    )
    if not res.rows:
        return None, []
    digest = res.rows[0][0]
    res = index.query(
        "MATCH (s:Symbol) WHERE s.file = $p RETURN s.uid, s.kind, s.name, s.start_line, "
        "s.end_line, s.start_byte, s.end_byte, s.is_test",
        {"p": path},
    )
    spans = [
        SymbolSpan(uid, uid[len(path) + 2 :], kind, name, sl, el, sb, eb, bool(t))
        for uid, kind, name, sl, el, sb, eb, t in res.rows
    ]
    return digest or "", spans


def path_record(repo: Path, index, path: str) -> PathRecord:
    """One referenced path as it is now (`path` is already checked to be inside `repo`)."""
    from codeimpact.indexer.reading import content_hash

    data = gitdiff.read_worktree(repo, path)
    indexed_hash, indexed_spans = _indexed_state(index, path)
    rec = PathRecord(path, data is not None, None, indexed_hash is not None, None)
    if data is None:
        return rec
    rec.sha256 = hashlib.sha256(data).hexdigest()
    if language_for(path) is None or gitdiff.is_binary(data):
        return rec
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return rec
    if indexed_hash and indexed_hash == content_hash(data):
        spans, rec.symbols_from = indexed_spans, "index"
    else:
        spans, _ = spans_of(path, data)
        rec.symbols_from = "extracted"
    hashes = own_hashes(spans, data)
    rec.symbols = sorted(
        (
            SymbolRecord(s.uid, s.kind, s.name, s.start_line, s.end_line, hashes[s.uid])
            for s in spans
        ),
        key=lambda s: (s.start_line, s.uid),
    )
    return rec


def dirty_set(repo: Path) -> dict[str, str] | None:
    """Every changed or untracked path -> its entry; None outside git."""
    if not gitdiff.is_work_tree(repo):
        return None
    config = IndexConfig()
    root = str(repo)
    return {
        p: worktree.hash_entry(root, p, config)
        for p in sorted({p for _, p in gitdiff.porcelain_status(repo)})
    }


def _head(repo: Path) -> str | None:
    return gitdiff.head_commit(repo) if gitdiff.is_work_tree(repo) else None


def provenance(index, paths: list[str]) -> ProvenanceRecord:
    """The record a plan embeds for `paths` (repository-relative, or absolute inside it)."""
    if not paths:
        raise BadInput("provenance needs at least one path")
    repo = index.repo
    rels = sorted(dict.fromkeys(repo_relative(repo, p) for p in paths))
    dirty = dirty_set(repo)
    meta_commit = index.meta.get("indexed_commit")
    return ProvenanceRecord(
        schema=RECORD_SCHEMA,
        created_at=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        head=_head(repo),
        indexed_commit=meta_commit if isinstance(meta_commit, str) else None,
        dirty_digest=worktree.dirty_digest(dirty) if dirty is not None else None,
        dirty=dirty or {},
        paths=[path_record(repo, index, p) for p in rels],
        freshness=freshness(index),
    )


# ----------------------------------------------------------------------------- drift


def load_record(path: str | os.PathLike) -> dict:
    """A stored record (the JSON `graph provenance --json` printed), checked for shape."""
    try:
        with open(path, encoding="utf-8") as fh:
            record = json.load(fh)
    except OSError as e:
        raise BadInput(f"cannot read {path}: {e.strerror or e}") from e
    except ValueError as e:
        raise BadInput(f"{path} is not JSON: {str(e).splitlines()[0]}") from e
    check_record(record, str(path))
    return record


def check_record(record, where: str = "the record") -> None:
    def bad(why: str):
        raise BadInput(f"{where} is not a provenance record: {why}")

    if not isinstance(record, dict):
        bad("not a JSON object")
    if record.get("schema") != RECORD_SCHEMA:
        bad(f"schema is {record.get('schema')!r}, expected {RECORD_SCHEMA!r}")
    if not isinstance(record.get("paths"), list):
        bad("no `paths` list")
    for p in record["paths"]:
        if not isinstance(p, dict) or not isinstance(p.get("path"), str):
            bad("a `paths` entry without a `path`")
        if p.get("sha256") is not None and not isinstance(p.get("sha256"), str):
            bad(f"{p['path']}: `sha256` is not a string")
        syms = p.get("symbols", [])
        if not isinstance(syms, list) or not all(
            isinstance(s, dict)
            and isinstance(s.get("uid"), str)
            and isinstance(s.get("sha256"), str)
            for s in syms
        ):
            bad(f"{p['path']}: malformed `symbols`")
    for key in ("head", "dirty_digest"):
        if record.get(key) is not None and not isinstance(record.get(key), str):
            bad(f"`{key}` is not a string")


def _range(s: dict | SymbolRecord) -> list[int] | None:
    if isinstance(s, SymbolRecord):
        return [s.start_line, s.end_line]
    start, end = s.get("start_line"), s.get("end_line")
    return [start, end] if isinstance(start, int) and isinstance(end, int) else None


def path_drift(recorded: dict, now: PathRecord) -> PathDrift:
    was_sha = recorded.get("sha256")
    existed = bool(recorded.get("exists", was_sha is not None))
    if existed and not now.exists:
        status = "deleted"
    elif not existed and now.exists:
        status = "created"
    elif was_sha == now.sha256:
        status = "unchanged"
    else:
        status = "modified"
    out = PathDrift(now.path, status, was_sha, now.sha256)
    if status == "unchanged":
        return out
    before = {s["uid"]: s for s in recorded.get("symbols", [])}
    after = {s.uid: s for s in now.symbols}
    for uid, s in after.items():
        if uid not in before:
            out.added.append(SymbolDelta(uid, s.kind, None, _range(s)))
        elif before[uid]["sha256"] != s.sha256:
            out.modified.append(SymbolDelta(uid, s.kind, _range(before[uid]), _range(s)))
    for uid, s in before.items():
        if uid not in after:
            out.deleted.append(SymbolDelta(uid, str(s.get("kind", "")), _range(s), None))
    return out


def drift(repo: str | os.PathLike, record: dict, index=None) -> DriftReport:
    """Compare a stored record with the repository now. `index` (optional) supplies the
    indexed symbols and the freshness block; without one, symbols are extracted."""
    check_record(record)
    root = Path(repo).resolve()
    if not root.is_dir():
        raise BadInput(f"not a directory: {repo}")
    notes: list[str] = []
    paths: list[PathDrift] = []
    for entry in record["paths"]:
        rel = repo_relative(root, entry["path"])
        paths.append(path_drift(entry, path_record(root, index, rel)))
    head_now = _head(root)
    dirty = dirty_set(root)
    digest_now = worktree.dirty_digest(dirty) if dirty is not None else None
    if index is None:
        notes.append("no index: symbols were extracted from the files")
    drifted = [p for p in paths if p.status != "unchanged"]
    summary = {
        "paths": len(paths),
        "drifted": len(drifted),
        "added": sum(len(p.added) for p in paths),
        "modified": sum(len(p.modified) for p in paths),
        "deleted": sum(len(p.deleted) for p in paths),
    }
    return DriftReport(
        schema=DRIFT_SCHEMA,
        drifted=bool(drifted),
        head=HeadDrift(record.get("head"), head_now, record.get("head") != head_now),
        dirty_digest_changed=record.get("dirty_digest") != digest_now,
        summary=summary,
        paths=paths,
        notes=notes,
        freshness=freshness(index) if index is not None else Freshness(None, ["no index"]),
    )
