"""Dependents of changed symbols that no longer exist where they point: they are broken.

A deleted symbol (or one moved out of a file that is gone) keeps its dependents:
the code that still names it. Two cases, by which side the index holds:

- the index holds the old side (the usual detect-changes: index at HEAD, edits not
  indexed): the deleted symbol is a node, and its depth-1 dependents that lie
  outside the diff (unchanged code, so it still names the symbol) are broken; where
  the new side of a dependent's file is not what the index holds (the import moved
  with a rename, the call went), that file's new side is resolved against the index
  (indexer/what_if.py `edges_from`) and the dependent is broken only if it still binds
  to the symbol;
- the index holds the new side (a review, or an index built after the change): the
  symbol has no node any more, so the indexed files are resolved again with the old
  side's symbol put back (indexer/what_if.py); every dependent found so still names
  it now, and is broken whether or not the diff touched it.

Either way the dependents come with the relation, confidence and rule of the edge,
and the risk of a change that leaves one outside the diff is at least HIGH.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from codeimpact.indexer.identity import config_from_identity
from codeimpact.indexer.lang.api import FileFacts
from codeimpact.indexer.reading import content_hash
from codeimpact.indexer.what_if import GoneFile, Removal, edges_from, edges_into
from codeimpact.query.change_map import extract_side, indexed_hashes
from codeimpact.query.deps import neighbours
from codeimpact.query.hops import FirstHop

RELATIONS = ["CALLS", "IMPORTS", "EXTENDS", "IMPLEMENTS", "REFERENCES"]
BROKEN_RISK = "HIGH"


@dataclass
class BrokenDependent:
    """Code that depends on a symbol the change removed from where it points."""

    uid: str  # the dependent, a symbol of the index
    kind: str
    file: str
    line: int
    relation: str  # how it depends on the removed symbol
    confidence: float
    reason: str  # the resolution rule of that edge
    at_line: int | None  # the line of the call / import / use
    of: str  # the removed symbol's (old) uid
    in_diff: bool  # the dependent is itself a changed symbol
    # index: an edge of the index (it holds the old side); resolved: found by resolving the
    # indexed files with the old side's symbol put back (the index holds the new side)
    found_by: str


@dataclass(frozen=True)
class Removed:
    """A changed symbol whose old uid no longer names it: deleted, or moved out of a file
    that is gone."""

    uid: str  # the old uid
    status: str  # deleted | moved
    old_path: str
    local: str


def removed_symbols(symbols, gone_paths: set[str]) -> list[Removed]:
    """The changed symbols whose old uid names nothing on the new side: deleted ones, and
    moved ones whose old file is gone (`gone_paths`: old paths the new side lacks)."""
    out = []
    for s in symbols:
        if s.status == "deleted":
            uid = s.uid
        elif s.moved_from and s.moved_from.partition("::")[0] in gone_paths:
            uid = s.moved_from
        else:
            continue
        path, _, local = uid.partition("::")
        out.append(Removed(uid, "deleted" if s.status == "deleted" else "moved", path, local))
    return out


ReadNew = Callable[[list[str]], dict[str, "bytes | None"]]


def _index_config(index):
    return config_from_identity((index.meta.get("identity") or {}).get("config"))


def still_naming(
    index,
    found: list[BrokenDependent],
    read_new: ReadNew | None,
    mapped=None,
    moved: frozenset[str] = frozenset(),
) -> tuple[list[BrokenDependent], list[str]]:
    """The dependents (edges of the index) whose code on the diff's new side still names
    what they depend on: in unchanged files, all; in a file the new side lacks, none
    (gone with their code); in an edited file, those still bound to it when that file's
    new side is resolved against the index with the diff's other new sides (`mapped`:
    the change's extracted sides) and the removed symbols put back where their file now
    is (an import that followed a rename, a call that went: not broken); `moved`: the
    removed uids that live on elsewhere (a binding to where they are now is sound, so
    they are not put back). And notes."""
    if read_new is None or not found:
        return found, []
    files = sorted({b.file for b in found})
    data = read_new(files)
    held = indexed_hashes(index, files)
    edited = {
        p: d
        for p, d in data.items()
        if d is not None and held.get(p) not in (None, content_hash(d))
    }
    keep = [b for b in found if data.get(b.file) is not None and b.file not in edited]
    if not edited:
        return keep, []
    new_sides = dict(getattr(mapped, "new_facts", None) or {})
    for path, d in edited.items():
        if path not in new_sides:
            _, facts = extract_side(path, d)
            if facts is not None:
                new_sides[path] = facts
    renamed = getattr(mapped, "renamed", None) or {}
    gone = getattr(mapped, "gone_paths", None) or set()
    removed = []
    for uid in sorted({b.of for b in found if b.file in edited}):
        path, _, local = uid.partition("::")
        new_path = None if uid in moved else renamed.get(path, None if path in gone else path)
        removed.append(Removal(uid, path, local, new_path))
    try:
        edges = edges_from(
            index.repo, Path(index.reader.gen.path), new_sides, removed, set(edited),
            _index_config(index),
        )  # fmt: skip
    except Exception as e:  # noqa: BLE001 - keep the index's answer, and say so
        edges, why = None, f"({type(e).__name__}: {e})"
    else:
        why = "(the index keeps no resolution state)"
    if edges is None:
        notes = [
            f"whether the edited code of {len(edited)} file(s) still uses what the change "
            f"removed could not be resolved {why}: their dependents are listed as indexed"
        ]
        return keep + [b for b in found if b.file in edited], notes
    line_of = {(e.src, e.dst, e.rel): e.line for e in edges}
    for b in found:
        key = (b.uid, b.of, b.relation)
        if b.file in edited and key in line_of:
            keep.append(replace(b, at_line=line_of[key] or b.at_line))
    return keep, []


def broken_dependents(
    index,
    removed: list[Removed],
    present: set[str],
    changed: set[str],
    old_facts: dict[str, FileFacts],
    *,
    read_new: ReadNew | None = None,
    mapped=None,
) -> tuple[list[BrokenDependent], list[str]]:
    """The dependents of the removed symbols, and notes on what could not be told.

    `present`: the removed uids the index holds; `changed`: every uid the diff changed
    (old and new); `old_facts`: old path -> facts of the old side, for the others;
    `read_new`: paths -> their bytes on the diff's new side (None: not read, every
    indexed dependent outside the diff counts); `mapped`: the change's extracted sides."""
    out: list[BrokenDependent] = []
    notes: list[str] = []
    for r in removed:
        if r.uid not in present:
            continue
        for n in neighbours(index, r.uid, RELATIONS, incoming=True):
            if n.uid in changed:
                continue  # the diff touched it: whether it still names the symbol is unknown
            out.append(
                BrokenDependent(
                    n.uid,
                    n.kind,
                    n.file,
                    n.line,
                    n.relation,
                    n.confidence,
                    n.reason,
                    n.at_line,
                    r.uid,
                    False,
                    "index",
                )  # fmt: skip
            )
    moved = frozenset(r.uid for r in removed if r.status == "moved")
    out, notes = still_naming(index, out, read_new, mapped, moved)
    gone: dict[str, set[str]] = {}
    for r in removed:
        if r.uid not in present:
            gone.setdefault(r.old_path, set()).add(r.local)
    files = [GoneFile(p, old_facts[p], frozenset(ls)) for p, ls in gone.items() if p in old_facts]
    if len(files) < len(gone):
        notes.append(
            "the old side of some removed symbols could not be read: their dependents "
            "are not listed"
        )
    if files:
        try:
            edges = edges_into(index.repo, Path(index.reader.gen.path), files, _index_config(index))
        except Exception as e:  # noqa: BLE001 - a supplement to the answer, never its end
            # A resolver handed the old side beside the new one may meet what a build never
            # gives it; the rest of the answer stands, and says what is missing.
            edges = []
            notes.append(
                "the dependents of removed symbols the index no longer holds could not be "
                f"resolved ({type(e).__name__}: {e}): they are not listed"
            )
        if edges is None:
            notes.append(
                "the index keeps no resolution state (built by an older version): the "
                "dependents of removed symbols it no longer holds are not listed"
            )
        by_uid = index.graph.symbols.by_uid
        symbols = index.graph.symbols
        for e in edges or []:
            i = by_uid.get(e.src)
            if i is None:
                continue
            out.append(
                BrokenDependent(
                    e.src,
                    symbols.kind[i],
                    symbols.file[i],
                    int(symbols.start_line[i]),
                    e.rel,
                    round(float(e.confidence), 4),
                    e.reason,
                    e.line or None,
                    e.dst,
                    e.src in changed,
                    "resolved",
                )  # fmt: skip
            )
    out.sort(key=lambda b: (b.of, b.file, b.line, b.uid, b.relation))
    return out, notes


