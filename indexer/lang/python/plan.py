"""Python's rule for the change plan: which names an edit of a Python file can rebind.

indexer/plan.py asks each language (LanguageSpec.changed_names) for the names whose lookups
may resolve differently after an edit; without a rule, every definition of the file counts.
Python's scopes let it say more precisely (see `changed_names`).
"""

from __future__ import annotations

import re
from dataclasses import replace
from operator import itemgetter

from codeimpact.indexer.lang.api import (
    FACT_LISTS,
    UNPLACED,
    BindingFact,
    FileFacts,
    FlowRules,
    ImportFact,
    SymbolFact,
)
from codeimpact.indexer.lang.python.exports import (
    container_of,
    function_locals,
    function_view,
    passes_on,
    value_parameters,
)
from codeimpact.indexer.lang.python.index import ADDERS
from codeimpact.indexer.lang.python.pytest_names import AUTOUSE, fixture_names
from codeimpact.indexer.lang.python.registries import (
    REGISTRY_ADDERS,
    registry_binders,
    registry_store,
    registry_view,
)

# what the change plan's flow binders follow (indexer/plan.py): function locals, `x[]` item
# names, a method's parameters past self/cls, parameters passed on (flows.py), registries
FLOW_RULES = FlowRules(
    function_locals,
    container_of,
    value_parameters,
    passes_on,
    registry_binders,
    registry_store,
    REGISTRY_ADDERS,
)

_CLASS_KINDS = frozenset({"class", "interface", "trait", "struct", "enum"})


# each kind of fact's fields but its line (lang/api.py), with a tag that tells the kinds
# apart (a heritage and a reference have the same fields)
_SYMBOL_KEY = UNPLACED[SymbolFact]
_FACT_KEYS = tuple(enumerate(FACT_LISTS.values(), 1))


def _scopes(f: FileFacts) -> dict[str, list]:
    """Per scope of a Python file (a definition's local, "" for the module), what a lookup can
    find in it: its own facts and its direct children's symbols, each line replaced by its
    rank among the scope's lines (a line is only ever compared with lines of its own scope),
    byte offsets and end lines left out (no lookup reads them). A class also holds its
    `self.x` bindings in line order, which picks among them across its methods.

    A scope's items stand in the facts' order (symbols, then each kind of fact, each in
    source order): the same text gives the same list, wherever it moved."""
    parent = {s.local: s.local.rpartition(".")[0] for s in f.symbols if s.local}
    raw: dict[str, list[tuple[int, int, tuple]]] = {}
    for s in f.symbols:
        if s.local:
            raw.setdefault(parent[s.local], []).append((s.start_line, 0, _SYMBOL_KEY(s)))
    for name, (tag, key) in zip(FACT_LISTS, _FACT_KEYS):
        group = getattr(f, name)
        for x in group:
            raw.setdefault(x.scope, []).append((x.line, tag, key(x)))
    out: dict[str, list] = {}
    for scope, items in raw.items():
        rank = {line: i for i, line in enumerate(sorted({line for line, _, _ in items}))}
        out[scope] = [(rank[line], tag, key) for line, tag, key in items]
    for b in sorted(f.bindings, key=lambda b: b.line):
        cls = parent.get(b.scope)
        if b.name.startswith("self.") and cls is not None:
            out.setdefault(cls, []).append(("self", b.name, b.value, b.is_call))
    return out


def _stored_by_calls(f: FileFacts) -> dict[str, list]:
    """Container name -> what `x.append(v)` & co. store into it, from any scope (the
    container's items are read from elsewhere: containers.py)."""
    out: dict[str, list] = {}
    own = function_locals(f)
    for c in f.calls:
        head, _, last = c.callee.rpartition(".")
        if c.args and last in ADDERS and head and head not in own.get(c.scope, ()):
            out.setdefault(head, []).append(repr((c.scope, last, c.args)))
    return {name: sorted(v) for name, v in out.items()}


