"""Turn what a user typed into exactly one symbol, or say why not.

Accepted, tried in this order (the first rule that matches anything decides):

1. a uid: `pkg/app.py::Flask.run`, `pkg/app.py::` (the module), `<external>::requests.get`;
2. `path:LINE`: the innermost symbol whose lines cover LINE in that indexed file;
3. `path`: the module symbol of that indexed file (relative to the repository, or
   absolute inside it);
4. a qualified name: `flask.app.Flask.run`;
5. a bare name: `run`;
6. a dotted tail of a qualified name or of a uid's local part: `Flask.run`.

Several matches for one rule raise `AmbiguousTarget` with the candidates (never a
silent pick); nothing raises `TargetNotFound`.
"""

from __future__ import annotations

import os
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path

from codeimpact.graph.errors import AmbiguousTarget, BadInput, TargetNotFound
from codeimpact.query.graphview import SymbolRef, SymbolTable

_PATH_LINE = re.compile(r"^(?P<path>.+):(?P<line>\d+)$")


@dataclass(frozen=True)
class Target:
    text: str  # what was asked for
    id: int  # symbol id (= CSR node id)
    symbol: SymbolRef
    matched_by: str  # uid | path:line | path | qualified_name | name | suffix


def candidate(symbols: SymbolTable, i: int) -> dict:
    """The shape of one candidate in an AmbiguousTarget (and in its JSON)."""
    return {
        "uid": symbols.uid[i],
        "kind": symbols.kind[i],
        "qualified_name": symbols.qualified_name[i],
        "file": symbols.file[i],
        "line": int(symbols.start_line[i]),
    }


def _repo_relative(text: str, repo: Path | None) -> str | None:
    """`text` as a normalised repository-relative posix path, None if it points outside."""
    raw = text.replace(os.sep, "/")
    if os.path.isabs(raw):
        if repo is None:
            return None
        try:
            raw = Path(os.path.normpath(raw)).relative_to(repo).as_posix()
        except ValueError:
            return None
    rel = posixpath.normpath(raw)
    if rel.startswith("../") or rel == "..":
        return None
    return rel


def innermost_at(symbols: SymbolTable, path: str, line: int) -> int | None:
    """The smallest symbol of `path` whose lines cover `line` (the later one on equal spans)."""
    best: tuple[int, int] | None = None  # (span, -start)
    best_id = None
    for i in symbols.by_file.get(path, ()):
        start, end = int(symbols.start_line[i]), int(symbols.end_line[i])
        if start <= line <= end:
            key = (end - start, -start)
            if best is None or key < best:
                best, best_id = key, i
    return best_id


def _pick(symbols: SymbolTable, text: str, ids: list[int], rule: str) -> Target:
    if len(ids) == 1:
        return Target(text, ids[0], symbols.ref(ids[0]), rule)
    ordered = sorted(ids, key=lambda i: (symbols.file[i], int(symbols.start_line[i]), i))
    raise AmbiguousTarget(
        f"ambiguous target {text!r}: {len(ids)} symbols match by {rule.replace('_', ' ')} "
        "(give a uid, a qualified name or path:LINE)",
        [candidate(symbols, i) for i in ordered],
    )


def resolve_target(symbols: SymbolTable, text: str, repo: Path | None = None) -> Target:
    """The one symbol `text` names (rules in the module docstring)."""
    if not isinstance(text, str) or not text.strip():
        raise BadInput("empty target: give a uid, a qualified name, a name, a path or path:LINE")
    text = text.strip()
    i = symbols.by_uid.get(text)
    if i is not None:
        return Target(text, i, symbols.ref(i), "uid")

    m = _PATH_LINE.match(text)
    if m:
        path = _repo_relative(m.group("path"), repo)
        if path is not None and path in symbols.by_file:
            line = int(m.group("line"))
            i = innermost_at(symbols, path, line)
            if i is None:
                raise TargetNotFound(f"no symbol covers line {line} of {path}")
            return Target(text, i, symbols.ref(i), "path:line")

    path = _repo_relative(text, repo)
    if path is not None and path in symbols.by_file:
        i = symbols.by_uid.get(path + "::")
        if i is not None:
            return Target(text, i, symbols.ref(i), "path")

    for rule, index in (
        ("qualified_name", symbols.by_qualified_name),
        ("name", symbols.by_name),
    ):
        ids = index.get(text)
        if ids:
            return _pick(symbols, text, ids, rule)

    tail = "." + text
    ids = [
        i
        for i, (qn, uid) in enumerate(zip(symbols.qualified_name, symbols.uid))
        if qn.endswith(tail) or uid.partition("::")[2] == text
    ]
    if ids:
        return _pick(symbols, text, ids, "suffix")
    raise TargetNotFound(f"no symbol matches {text!r} (try `graph search {text}`)")


def resolve_targets(
    symbols: SymbolTable, texts: list[str], repo: Path | None = None
) -> list[Target]:
    """Each target resolved; duplicates (the same symbol named twice) kept once, in order."""
    seen: set[int] = set()
    out: list[Target] = []
    for text in texts:
        t = resolve_target(symbols, text, repo)
        if t.id not in seen:
            seen.add(t.id)
            out.append(t)
    return out
