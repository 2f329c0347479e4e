"""A diff's changed symbols: git hunks -> the symbols they touch, on both sides.

Each side of a changed file is read as bytes (a blob, or the working tree) and
its symbols come from the index when the index holds exactly those bytes (same
content hash), otherwise from extracting them on the fly. So the answer is
right when the index is at HEAD and the edits are not indexed, and also when the
edits are indexed and HEAD is not. The index is never written.

A changed line (ignoring whitespace-only lines) belongs to the innermost symbol
around it, so editing a method body modifies the method, not its class or
module; a decorator or annotation line belongs to the definition below it.
Symbols are matched across the two sides by their local name within the file
pair (so a renamed file's symbols are `modified` with `moved_from`, not deleted
and added), and a symbol deleted in one place and added with the same kind,
name and text elsewhere is one moved symbol.
"""

from __future__ import annotations

import bisect
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from codeimpact.indexer.config import DEFAULT_MAX_FILE_SIZE
from codeimpact.indexer.lang import language_for
from codeimpact.indexer.lang.api import FileFacts
from codeimpact.indexer.reading import content_hash
from codeimpact.query import gitdiff

STATUSES = ("added", "modified", "deleted")
_CONFLICT = re.compile(rb"^(<<<<<<<|>>>>>>>)( |$)|^=======$", re.MULTILINE)
_PREFIX_LINE = ("@", "#[")  # decorators / annotations / Rust attributes above a definition
_SKIPPED_MODES = {"120000": "a symlink", "160000": "a submodule"}


# ----------------------------------------------------------------------------- shapes


@dataclass(frozen=True)
class SymbolSpan:
    """One symbol on one side of a change."""

    uid: str
    local: str
    kind: str
    name: str
    start_line: int
    end_line: int
    start_byte: int
    end_byte: int
    is_test: bool


@dataclass
class ChangedSymbol:
    uid: str  # the new uid (the old one for a deleted symbol)
    kind: str
    name: str
    file: str
    status: str  # added | modified | deleted
    old_range: list[int] | None  # [start_line, end_line] before, inclusive
    new_range: list[int] | None  # after
    moved_from: str | None = None  # the old uid, when it differs (renamed file, moved symbol)
    body_changed: bool = True  # False: only its place or uid changed
    indexed: bool = False  # the uid (old uid for a deleted one) is in the index
    is_test: bool = False


@dataclass
class ChangedFile:
    path: str
    old_path: str | None
    status: str  # added | modified | deleted | renamed | copied | typechange | unmerged
    language: str | None
    binary: bool
    untracked: bool
    lines_added: int
    lines_removed: int
    symbols: int  # changed symbols in this file
    old_symbols_from: str | None  # "index" (same bytes as indexed) | "extracted" | None
    notes: list[str] = field(default_factory=list)


@dataclass
class Mapped:
    """A diff mapped to symbols, with what later steps need of the sides read."""

    files: list[ChangedFile]
    symbols: list[ChangedSymbol]
    new_kinds: dict[str, dict[str, str]]  # new path -> local -> kind, of the extracted side
    old_facts: dict[str, FileFacts]  # old path -> facts of its old side, where extracted
    gone_paths: set[str]  # old paths the new side no longer has (deleted, renamed away)
    # new path -> facts of its new side, where extracted; old path -> new path of a file
    # the diff renamed (git's staged rename under unstaged edits included)
    new_facts: dict[str, FileFacts] = field(default_factory=dict)
    renamed: dict[str, str] = field(default_factory=dict)
    # new path -> content hash of its new side, as read (observed coverage measured on
    # other content is stale: query/observed.as_of)
    new_hashes: dict[str, str] = field(default_factory=dict)


# ----------------------------------------------------------------------------- pure mapping


def spans_of(path: str, data: bytes) -> tuple[list[SymbolSpan], str]:
    """The symbols of `data` as if it were `path`, extracted on the fly; and the parse status."""
    spans, facts = extract_side(path, data)
    return spans, facts.status if facts is not None else "unsupported"