def first_hops(index, broken: list[BrokenDependent]) -> list[FirstHop]:
    """The resolved dependents as first hops of the change's traversal (the index has no
    node for what they depend on)."""
    by_uid = index.graph.symbols.by_uid
    return [
        FirstHop(by_uid[b.uid], b.relation, b.confidence, b.of)
        for b in broken
        if b.found_by == "resolved" and b.uid in by_uid
    ]


def unloadable_tests(view, broken: list[BrokenDependent]) -> list:
    """The tests that run code of a module importing a symbol the change removed (TestHits):
    that import fails when the module loads, so everything in the module breaks, not
    only what goes through the import (review counts them the same way)."""
    from codeimpact.query.reach import tests_reaching

    by_uid = view.symbols.by_uid
    modules = sorted(
        {
            by_uid[b.uid]
            for b in broken
            if b.relation == "IMPORTS" and b.kind == "module" and b.uid in by_uid
        }
    )
    return tests_reaching(view, modules)[1] if modules else []


def broken_risk(level: str, reasons: list[str], broken: list[BrokenDependent], levels):
    """The risk raised to HIGH when a dependent outside the diff still names a removed
    symbol (`levels`: the risk levels, lowest first)."""
    outside = [b for b in broken if not b.in_diff]
    if not outside:
        return level, reasons
    removed = sorted({b.of for b in outside})
    named = ", ".join(removed[:3]) + (f" and {len(removed) - 3} more" if len(removed) > 3 else "")
    who = len({b.uid for b in outside})
    reason = (
        f"broken {who} >= 1 ({BROKEN_RISK}): {who} dependent(s) outside the diff still "
        f"use {named}, which the change removed"
    )
    if levels.index(level) < levels.index(BROKEN_RISK):
        level = BROKEN_RISK
    return level, [*reasons, reason]