def _attribute_flows(f: FileFacts) -> dict[str, list]:
    """Class -> the calls of its methods that call an attribute of `self` or pass one on
    (`self.cb()`, `ctx.invoke(self.cb)`): where a value stored on the instance is called
    (flows.py). A caller passing a function to the class reads the class's or a method's
    name, so a change here counts for those names."""
    kinds = {s.local: s.kind for s in f.symbols}
    out: dict[str, list] = {}
    for c in f.calls:
        attrs = [a for _, a in c.args if a.startswith("self.") and a.count(".") == 1]
        if not attrs and not (c.callee.startswith("self.") and c.callee.count(".") == 1):
            continue
        s = c.scope
        while s and kinds.get(s) != "class":
            s = s.rpartition(".")[0]
        if s:
            out.setdefault(s, []).append(repr((c.scope, c.callee, c.args)))
    return {cls: sorted(v) for cls, v in out.items()}


def _scope_groups(f: FileFacts, scope: str) -> dict[str, list[tuple]]:
    """Name -> what binds it in a module or class scope (definitions, assignments, imports) in
    source order, positions left out: a lookup from elsewhere (`m.x`, `K.x`, `obj.x`) reads
    the last of them."""
    items: dict[str, list[tuple[int, int, tuple]]] = {}
    for s in f.symbols:
        if s.local and s.local.rpartition(".")[0] == scope:
            items.setdefault(s.name, []).append((s.start_line, 0, _SYMBOL_KEY(s)))
    key = UNPLACED[ImportFact]
    for i in f.imports:
        if i.scope == scope:
            bound = i.alias or i.name or i.module.split(".", 1)[0]
            items.setdefault(bound, []).append((i.line, 1, key(i)))
    key = UNPLACED[BindingFact]
    for b in f.bindings:
        if b.scope == scope and not b.name.startswith("self."):
            items.setdefault(b.name, []).append((b.line, 2, key(b)))
    # in line order (a stable sort: at one line, in the facts' order)
    return {name: [x[1:] for x in sorted(v, key=_LINE)] for name, v in items.items()}


_LINE = itemgetter(0)


def changed_names(old: FileFacts, new: FileFacts) -> tuple[set[str], set[str]] | None:
    """(value names, edge names) of a Python edit; None when the rule does not apply (a
    changed `__all__` changes what a star import binds: every name counts).

    A module or class scope is read from elsewhere name by name (a class body is no
    enclosing scope in Python; its bases are the hierarchy's business): the names whose
    bindings there changed. A function's scope changes what the function gives (a call's
    result, what it calls of its parameters) and what the definitions nested in it see
    (closures), and so what the functions enclosing it give (they may return it), up to a
    class. The definitions of the file that read a changed name are reached through the
    flow binders. The members of a class that did not exist before change no value that
    can be reached without the class's own name: they are edge names only (dispatch and
    unique-name match a method by its bare name).
    """
    if old.extra != new.extra:
        return None
    stored = _stored_by_calls(old), _stored_by_calls(new)
    values: set[str] = {
        name.rpartition(".")[2]
        for name in stored[0].keys() | stored[1].keys()
        if stored[0].get(name) != stored[1].get(name)
    }
    registries = registry_view(old), registry_view(new)
    for scope in registries[0].keys() | registries[1].keys():
        if registries[0].get(scope) != registries[1].get(scope):
            # the attribute's name reaches the functions storing into it (registry_binders)
            for entry in (*registries[0].get(scope, ()), *registries[1].get(scope, ())):
                values.add(entry[1].removesuffix("()"))
    flows = _attribute_flows(old), _attribute_flows(new)
    for cls in flows[0].keys() | flows[1].keys():
        if flows[0].get(cls) != flows[1].get(cls):  # what `self.cb` holds runs elsewhere now
            values |= {s.name for f in (old, new) for s in f.symbols
                       if s.local == cls or s.local.rpartition(".")[0] == cls}  # fmt: skip
    before, after = _scopes(old), _scopes(new)
    changed = {s for s in before.keys() | after.keys() if before.get(s) != after.get(s)}
    old_symbols = {s.local: s for s in old.symbols if s.local}
    symbols = {s.local: s for f in (old, new) for s in f.symbols if s.local}
    edges: set[str] = set()
    for scope in changed:
        if scope:  # a function's view (None for any other scope)
            view = function_view(old, scope)
            if view is not None and view == function_view(new, scope):
                continue  # nothing another file reads of it changed: its users keep their edges
        if scope == "" or symbols[scope].kind in _CLASS_KINDS:
            was, now = _scope_groups(old, scope), _scope_groups(new, scope)
            names = {n for n in was.keys() | now.keys() if was.get(n) != now.get(n)}
            selfs = [[x for x in side.get(scope, []) if x[0] == "self"] for side in (before, after)]
            if selfs[0] != selfs[1]:  # `obj.x` picks among self.x bindings in line order
                names |= {x[1][5:] for x in selfs[0] + selfs[1]}
            up = scope
        else:
            names = {s.name for local, s in symbols.items()
                     if local == scope or local.startswith(scope + ".")}  # fmt: skip
            up = scope.rpartition(".")[0]
            while up in symbols and symbols[up].kind not in _CLASS_KINDS:
                names.add(symbols[up].name)
                up = up.rpartition(".")[0]
        if up in symbols and up not in old_symbols:  # inside (or being) a new class
            values.add(symbols[up].name)
            edges |= names
        else:
            values |= names
    return values | _fixtures_changed(old, new, values | edges), edges