def extract_side(path: str, data: bytes) -> tuple[list[SymbolSpan], FileFacts | None]:
    """The symbols of `data` as if it were `path`, and its facts (None: no language)."""
    spec = language_for(path)
    if spec is None:
        return [], None
    facts = spec.extract(data)
    spans = [
        SymbolSpan(
            f"{path}::{s.local}",
            s.local,
            s.kind,
            s.name,
            s.start_line,
            s.end_line,
            s.start_byte,
            s.end_byte,
            bool(s.is_test),
        )
        for s in facts.symbols
    ]
    return spans, facts


def _meaningful(lines: range, texts: tuple[str, ...]) -> list[int]:
    return [n for n, text in zip(lines, texts, strict=False) if text.strip()]


def _extended_starts(spans: list[SymbolSpan], data: bytes | None) -> dict[str, int]:
    """Each symbol's first line, moved up over the decorator / annotation lines above it."""
    if data is None:
        return {s.local: s.start_line for s in spans}
    lines = data.split(b"\n")
    out: dict[str, int] = {}
    for s in spans:
        start = s.start_line
        while start > 1 and lines[start - 2].lstrip().decode("utf-8", "replace").startswith(
            _PREFIX_LINE
        ):
            start -= 1
        out[s.local] = start
    return out


def attribute(spans: list[SymbolSpan], lines: list[int], data: bytes | None) -> set[str]:
    """Locals of the innermost symbols holding any of `lines`."""
    if not lines or not spans:
        return set()
    lines = sorted(set(lines))
    starts = _extended_starts(spans, data)
    owner: dict[int, str] = {}
    # Largest first, so smaller (inner) spans overwrite the lines they hold.
    for s in sorted(spans, key=lambda s: (-(s.end_line - starts[s.local]), starts[s.local])):
        lo = bisect.bisect_left(lines, starts[s.local])
        hi = bisect.bisect_right(lines, s.end_line)
        for n in lines[lo:hi]:
            owner[n] = s.local
    return set(owner.values())


def own_hashes(spans: list[SymbolSpan], data: bytes) -> dict[str, str]:
    """uid -> sha256 of each symbol's *own* lines: its source without the definitions nested
    in it (and their decorators) and without blank lines.

    So editing a method changes the method's hash only, not its class's or module's,
    the same attribution detect-changes uses, and a symbol that merely moved keeps it.
    """
    lines = data.split(b"\n")
    starts = _extended_starts(spans, data)
    out: dict[str, str] = {}
    for s in spans:
        own = [True] * (s.end_line - s.start_line + 1)
        for c in spans:
            inside = s.start_line <= starts[c.local] and c.end_line <= s.end_line
            if c is s or not inside or (starts[c.local], c.end_line) == (s.start_line, s.end_line):
                continue
            for n in range(max(starts[c.local], s.start_line), c.end_line + 1):
                own[n - s.start_line] = False
        kept = [
            lines[n - 1].rstrip()
            for n in range(s.start_line, s.end_line + 1)
            if own[n - s.start_line] and n - 1 < len(lines) and lines[n - 1].strip()
        ]
        out[s.uid] = hashlib.sha256(b"\n".join(kept)).hexdigest()
    return out


def _text(span: SymbolSpan, data: bytes | None) -> bytes | None:
    return None if data is None else data[span.start_byte : span.end_byte]


def _range(span: SymbolSpan | None) -> list[int] | None:
    return None if span is None else [span.start_line, span.end_line]


