"""The change plan of an incremental run: which files changed, and which must be re-resolved.

Why re-resolving the files below is sufficient (incremental == full rebuild):

Resolution of a file F is a pure function of F's own facts and of the facts of
the files its lookups reach. Every lookup starts from a *name written in F*
(a call's callee chain, an import, a base class, an annotation, an assigned
value) and follows bindings, imports, re-exports, base classes, returns and
`self.x = ...` attributes, each step keyed by a name. So if F's result could
change, some file G whose facts changed must bind one of those names, or used
to: G *defines* (or defined) a name that F *uses*. Module names are names too:
a file's module name (its path parts) is in its defined set, so renames and
moves are covered. Global tables derived from all files (a method name that is
unique, the subclasses of a class) are keyed by names the caller uses as well.

The one input that is not keyed by a name written in F is F's own module name
(a new `__init__.py`, a Rust `mod` line, a Go `go.mod`): files whose module
name changed are re-resolved too, and when a resolver does not expose module
names, every file of that language is re-resolved (still without parsing).

Therefore re-resolve: changed files, files whose module name changed, and
files that use a name that a changed file defines now or defined before.
Edges are owned by the file of the call site, so everything else keeps its
edges — including the edges that point *into* a changed file, whose targets
keep their uids and are updated in place, never deleted and re-created.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from codeimpact.indexer.facts import FileFacts

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass
class ChangePlan:
    added: list[str] = field(default_factory=list)
    modified: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    renamed: list[tuple[str, str]] = field(default_factory=list)  # (old, new), same content

    @property
    def changed(self) -> set[str]:
        """Every path whose facts appeared, changed or vanished (both sides of a rename)."""
        out = set(self.added) | set(self.modified) | set(self.deleted)
        for old, new in self.renamed:
            out.add(old)
            out.add(new)
        return out

    def is_empty(self) -> bool:
        return not (self.added or self.modified or self.deleted or self.renamed)

    def size(self) -> int:
        return len(self.added) + len(self.modified) + len(self.deleted) + len(self.renamed)


def plan_changes(old: dict[str, str], new: dict[str, str]) -> ChangePlan:
    """`old`/`new`: path -> content hash ("" for a file that could not be read)."""
    plan = ChangePlan()
    gone = [p for p in old if p not in new]
    came = [p for p in new if p not in old]
    plan.modified = sorted(p for p in new if p in old and old[p] != new[p])
    by_hash: dict[str, list[str]] = {}
    for p in sorted(gone):
        if old[p]:
            by_hash.setdefault(old[p], []).append(p)
    for p in sorted(came):
        h = new[p]
        if h and by_hash.get(h):
            plan.renamed.append((by_hash[h].pop(0), p))
        else:
            plan.added.append(p)
    renamed_old = {o for o, _ in plan.renamed}
    plan.deleted = sorted(p for p in gone if p not in renamed_old)
    plan.added.sort()
    return plan


def _names(text: str, out: set[str]) -> None:
    out.update(_NAME.findall(text))


def used_names(facts: FileFacts) -> set[str]:
    """Every identifier a file's lookups start from or pass through."""
    out: set[str] = set()
    for c in facts.calls:
        _names(c.callee, out)
        for _, chain in c.args:
            _names(chain, out)
    for i in facts.imports:
        _names(i.module, out)
        _names(i.name, out)
    for h in facts.heritage:
        _names(h.base, out)
    for r in facts.references:
        _names(r.target, out)
    for b in facts.bindings:
        _names(b.value, out)
    for r in facts.returns:
        _names(r.value, out)
    for s in facts.symbols:
        for _, ann in s.params:
            _names(ann, out)
        for d in s.decorators:
            _names(d, out)
    return out


def defined_names(facts: FileFacts | None, path: str) -> set[str]:
    """Names a file binds for others: its definitions and its module path parts."""
    out: set[str] = set()
    _names(path.rsplit(".", 1)[0], out)
    if facts is not None:
        for s in facts.symbols:
            if s.name:
                out.add(s.name)
        for i in facts.imports:  # re-exports: `from .x import y` makes `y` a name of this module
            if i.scope == "":
                out.add(i.alias or i.name or i.module.split(".", 1)[0])
        for b in facts.bindings:
            if b.scope == "":
                out.add(b.name)
    return out


def affected_files(
    plan: ChangePlan,
    old_facts: dict[str, FileFacts],
    new_facts: dict[str, FileFacts],
    used: dict[str, set[str]],
    module_changed: set[str],
) -> set[str]:
    """Paths (present now) to re-resolve; `used` maps every present path to used_names()."""
    changed = plan.changed
    touched_names: set[str] = set()
    for p in changed:
        touched_names |= defined_names(old_facts.get(p), p)
        touched_names |= defined_names(new_facts.get(p), p)
    out = {p for p in changed if p in new_facts}
    out |= {p for p in module_changed if p in new_facts}
    for p, names in used.items():
        if p not in out and not names.isdisjoint(touched_names):
            out.add(p)
    return out