def _fixtures_changed(old: FileFacts, new: FileFacts, names: set[str]) -> set[str]:
    """The names pytest binds of the fixtures whose binding or value may have changed: those
    defined, removed, renamed (`name=`) or switched to or from autouse, and those whose
    function's name counts already (a test reaches a `name=` fixture by that name only);
    AUTOUSE when any of them is (or was) autouse."""
    before = fixture_names(old.symbols, old.calls)
    after = fixture_names(new.symbols, new.calls)
    symbols = {s.local: s.name for f in (old, new) for s in f.symbols}
    out: set[str] = set()
    for local in before.keys() | after.keys():
        was, now = before.get(local), after.get(local)
        if was == now and symbols[local] not in names:
            continue
        for entry in (was, now):
            if entry is not None:
                out.add(entry[0])
                if entry[1]:
                    out.add(AUTOUSE)
    return out


# a comprehension's local, named `name$<byte offset of the comprehension>` by extraction
# (bindings.LocalScopes): Python names cannot hold `$`, so the suffix is only ever that
_LOCAL_KEY = re.compile(r"\$\d+")


def without_offsets(f: FileFacts) -> FileFacts:
    """`f` without what depends on byte offsets besides the symbols' own (early cut-off,
    indexer/cutoff.py): the suffixes of comprehension locals and of the literals iterated
    or passed (`it$N`, `arg$N`). Two files whose facts are equal
    this way resolve alike: the suffix only keys a local within its file."""

    def plain(items: list) -> list:
        return [
            x._replace(
                **{
                    k: _LOCAL_KEY.sub("$", v)
                    for k, v in x._asdict().items()
                    if isinstance(v, str) and "$" in v
                }
            )  # fmt: skip
            for x in items
        ]

    def plain_args(calls: list) -> list:  # a literal passed is the argument `arg$<offset>`
        return [
            c._replace(args=tuple((k, _LOCAL_KEY.sub("$", v)) for k, v in c.args))
            if any("$" in v for _, v in c.args) else c
            for c in calls
        ]  # fmt: skip

    return replace(f, calls=plain_args(plain(f.calls)), references=plain(f.references),
                   bindings=plain(f.bindings), returns=plain(f.returns))  # fmt: skip