def map_file(
    old_spans: list[SymbolSpan],
    new_spans: list[SymbolSpan],
    hunks: list[gitdiff.Hunk],
    old_data: bytes | None,
    new_data: bytes | None,
    new_path: str | None,
    old_path: str | None,
    *,
    moved_in_diff: bool = True,
) -> list[ChangedSymbol]:
    """The changed symbols of one file pair (pure: spans, hunks and bytes in, symbols out).

    A symbol whose uid differs between the sides (a renamed file) is listed even when no
    hunk touches it, unless the move is not part of this diff (`moved_in_diff=False`: a
    rename staged before the unstaged edits): then it is listed only when touched, still
    with `moved_from`, the uid the index knows it by.
    """
    old_lines = [n for h in hunks for n in _meaningful(h.old_lines(), h.removed)]
    new_lines = [n for h in hunks for n in _meaningful(h.new_lines(), h.added)]
    touched = attribute(old_spans, old_lines, old_data) | attribute(new_spans, new_lines, new_data)
    old_by = {s.local: s for s in old_spans}
    new_by = {s.local: s for s in new_spans}
    out: list[ChangedSymbol] = []
    for local, n in new_by.items():
        o = old_by.get(local)
        if o is None:
            out.append(
                ChangedSymbol(
                    n.uid,
                    n.kind,
                    n.name,
                    new_path or "",
                    "added",
                    None,
                    _range(n),
                    is_test=n.is_test,
                )
            )
            continue
        moved = o.uid != n.uid
        if local not in touched and not (moved and moved_in_diff):
            continue
        before, after = _text(o, old_data), _text(n, new_data)
        out.append(
            ChangedSymbol(
                n.uid,
                n.kind,
                n.name,
                new_path or "",
                "modified",
                _range(o),
                _range(n),
                moved_from=o.uid if moved else None,
                body_changed=before is None or after is None or before != after,
                is_test=n.is_test,
            )
        )
    for local, o in old_by.items():
        if local not in new_by:
            out.append(
                ChangedSymbol(
                    o.uid,
                    o.kind,
                    o.name,
                    old_path or "",
                    "deleted",
                    _range(o),
                    None,
                    is_test=o.is_test,
                )
            )
    return out


def _body_key(kind: str, name: str, text: bytes | None) -> tuple | None:
    if text is None or kind == "module":
        return None
    # Indentation may change with the move (a method lifted to a function): compare it stripped.
    lines = [ln.strip() for ln in text.split(b"\n")]
    return (kind, name, hashlib.sha256(b"\n".join(lines)).hexdigest())


def pair_moves(
    symbols: list[ChangedSymbol], texts: dict[tuple[str, str], bytes | None]
) -> list[ChangedSymbol]:
    """A symbol deleted here and added there with the same kind, name and text is moved.

    `texts` maps (status, uid) to the symbol's source bytes on its side.
    """
    deleted: dict[tuple, list[ChangedSymbol]] = {}
    added: dict[tuple, list[ChangedSymbol]] = {}
    for s in symbols:
        if s.status in ("deleted", "added"):
            key = _body_key(s.kind, s.name, texts.get((s.status, s.uid)))
            if key is not None:
                (deleted if s.status == "deleted" else added).setdefault(key, []).append(s)
    merged: dict[int, ChangedSymbol] = {}
    dropped: set[int] = set()
    for key, gone in deleted.items():
        came = added.get(key, [])
        if len(gone) == 1 and len(came) == 1:  # unambiguous only
            d, a = gone[0], came[0]
            merged[id(a)] = ChangedSymbol(
                a.uid,
                a.kind,
                a.name,
                a.file,
                "modified",
                d.old_range,
                a.new_range,
                moved_from=d.uid,
                body_changed=False,
                is_test=a.is_test,
            )
            dropped.add(id(d))
    return [merged.get(id(s), s) for s in symbols if id(s) not in dropped]


# ----------------------------------------------------------------------------- reading sides


