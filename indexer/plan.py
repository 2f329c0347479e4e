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
files that use a name that a changed file defines now or defined before
(`changed_names`), together with every alias any file binds to those names
(`from x import y as z`, `z = y`), followed to a fixpoint, since a user of an
alias never writes the original. The names of a changed file:
- every definition's name, old and new (a body edit changes what a call
  returns) — or, where the language says so (LanguageSpec.changed_names), only
  the names an edit can reach: in Python the definitions whose scope changed,
  those nested in them and the functions enclosing them up to a class, since a
  lookup from elsewhere reads a scope only through the name of its definition
  or of one enclosing it (all of them when the module's own scope changed);
- an import or assignment whose fact changed: an unchanged `from x import y`
  still binds what it bound unless x's file changed, and then x's own names
  are counted;
- none at all when the edit only moved text (a comment, blank lines): every
  lookup into the file binds as before, and only the file's own rows move.
Edges are owned by the file of the call site, so everything else keeps its
edges — including the edges that point *into* a changed file, whose targets
keep their uids and are updated in place, never deleted and re-created.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping

from codeimpact.indexer.lang import LANGUAGES, flow_rules
from codeimpact.indexer.lang.api import (
    FACT_LISTS,
    UNPLACED,
    BindingFact,
    CallFact,
    FileFacts,
    FlowRules,
    HeritageFact,
    ImportFact,
    ReferenceFact,
    ReturnFact,
    SymbolFact,
    native_core,
)
from codeimpact.indexer.name_index import keys_blob
from codeimpact.native.record import Compared

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# what a flow binder's value reads: names, and locals that extraction names `x$<digits>` (a
# returned literal `ret$0`, an iterated one `it$12`, a comprehension's variable `x$12`),
# which no identifier spells: only their own scope reads them (flow_binders)
_READ = re.compile(r"(\.?)([A-Za-z_][A-Za-z0-9_]*(?:\$\d+)?)")  # (a member's dot, name)
# a value's form and its fields (`lit:`, `iter:-1:chain`, `item:KEY:chain`): no name is read
# there (a dict's literal key `"delete"` read as a name chained Django's plan to 8,001 names);
# a single colon each (`std::x` is a Rust path)
_FORM = re.compile(r"[a-z]+:(?!:)(?:[^:\s]*:(?!:))*")
# used_names' texts: the field of each kind of fact, and its form (_core.names_of's modes)
_CALLEE, _ARGS = CallFact._fields.index("callee"), CallFact._fields.index("args")
_MODULE, _IMPORTED = ImportFact._fields.index("module"), ImportFact._fields.index("name")
_BASE = HeritageFact._fields.index("base")
_TARGET = ReferenceFact._fields.index("target")
_VALUE = BindingFact._fields.index("value")
_BOUND = BindingFact._fields.index("name")
_RETURNED = ReturnFact._fields.index("value")
_PARAMS, _DECORATORS = SymbolFact._fields.index("params"), SymbolFact._fields.index("decorators")
_STR, _PAIRS, _STRS = 0, 1, 2  # a str; pairs whose second item is a str; strs (names_of)
# Files that stand for their folder: Python packages, JS/TS index files, Rust module roots.
PACKAGE_FILES = frozenset({"__init__", "index", "mod", "lib", "main"})


class ChangePlan(Compared):
    added: list[str]
    modified: list[str]
    deleted: list[str]
    renamed: list[tuple[str, str]]  # (old, new), same content
    __slots__ = ("added", "modified", "deleted", "renamed")

    def __init__(
        self,
        added: list[str] | None = None,
        modified: list[str] | None = None,
        deleted: list[str] | None = None,
        renamed: list[tuple[str, str]] | None = None,
    ) -> None:
        self.added = [] if added is None else added
        self.modified = [] if modified is None else modified
        self.deleted = [] if deleted is None else deleted
        self.renamed = [] if renamed is None else renamed

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

    def within(self, paths: Collection[str]) -> ChangePlan:
        """The part of the plan that concerns `paths` (a rename when either side does)."""
        return ChangePlan(
            [p for p in self.added if p in paths],
            [p for p in self.modified if p in paths],
            [p for p in self.deleted if p in paths],
            [(a, b) for a, b in self.renamed if a in paths or b in paths],
        )


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


def used_names(facts: FileFacts, order: list[str] | None = None) -> set[str]:
    """Every identifier a file's lookups start from or pass through; `order`: a list they
    are appended to as well, in the order the facts first name them (the implicit names
    after, sorted)."""
    # the identifiers `_NAME` finds in the texts below (in C: every file of a full build
    # passes here); the texts repeat (`self.assertEqual`, `len`): each is scanned once
    names: set[str] = native_core().names_of(
        facts.calls, _CALLEE, _STR,
        facts.calls, _ARGS, _PAIRS,  # (position or keyword, chain)
        facts.imports, _MODULE, _STR,
        facts.imports, _IMPORTED, _STR,
        facts.heritage, _BASE, _STR,
        facts.references, _TARGET, _STR,
        facts.bindings, _VALUE, _STR,
        facts.returns, _RETURNED, _STR,
        facts.symbols, _PARAMS, _PAIRS,  # (name, annotation)
        facts.symbols, _DECORATORS, _STRS,
        order if order is not None else [],
    )  # fmt: skip
    spec = LANGUAGES.get(facts.language)
    if spec is not None and spec.implicit_names is not None:
        implicit = spec.implicit_names(facts, names)[0]  # read by names no expression writes
        if order is not None and not implicit <= names:
            order += sorted(implicit - names)
        names |= implicit
    return names


def _module_names(path: str) -> set[str]:
    # A file's own module name is its last path part (the folder, for a package's init file);
    # the folders above it bind the same things whatever this file holds.
    parts = path.rsplit("/", 2)
    stem = parts[-1].split(".", 1)[0]
    out = {stem}
    if stem in PACKAGE_FILES and len(parts) > 1:
        out.add(parts[-2])
    return out


def _rules(facts: FileFacts) -> FlowRules:
    """The language's rules for what its resolver follows values through (FlowRules)."""
    return flow_rules(facts.language)


def _function_scopes(facts: FileFacts) -> set[str]:
    return {s.local for s in facts.symbols if s.kind in _FUNCTION_KINDS}


def _import_bindings(facts: FileFacts | None) -> set[tuple]:
    """The imports another file can see: not those inside a function (its locals)."""
    if facts is None:
        return set()
    local = _function_scopes(facts)
    return {(i.scope, i.module, i.level, i.name, i.alias) for i in facts.imports
            if i.scope not in local}  # fmt: skip


def _value_bindings(facts: FileFacts | None) -> set[tuple]:
    """The assignments another file can see: module and class level ones, and attributes
    (`self.x = ...`); a function's local variables are seen only through the function."""
    if facts is None:
        return set()
    rules = _rules(facts)
    local, container_of = rules.function_locals(facts), rules.container_of
    # `x[k] = v` in a function stores into a module's or an instance's container, unless
    # the function binds `x` itself
    return {(b.scope, b.name, b.value, b.is_call) for b in facts.bindings
            if b.scope not in local or "." in b.name
            or ("[" in b.name and container_of(b.name) not in local[b.scope])}  # fmt: skip


def _without_positions(f: FileFacts) -> tuple:
    """The facts with each line number replaced by its rank among the file's fact lines, and
    byte offsets and the line count left out (each fact a tuple: its rank(s), then its other
    fields).

    Two versions of a file that are equal this way differ only in where their text stands
    (a comment, blank lines, a longer docstring): every comparison of lines a resolver
    makes (the binding in effect at a use) is between lines of one file, which ranks keep.
    """
    defs = [s for s in f.symbols if s.local]  # the module's own span is the whole file
    lines = {s.start_line for s in defs} | {s.end_line for s in defs}
    groups = [getattr(f, name) for name in FACT_LISTS]
    for group in groups:
        lines.update(x.line for x in group)
    rank = {line: i for i, line in enumerate(sorted(lines))}
    unplaced = UNPLACED[SymbolFact]
    symbols = [(rank[s.start_line], rank[s.end_line], unplaced(s)) for s in defs]
    rest = [[(rank[x.line], key(x)) for x in group]
            for group, key in zip(groups, FACT_LISTS.values())]  # fmt: skip
    return f.language, f.status, f.extra, symbols, rest


def _moved_only(old: FileFacts, new: FileFacts) -> bool:
    """Whether two versions of a file differ only in where their text stands
    (`_without_positions`; told at once when a kind of fact was added or removed)."""
    for name in FACT_LISTS:
        if len(getattr(old, name)) != len(getattr(new, name)):
            return False
    return _without_positions(old) == _without_positions(new)


def changed_names(
    old: FileFacts | None, new: FileFacts | None, path: str
) -> tuple[set[str], set[str]] | None:
    """(value names, edge names) of a file's edit: names whose binding may differ between
    `old` and `new` facts, and names whose lookups may find other edges although no value
    changed. None when a star import changed: the names it binds are not written here.

    Every definition's name counts (a body edit changes what a call returns), unless the
    language says which names an edit can reach (LanguageSpec.changed_names: Python's is
    lang/python/plan.py). An import or an assignment
    binds a name for others too (re-exports), but only one whose fact changed (line numbers
    aside) can bind differently: unchanged ones resolve as before unless their target's file
    changed, and that file's names are counted in its own right.
    """
    if old is not None and new is not None and _moved_only(old, new):
        return set(), set()  # text moved (a comment, blank lines), no binding changed
    scoped = None
    if old is not None and new is not None and old.language == new.language:
        spec = LANGUAGES.get(new.language)
        if spec is not None and spec.changed_names is not None:
            scoped = spec.changed_names(old, new)
    if scoped is not None:
        values, edges = scoped  # a modified file keeps its module name
    else:
        values, edges = _module_names(path), set()
        for facts in (old, new):
            if facts is not None:
                values.update(s.name for s in facts.symbols if s.name)
                spec = LANGUAGES.get(facts.language)
                if spec is not None and spec.implicit_names is not None:
                    values |= spec.implicit_names(facts, None)[1]  # bound by names of their own
    imports = _import_bindings(old) ^ _import_bindings(new)
    for _scope, module, _level, name, alias in imports:
        if name == "*":
            return None
        values.add(alias or name or module.split(".", 1)[0])
    bound = _value_bindings(old) ^ _value_bindings(new)
    if bound:
        container_of = _rules(new if new is not None else old).container_of
        for _scope, name, _value, _is_call in bound:
            values.add(container_of(name).rpartition(".")[2])
    return values, edges


_FUNCTION_KINDS = frozenset({"function", "method"})


def flow_binders(facts: FileFacts) -> list[tuple[tuple[str, ...], str]]:
    """(names a value reads, the name other files reach that value by), for every value a
    lookup from elsewhere can read in this file:

    - module-level imports with `as` and assignments (`y = x`): by the bound name;
    - class attributes and `self.x` attributes: by the attribute's name (an instance
      reaches them without naming their class);
    - what a function returns: by the function's name (a call reaches it; `make().go()`
      changes when what `make` returns changes, though its caller never names that);
    - what a decorated definition is (`@d def f` is f = d(f)): by its name (a call of `f`
      reaches what `d` returns);
    - where a function's parameter passed on to another call ends up called: by the
      function's name (value flow follows `outer(fn)` -> `middle(fn)` -> `fn()`);
    - registries on the instance (lang/python/registries.py): a function storing into
      `self.x` by its name, reading x (what calls x's items is where its values go); a
      method handing out an item of `self.x` by x.

    A value's names include those of the local bindings and the parameter annotations it
    reads, in its function and the functions enclosing it.
    """
    rules = _rules(facts)
    container_of, registry_store = rules.container_of, rules.registry_store
    local_of = {s.local: s for s in facts.symbols}
    # scope -> name -> the values bound to it and to its items (`x[k] = f`: a local
    # container returned hands on its items)
    values: dict[str, dict[str, list[str]]] = {}
    for b in facts.bindings:
        values.setdefault(b.scope, {}).setdefault(container_of(b.name), []).append(b.value)
    annotations = {
        s.local: {name.lstrip("*"): ann for name, ann in s.params}
        for s in facts.symbols
        if s.params
    }

    known: dict[tuple[str, str], tuple[str, ...]] = {}  # values repeat (`self`, a call)
    # (every language without flow rules of its own takes Python's: the scoping is the
    # language's own)
    spec = LANGUAGES.get(facts.language)
    file_scoped = spec is not None and spec.file_scoped_names
    in_file = _bound_in_file(facts) if file_scoped else None
    plain: dict[str, set[str]] = {}  # function scope -> the plain names bound there
    for b in facts.bindings:
        if "." not in b.name and "[" not in b.name:
            plain.setdefault(b.scope, set()).add(b.name)
    # the functions whose parameters' names are read: a test's or a fixture's parameter may
    # hold a fixture another file defines, a test helper's what a test passes it
    # (lang/python/fixtures.py pytest_value); any function's where names are not the file's
    tests = any(s.is_test for s in facts.symbols)
    params_read = {
        s.local for s in facts.symbols
        if not file_scoped or s.is_test or any("fixture" in d for d in s.decorators)
        or (tests and "." not in s.local)
    }  # fmt: skip

    def reads(value: str, scope: str) -> tuple[str, ...]:
        found = known.get((value, scope))
        if found is None:
            found = known[(value, scope)] = _reads(value, scope)
        return found

    def _reads(value: str, scope: str) -> tuple[str, ...]:
        out: set[str] = set()
        todo = [(value, scope)]
        seen: set[tuple[str, str]] = set()
        while todo:
            item = todo.pop()
            if item in seen:
                continue
            seen.add(item)
            text = item[0]
            form = _FORM.match(text)
            for dot, name in set(_READ.findall(text[form.end() :] if form else text)):
                s = item[1]
                if dot:  # a member: whatever binds it anywhere
                    out.add(name)
                    continue
                if "$" in name:  # a local no other scope can name: its values are read
                    while (bound := values.get(s, {}).get(name)) is None and s:
                        s = s.rpartition(".")[0]
                    if bound:
                        todo.extend((v, s) for v in bound)
                    else:
                        out.add(name.partition("$")[0])
                    continue
                local = False
                while s in local_of and local_of[s].kind in _FUNCTION_KINDS:
                    bound = values.get(s, {}).get(name)
                    if bound:  # (items stored into an outer container too: `x[k] = v`)
                        todo.extend((v, s) for v in bound)
                    if name in plain.get(s, ()):
                        local = True
                        break
                    ann = annotations.get(s, {}).get(name)
                    if ann is not None:
                        todo.append((ann, s))
                        local = s not in params_read
                        break
                    s = s.rpartition(".")[0]
                # A local's value is what its bindings (a parameter's, its annotation) name,
                # read above: its own name no other file binds, unless pytest may bind a
                # parameter to a fixture of that name (`params_read`). Where names are the
                # file's, a name no function binds and the file never binds is a builtin or
                # a local assigned no fact (`delete = "DELETE ..."`), which no other file's
                # edit rebinds either (the file's own edit brings its binders before and
                # after).
                if not local and (in_file is None or name in in_file):
                    out.add(name)
        return tuple(sorted(out))

    out = []
    for i in facts.imports:
        if i.alias and local_of.get(i.scope) is not None and local_of[i.scope].kind == "module":
            out.append((tuple(sorted(set(_NAME.findall(i.name or i.module)))), i.alias))
    own = rules.function_locals(facts)
    for b in facts.bindings:
        name = container_of(b.name)
        if not name or "$" in name:
            # no other file reaches a value by a local's name (`ret$0`, `it$12`: read where
            # they are used) nor by no name (`set:` stores, `obj.x = v` calling a setter)
            continue
        if name.startswith("self."):
            out.append((reads(b.value, b.scope), name[5:]))
            if name != b.name and b.scope in local_of:  # `self.x[k] = v`: a registry
                out.append(((name[5:],), local_of[b.scope].name))
        elif "." not in name and b.scope in local_of:
            # module or class level; an item stored into a module's container from a function
            if b.scope not in own or (name != b.name and name not in own[b.scope]):
                out.append((reads(b.value, b.scope), name))
    for r in facts.returns:
        sym = local_of.get(r.scope)
        if sym is not None and sym.kind in _FUNCTION_KINDS:
            out.append((reads(r.value, r.scope), sym.name))
    # (every call site passes here: most pass no parameter name of any function)
    param_names = {n.lstrip("*") for s in facts.symbols for n, _ in s.params}
    params: dict[str, set[str]] = {}
    for c in facts.calls:
        if c.args and c.callee.startswith("self."):
            attr = registry_store(c)  # `self.x.append(v)`: a registry
            if attr is not None and c.scope in local_of:
                out.append(((attr,), local_of[c.scope].name))
        # a parameter passed on: what the callee does with it is what the function does
        if not c.args or not any(a in param_names for _, a in c.args):
            continue
        sym = local_of.get(c.scope)
        if sym is None or not sym.params:
            continue
        own = params.get(c.scope)
        if own is None:
            own = params[c.scope] = rules.value_parameters(sym)
        if any(a in own for _, a in c.args) and rules.passes_on(c.callee):
            out.append((reads(c.callee, c.scope), sym.name))
    for sym in facts.symbols:
        if sym.decorators:
            scope = sym.local.rpartition(".")[0]
            read = {n for d in sym.decorators for n in reads(d, scope)}
            out.append((tuple(sorted(read)), sym.name))
    out += rules.registry_binders(facts, local_of)
    return out


def _bound_in_file(facts: FileFacts) -> set[str] | None:
    """Every name the file binds in any scope (definitions, parameters, assignments,
    imports); None when a star import may bind any."""
    out = {s.name for s in facts.symbols}
    out.update(n.lstrip("*") for s in facts.symbols for n, _ in s.params)
    out.update(b.name.split(".", 1)[0].split("[", 1)[0] for b in facts.bindings)
    for i in facts.imports:
        if i.name == "*":
            return None
        out.add(i.alias or i.name or i.module.split(".", 1)[0])
    return out


def binder_names(facts: FileFacts) -> set[str]:
    """The names a file's flow binders read besides its used names (`used_names`): the
    attribute of `self.x[k] = v` and of `self.x.append(v)`, and a method handing out an item
    of a registry (its own name). Every other name a binder reads is in a text `used_names`
    scans (a value, an annotation, a callee, a decorator, an import)."""
    core = native_core()
    rules = _rules(facts)
    container_of, registry_store = rules.container_of, rules.registry_store
    out = {src[0] for src, _ in rules.registry_binders(facts, None)}
    # (the `self.` facts picked in C: every binding and call of a full build was tested here;
    # the scopes of the file's definitions are gathered for the few kept, 3% of Django's files)
    scopes = None
    for b in core.rows_prefixed(facts.bindings, _BOUND, "self.", -1):
        name = b.name
        if "[" in name:
            if scopes is None:
                scopes = {s.local for s in facts.symbols}
            if b.scope in scopes:
                out.add(container_of(name)[5:])
    # (with arguments, and, where the rules say which, a callee's last name that may store)
    for c in core.rows_prefixed(facts.calls, _CALLEE, "self.", _ARGS, rules.registry_adders):
        attr = registry_store(c)
        if attr is not None:
            if scopes is None:
                scopes = {s.local for s in facts.symbols}
            if c.scope in scopes:
                out.add(attr)
    return out


def lookup_keys_blob(facts: FileFacts) -> bytes:
    """What the change plan needs of an unchanged file, without its facts: the names its
    lookups use, and the other names its flow binders read (read back by
    `GraphState.lookup_keys`; name_index.keys_blob). The binders themselves are made from
    the facts only when a plan asks for a name the file reads (`FlowIndex`): few files in an
    edit's plan, while every file of a full build paid for them (~7% of Django's resolution
    CPU)."""
    order: list[str] = []
    used = used_names(facts, order)
    return keys_blob(order, sorted(binder_names(facts) - used))


Binders = list[tuple[tuple[str, ...], str]]  # flow_binders of one file


class FlowIndex:
    """The flow binders of a resolver group's files, for `reachers_of`: those given (`eager`:
    the changed files', before and after) and, made on demand by `binders_of(path)`, those of
    each other file whose names (`names`: path -> its used names with its binder names, or
    its binders as an index written before binder names were kept) hold a name asked about."""

    def __init__(self, eager: Iterable[Binders],
                 names: Callable[[], dict[str, frozenset[str] | Binders]] | None = None,
                 binders_of: Callable[[str], Binders] | None = None,
                 finder: Callable[[set[str]], set[str] | None] | None = None):  # fmt: skip
        self.readers: dict[str, list[str]] = {}
        self._pending: dict[str, frozenset[str]] = {}
        self._binders_of = binders_of
        # `finder(names)`: the other files that read one of `names` (an index of their names,
        # indexer/name_index.py), so no file's names are decoded to find them; None: no index
        self._finder = finder
        self._found: set[str] = set()
        # `names` is called when a name is first asked about: an edit that rebinds no name
        # (a statement in a function body) decodes no other file's lookup keys (a kernel
        # edit decoded 55,000 files' keys for nothing)
        self._names = names
        for binders in eager:
            self._add(binders)

    def _unfold(self) -> None:
        names, self._names = self._names, None
        for path, held in (names() if names is not None else {}).items():
            if isinstance(held, frozenset):
                self._pending[path] = held
            else:
                self._add(held)

    def _add(self, binders: Binders) -> None:
        readers = self.readers
        for src, bound in binders:
            for name in src:
                readers.setdefault(name, []).append(bound)

    def load(self, names: set[str]) -> None:
        """Make the binders of every file that reads one of `names` (once per file)."""
        if self._finder is not None:
            found = self._finder(names)
            if found is not None:
                for path in sorted(found - self._found):
                    self._found.add(path)
                    self._add(self._binders_of(path))
                return
            self._finder = None  # no index: every file's names, as they are asked for
        if self._names is not None:
            self._unfold()
        hit = [p for p, held in self._pending.items() if not held.isdisjoint(names)]
        for path in hit:
            del self._pending[path]
            self._add(self._binders_of(path))


def flow_reads(keys: tuple[frozenset[str], list]) -> frozenset[str] | Binders:
    """What a FlowIndex keeps of an unchanged file from its lookup keys (`GraphState.lookup_keys`):
    the names its flow binders may read, or the binders themselves where an index written
    before binder names were kept holds them."""
    used, second = keys
    if not second:
        return used
    if isinstance(second[0], str):
        return used | frozenset(second)
    return second


def reachers_of(names: set[str], binders: FlowIndex | Iterable[Binders]) -> set[str]:
    """The names by which other files reach a value that reads `names`, to a fixpoint: a user
    of `z = y` or of `def z(): return y()` is affected by `y` without writing it."""
    flow = binders if isinstance(binders, FlowIndex) else FlowIndex(binders)
    out: set[str] = set()
    frontier = set(names)
    while frontier:
        flow.load(frontier)
        readers = flow.readers
        found = {bound for name in frontier for bound in readers.get(name, ())
                 if bound not in names and bound not in out}  # fmt: skip
        out |= found
        frontier = found
    return out


def touched_names(
    plan: ChangePlan,
    old_facts: dict[str, FileFacts],
    new_facts: dict[str, FileFacts],
    binders: FlowIndex | Iterable[Binders],
) -> set[str] | None:
    """The names whose binding may have changed, with the names that reach them (see the
    module docstring); None when that cannot be told (a star import changed).

    `old_facts`/`new_facts`: the facts of the changed files before and after; `binders`:
    the flow binders of every file, before and after (a FlowIndex makes them on demand)."""
    values: set[str] = set()
    edges: set[str] = set()
    for p in plan.changed:
        names = changed_names(old_facts.get(p), new_facts.get(p), p)
        if names is None:
            return None
        values |= names[0]
        edges |= names[1]
    return values | edges | reachers_of(values, binders)


def affected_files(
    plan: ChangePlan,
    present: Collection[str],
    used: Mapping[str, frozenset[str]],
    touched: set[str] | None,
) -> set[str]:
    """Paths (present now) to re-resolve: the changed ones and every user of a touched name
    (`used`: every present path's used names, read only when a name is touched); all of
    them when `touched` is None."""
    if touched is None:
        return set(present)
    out = {p for p in plan.changed if p in present}
    if touched:
        out |= {p for p in present if not used[p].isdisjoint(touched)}
    return out