class _IndexedFiles:
    """The index's view of a set of paths: content hash and symbol spans, in two queries."""

    def __init__(self, index, paths: list[str]):
        self.hash: dict[str, str] = {}
        self.spans: dict[str, list[SymbolSpan]] = {}
        if not paths:
            return
        self.hash = indexed_hashes(index, paths)
        res = index.query(
            "MATCH (s:Symbol) WHERE s.file IN $paths RETURN s.uid, s.file, s.kind, s.name, "
            "s.start_line, s.end_line, s.start_byte, s.end_byte, s.is_test",
            {"paths": paths},
        )
        for uid, file, kind, name, sl, el, sb, eb, is_test in res.rows:
            local = uid[len(file) + 2 :] if uid.startswith(file + "::") else uid.partition("::")[2]
            self.spans.setdefault(file, []).append(
                SymbolSpan(uid, local, kind, name, sl, el, sb, eb, bool(is_test))
            )

    def holds(self, path: str, data: bytes) -> bool:
        return self.hash.get(path) == content_hash(data)


def indexed_hashes(index, paths: list[str]) -> dict[str, str]:
    """The content hash the index holds for each of `paths` it indexed (not skipped)."""
    if not paths:
        return {}
    res = index.query(
        "MATCH (f:File) WHERE f.path IN $paths RETURN f.path, f.content_hash, f.status",
        {"paths": paths},
    )
    return {p: h for p, h, status in res.rows if not str(status).startswith("skipped")}


def indexed_uids(index, uids: list[str]) -> set[str]:
    if not uids:
        return set()
    res = index.query("MATCH (s:Symbol) WHERE s.uid IN $uids RETURN s.uid", {"uids": uids})
    return {r[0] for r in res.rows}


@dataclass
class _Side:
    data: bytes | None
    too_large: bool = False


def _read_sides(repo: Path, files: list[gitdiff.FileDiff]) -> dict[int, tuple[_Side, _Side]]:
    """Both sides' bytes of the files we can parse (others are never read: no language, so
    no symbols; and a large data file must not be loaded to say nothing about it)."""
    parsed = [f for f in files if language_for(f.path) is not None]
    blobs = gitdiff.read_blobs(
        repo, [b for f in parsed for b in (f.old_blob, f.new_blob) if b is not None]
    )
    sides: dict[int, tuple[_Side, _Side]] = {}
    for f in files:
        if language_for(f.path) is None:
            sides[id(f)] = (_Side(None), _Side(None))
            continue
        old = _Side(blobs.get(f.old_blob) if f.old_blob else None)
        if f.new_path is None:
            new = _Side(None)
        elif f.new_blob:
            new = _Side(blobs.get(f.new_blob))
        elif (gitdiff.worktree_size(repo, f.new_path) or 0) > DEFAULT_MAX_FILE_SIZE:
            new = _Side(None, too_large=True)
        else:
            new = _Side(gitdiff.read_worktree(repo, f.new_path))
        sides[id(f)] = (old, new)
    return sides


def _skip_reason(f: gitdiff.FileDiff, old: bytes | None, new: bytes | None) -> str:
    for mode in (f.old_mode, f.new_mode):
        if mode in _SKIPPED_MODES:
            return f"{_SKIPPED_MODES[mode]}: not parsed"
    if f.binary or gitdiff.is_binary(old) or gitdiff.is_binary(new):
        return "binary: not parsed"
    if max(len(old or b""), len(new or b"")) > DEFAULT_MAX_FILE_SIZE:
        return f"larger than {DEFAULT_MAX_FILE_SIZE} bytes: not parsed"
    for data in (old, new):
        if data is not None:
            try:
                data.decode("utf-8")
            except UnicodeDecodeError:
                return "not UTF-8: not parsed"
    return ""


def map_changes(index, diff: gitdiff.Diff) -> Mapped:
    """Changed files and symbols of a diff (the index is only read)."""
    repo = index.repo
    old_paths = sorted({p for f in diff.files for p in (f.old_path, f.origin_path) if p})
    indexed = _IndexedFiles(index, old_paths)
    sides = _read_sides(repo, diff.files)
    files: list[ChangedFile] = []
    symbols: list[ChangedSymbol] = []
    texts: dict[tuple[str, str], bytes | None] = {}
    new_kinds: dict[str, dict[str, str]] = {}
    old_facts: dict[str, FileFacts] = {}
    new_facts: dict[str, FileFacts] = {}
    new_hashes: dict[str, str] = {}
    for f in diff.files:
        old_side, new_side = sides[id(f)]
        old, new = old_side.data, new_side.data
        if f.new_path and new is not None:
            new_hashes[f.new_path] = content_hash(new)
        notes = list(f.notes)
        hunks = f.hunks
        if f.untracked and f.status == "added" and new is not None and not gitdiff.is_binary(new):
            hunks = gitdiff.line_hunks(b"", new)
        spec = language_for(f.path)
        skip = _skip_reason(f, old, new)
        if new_side.too_large:
            skip = f"larger than {DEFAULT_MAX_FILE_SIZE} bytes: not parsed"
        old_from = None
        mapped: list[ChangedSymbol] = []
        if skip:
            notes.append(skip)
        elif spec is not None:
            old_spans: list[SymbolSpan] = []
            # A rename staged before unstaged edits: the old side's uids are the HEAD path's.
            uid_path = f.origin_path or f.old_path
            if f.origin_path:
                notes.append(f"renamed from {f.origin_path} in git's index (staged)")
            if uid_path and old is not None:
                if indexed.holds(uid_path, old):
                    old_spans, old_from = indexed.spans.get(uid_path, []), "index"
                else:
                    old_spans, facts = extract_side(uid_path, old)
                    if facts is not None:
                        old_facts[uid_path] = facts
                    old_from = "extracted"
            new_spans: list[SymbolSpan] = []
            if f.new_path and new is not None:
                new_spans, facts = extract_side(f.new_path, new)
                status = facts.status if facts is not None else "unsupported"
                if facts is not None:
                    new_facts[f.new_path] = facts
                new_kinds[f.new_path] = {sp.local: sp.kind for sp in new_spans}
                if status == "partial":
                    notes.append("syntax errors: symbols parsed from a partial tree")
                if _CONFLICT.search(new):
                    notes.append("merge conflict markers")
            elif f.new_path:
                notes.append("could not be read")
            mapped = map_file(
                old_spans,
                new_spans,
                hunks,
                old,
                new,
                f.new_path,
                uid_path,
                moved_in_diff=f.origin_path is None,
            )
            for s in old_spans:
                texts[("deleted", s.uid)] = _text(s, old)
            for s in new_spans:
                texts[("added", s.uid)] = _text(s, new)
        symbols += mapped
        files.append(
            ChangedFile(
                path=f.path,
                old_path=f.old_path if f.old_path != f.path else None,
                status=f.status,
                language=spec.name if spec else None,
                binary=f.binary or gitdiff.is_binary(old) or gitdiff.is_binary(new),
                untracked=f.untracked,
                lines_added=sum(h.new_count for h in hunks),
                lines_removed=sum(h.old_count for h in hunks),
                symbols=0,
                old_symbols_from=old_from,
                notes=notes,
            )
        )
    symbols = pair_moves(symbols, texts)
    present = indexed_uids(index, sorted({u for s in symbols for u in (s.uid, s.moved_from) if u}))
    for s in symbols:
        s.indexed = s.uid in present or (s.moved_from in present)
    symbols.sort(key=lambda s: (s.file, (s.new_range or s.old_range or [0])[0], s.uid))
    per_file: dict[str, int] = {}
    for s in symbols:
        per_file[s.file] = per_file.get(s.file, 0) + 1
    for cf in files:
        cf.symbols = per_file.get(cf.path, 0)
    gone = {f.old_path for f in diff.files if f.status in ("deleted", "renamed") and f.old_path}
    gone |= {f.origin_path for f in diff.files if f.origin_path}
    gone -= {f.new_path for f in diff.files if f.new_path}
    renamed = {
        old: f.new_path
        for f in diff.files
        if f.new_path and (old := f.origin_path or f.old_path) and old != f.new_path
    }
    return Mapped(files, symbols, new_kinds, old_facts, gone, new_facts, renamed, new_hashes)
