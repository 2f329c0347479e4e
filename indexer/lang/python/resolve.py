"""Python name resolution across files: imports, scopes, the MRO, declared types, value flow.

A name is looked up the way Python does it (local, enclosing functions,
module, builtins; class bodies are not enclosing scopes), then chains are
followed step by step through modules, classes (C3 MRO), instances whose class
is evident (constructed, declared by an annotation, returned), containers
whose item type is declared (`list[Tag]`, `dict[str, Tag]`) and call results.
Every step names its rule; a chain takes its weakest rule's confidence. What
cannot be resolved is reported, never guessed at full confidence.

Resolution is per file (`resolve_file(path)` returns the edges that file
owns) and depends only on the FileFacts of the project. Edges start at a
symbol of the file, except value-flow CALLS edges (the callee calling a
function it was passed), which the file of the passing call site owns.
"""

from __future__ import annotations

import marshal
from collections.abc import Mapping
from pathlib import PurePosixPath

from codeimpact.indexer.lang.api import FileFacts, Prior
from codeimpact.indexer.lang.engine.edges import Edges
from codeimpact.indexer.lang.engine.lazy_index import LazyIndexes
from codeimpact.indexer.lang.engine.memo import BUSY, MISSING
from codeimpact.indexer.lang.engine.project import Project
from codeimpact.indexer.lang.engine.rules import CONFIDENCE, weakest
from codeimpact.indexer.lang.engine.values import members
from codeimpact.indexer.lang.python.callbacks import Callbacks
from codeimpact.indexer.lang.python.containers import Containers
from codeimpact.indexer.lang.python.decorators import Decorators
from codeimpact.indexer.lang.python.file_edges import FileEdges
from codeimpact.indexer.lang.python.fixtures import Fixtures
from codeimpact.indexer.lang.python.flows import Flows, forwards_only
from codeimpact.indexer.lang.python.hierarchy import Hierarchy
from codeimpact.indexer.lang.python.implicit import BUILTIN_PROTOCOL, IMPLICIT_NAMES, Implicit
from codeimpact.indexer.lang.python.index import (
    NO_NAMES,
    Entity,
    FileIndex,
    index_calls,
    index_file,
    index_items,
)
from codeimpact.indexer.lang.python.library_calls import FLOW, PROTOCOL, ROWS, LibraryCalls
from codeimpact.indexer.lang.python.named_getattr import NamedGetattr
from codeimpact.indexer.lang.python.names import Names
from codeimpact.indexer.lang.python.paths import module_name
from codeimpact.indexer.lang.python.playback import _SHAPES, Playback, callee_shape
from codeimpact.indexer.lang.python.pytest_names import is_fixture
from codeimpact.indexer.lang.python.reads import (
    Reads,
    member_reads,
    read_names,
    read_summary,
)
from codeimpact.indexer.lang.python.tables import ModulesOf, Tables, module_entry, standing
from codeimpact.indexer.lang.python.values import Values
from codeimpact.indexer.resolved import ResolvedFile, external_uid, strip_dup

# (a fact or an unresolved site made as the class's own __new__ does, without its Python
# frame: a decorator's call fact per definition, ~35K unresolved sites per Django)
_new = tuple.__new__

# Method names of builtin types and of the most used library objects: a receiver we cannot
# type is most likely one of these, so a same-named repository method is no evidence of a call.
_COMMON_METHODS = frozenset(
    name
    for typ in (list, dict, str, bytes, set, frozenset, tuple, int, float, object, bytearray)
    for name in dir(typ)
) | frozenset(
    """read write close open flush seek tell readline readlines send recv get set put post
    delete patch head run start stop join wait acquire release lock unlock update keys values
    items append extend pop insert remove clear copy add discard sort reverse encode decode
    format split strip replace match search sub group groups info debug warning error exception
    critical log emit handle filter execute fetchone fetchall fetchmany commit rollback cursor
    connect save load dump dumps loads next iter call apply render parse compile resolve exists
    mkdir unlink rename stat is_dir is_file submit result cancel done shutdown register
    setdefault name value""".split()  # noqa: SIM905 - a word list reads better than 100 lines
)


GROUP = "python"  # the resolver group: its shared summary (tables.py) is shared-python.bin

# Methods the resolver looks up although no call site names them.
IMPLICIT = tuple(
    dict.fromkeys(("__init__", "__call__", "__getitem__", "__iter__", "__enter__", *IMPLICIT_NAMES))
)
# name -> (its place in IMPLICIT, IMPLICIT's own string: the summary's marshal bytes share it)
_IMPLICIT_AT = {m: (i, m) for i, m in enumerate(IMPLICIT)}


class PythonProject(
    Playback,
    FileEdges,
    Reads,
    Implicit,
    LibraryCalls,
    NamedGetattr,
    Fixtures,
    Decorators,
    Flows,
    Callbacks,
    Containers,
    Values,
    Hierarchy,
    Names,
    Project,
):
    """Resolution context for all Python files of one index."""

    SUPPORTS_PRIOR = True
    language = "python"
    common_methods = _COMMON_METHODS

    def __init__(
        self,
        files: Mapping[str, FileFacts],
        is_test_path,
        configs: dict[str, str] | None = None,
        prior: Prior | None = None,
    ):
        super().__init__(is_test_path)
        # (the lookups kept while a file is resolved: names.py, values.py; what playback.py's
        # recording reads; instance attributes that no class of the project binds)
        self._lookups = self._folds = None
        self._srcs = {}
        self._src_read = False
        # dotted argument -> whether it reads a member of `member_names` (playback.py)
        self._argument_reads: dict[str, bool] = {}
        # whether a file summarised by this project defines a pytest fixture (_summarise);
        # until every file is summarised, fixtures are looked for
        self._fixture_met = self._fixtureless = False
        self._heritage_values = {}  # values.py _bases_info
        # path -> the class-body bindings to a call of a file summarised here (read_summary
        # finds them): class_creation_edges reads them, not every binding of the file again
        self._class_calls: dict[str, list | tuple] = {}
        # .pyi stubs after their sources, so a module name stands for the source file (two
        # sorts, not a key made by a Python function per path: 2.8K calls per Django edit)
        stubs = [p for p in files if p.endswith(".pyi")]
        self.paths = sorted(files) if not stubs else sorted(set(files) - set(stubs)) + sorted(stubs)
        # the previous run's tables when they can be patched (tables.py): the same paths
        tables = None
        if prior is not None and prior.shared is not None:
            modules = prior.modules.get(self.language) if prior.modules is not None else None
            tables = standing(prior.shared(GROUP), self.paths, modules)
        if tables is None:
            package_dirs = frozenset(
                p.rpartition("/")[0] or "."
                for p in self.paths
                if p.rpartition("/")[2] in ("__init__.py", "__init__.pyi")
            )
            self._module_of: dict[str, tuple[str, str]] = {}
            self.module_file: dict[str, str] = {}
            for path in self.paths:
                mod = module_name(path, package_dirs)
                self._module_of[path] = module_entry(path, mod)
                self.module_file.setdefault(mod, path)
        else:
            self._module_of, self.module_file = tables.module_of, tables.module_file
        module_of = self._module_of

        def index_path(path: str) -> FileIndex:
            mod, package = module_of[path]  # KeyError: not a file of this project
            fi = FileIndex(path, mod, package, files[path])
            index_file(fi)
            return fi

        # built from a closure, not a bound method: no reference cycle through the project,
        # so dropping it frees every index at once without the (paused) cycle collector
        self.files: dict[str, FileIndex] = LazyIndexes(index_path)
        # per file: (module, methods [(name, local)], classes [(local, bases, unknown,
        # implicit members)] in definition order, what its attribute reads may run (reads.py))
        self._summary: Mapping[str, tuple]
        # lookups go through the one memo (engine/memo.py): what it stores is the same
        # whatever order files are resolved in (incremental == full rebuild relies on that).
        # The previous summaries of the files not summarised again: their clean classes'
        # bases answer `_bases_info` (hierarchy.py) when first asked, as a memo seeded with
        # them would (decoding them all for the memo was ~4 ms of a Django edit)
        self._standing_summaries = prior.summaries if prior is not None else None
        if tables is None:
            self._summary = {}
            fresh = []
            for path in self.paths:
                old = prior.summaries.get(path) if prior is not None else None
                if old is None or path in prior.dirty or old[0] != self._module_of[path][0]:
                    fresh.append(path)
                    continue
                self._summary[path] = old
            self._fresh_paths = frozenset(fresh) if prior is not None else frozenset()
            for path in fresh:
                self._summary[path] = self._summarise(path)
            tables = Tables.build(self.paths, self._module_of, self.module_file, self._summary)
            self._tables_changed = True
        else:
            # (the summaries' paths as a set: a test per path through a Mapping's Python
            # `__contains__` was ~5M instructions of a Django edit)
            known, dirty = set(prior.summaries), prior.dirty
            fresh = [p for p in self.paths if p in dirty or p not in known]
            self._fresh_paths = frozenset(fresh)
            summaries = self._summary = _Summaries(self.paths, prior.summaries)
            for path in fresh:
                summaries.fresh[path] = self._summarise(path)
            self._tables_changed = False
            rank = None  # (made for a patch only: an edit inside a body patches nothing)
            for path in fresh:
                old = prior.summaries.get(path)
                new = summaries.fresh[path]
                if old != new:
                    if rank is None:
                        rank = {p: i for i, p in enumerate(self.paths)}
                    tables.patch(path, old if old is not None else (0, (), (), ((), ())), new,
                                 rank)  # fmt: skip
                    self._tables_changed = True
        self._fresh = fresh
        # no file defines a pytest fixture, so no request binds one (fixtures.py): known when
        # every file was summarised here (a full build), else fixtures are looked for
        self._fixtureless = len(fresh) == len(self.paths) and not self._fixture_met
        self._tables = tables
        self.methods_by_name = tables.methods_by_name
        self.subclasses: dict[tuple[str, str], list[tuple[str, str]]] = tables.subclasses
        # (kept in the tables: recomputed from every read summary when a patch changed one)
        names = tables.names
        if names is None:
            reads = tables.reads.values()
            names = tables.names = (read_names(reads, self.methods_by_name),
                                    member_reads(reads))  # fmt: skip
        self.read_names = names[0] | self.entry_table.read_hooks
        # (a member of no other name is read without a getter: reads.py property_read; a
        # dotted argument reading none is not evaluated for its reads, playback.py)
        self.member_names = names[1] | self.read_names
        if len(self.files) == len(self.paths):
            # every file is indexed (a full build summarised each): a plain dict from here on.
            # An item read of a dict subclass is CPython 3.11's generic subscript (through
            # the type's `__getitem__`, dict's being a method, not a slot wrapper, ~343K reads
            # per Django resolution); a plain dict's is specialised
            self.files = dict(self.files)

    def _summarise(self, path: str) -> tuple:
        self.forget_lookups()
        fi = self.files[path]
        # (one loop over the definitions for the three, not comprehensions: in CPython 3.11
        # each is a function made per run)
        methods, class_locals, decorated = [], [], []
        for local, s in fi.syms.items():
            kind = s.kind
            if kind == "method":
                methods.append((s.name, local))
            elif kind == "class":
                class_locals.append(local)
            if s.decorators:
                decorated.append(s)
        classes = []
        for local in class_locals:
            bases, unknown = self._bases_info(path, local)
            members = fi.members.get(local, {})
            # (from its members, fewer than IMPLICIT's names in most classes)
            found = []
            for m in members:
                if m in _IMPLICIT_AT:
                    found.append(_IMPLICIT_AT[m])
            if not found:
                implicit = ()
            elif len(found) == 1:
                implicit = (found[0][1],)
            else:
                found.sort()  # IMPLICIT's order
                implicit = tuple([m for _, m in found])
            if unknown:  # what a library base calls back (entrypoints.py) is looked up unnamed
                names = fi.names.get(local, {})
                implicit += tuple(sorted(n for n in self.entry_table.hooked_names
                                         if n in members or n in names))  # fmt: skip
            clean = ("bases", path, local) in self.memo.table
            classes.append((local, bases, unknown, implicit, clean))
        # its index is built: only the file's own resolution reads its calls and references
        # again (FileFacts.unload; a full build summarises every file before forking)
        fi.facts.unload()
        if not self._fixture_met and decorated:
            self._fixture_met = any(is_fixture(s) for s in decorated)
        class_calls: list = []
        reads = read_summary(fi, decorated, class_calls, class_locals)
        self._class_calls[path] = class_calls or ()
        return fi.module, methods, classes, reads

    def release(self, path: str) -> None:
        """Drop the calls and references of a resolved file (from the facts this project was
        given): only resolving that file reads them, and at the end of a full build of a large
        tree they would be the biggest part of the memory still held."""
        fi = dict.get(self.files, path)  # never index a file just to release it
        if fi is None:
            return
        facts = fi.facts
        # read from a blob: its call tables (index_calls) are made from the blob if another
        # file's resolution reads them later; extracted: made now, before the calls go
        facts.unload()
        if facts.decoded():
            index_calls(fi)
            index_items(fi)
            facts.calls = []
            facts.references = []

    def summaries(self) -> Mapping[str, tuple]:
        """Per file, what `Prior` hands the next run (plain tuples: marshal-able)."""
        return self._summary

    def encoded_summaries(self, before: Mapping[str, bytes] | None) -> dict[str, bytes]:
        """path -> its summary as marshal bytes; a file not summarised again keeps the bytes
        `before` (the previous run's) holds: its summary is the one decoded from them."""
        fresh = set(self._fresh) if isinstance(self._summary, _Summaries) else None
        out: dict[str, bytes] = {}
        for p in self.paths:
            blob = (
                before.get(p)
                if before is not None and fresh is not None and p not in fresh
                else None
            )
            out[p] = blob if blob is not None else marshal.dumps(self._summary[p])
        return out

    def fresh_summaries(self) -> dict[str, bytes] | None:
        """path -> its summary as marshal bytes, for the files summarised again, when the
        others' stand as the previous run handed them on (its tables stood: the same paths);
        None when `encoded_summaries` must give every file's."""
        if not isinstance(self._summary, _Summaries):
            return None
        fresh = self._summary.fresh
        return {p: marshal.dumps(fresh[p]) for p in self._fresh}

    def shared_summary(self) -> tuple | None:
        """The project's tables, kept beside the generation for the next run (tables.py);
        None when they are the prior's, unchanged (an edit inside a body changes no
        summary)."""
        return self._tables.encode() if self._tables_changed else None

    # ------------------------------------------------------------------ memo
    def _cut(self):
        self.memo.cut()
        return None

    # ------------------------------------------------------------------ output
    def module_names(self) -> dict[str, str]:
        """path -> its dotted module: what its resolution depends on that no name written in
        it says (a moved file, a new `__init__.py`). Changes to the class hierarchy are
        reported by name instead (`hierarchy_changes`)."""
        if isinstance(self._module_of, ModulesOf):  # the previous run's, standing
            return self._module_of.names
        return {p: self._module_of[p][0] for p in self.paths}  # a summary's module

    def hierarchy_changes(self, before: dict[str, tuple]) -> tuple[set[str], set[str]]:
        """(value names, edge names) whose lookups may resolve differently because the class
        hierarchy changed since `before` (the previous run's summaries).

        A lookup walks the bases of classes the caller never names (`Child().m()` finds m
        in a base of a base) and finds `__init__`, `__call__`, `__getitem__`, `__iter__`,
        `__enter__` and the other names of implicit.py's calls, names no call site spells.
        But it reaches a class only by a name: the class's own, or one that returns or
        holds an instance of it (the change plan
        follows those). So for every class whose bases, unknown bases or implicit members
        changed (or that came or went), the value names are its name and those of its
        subclasses, old and new (whose MROs changed), and the edge names the methods of
        all of these (dispatch and unique-name look at who defines a method name).
        """
        paths = set(self._fresh)
        if not isinstance(self._summary, _Summaries):
            # (files gone; the tables stand only for the previous run's paths, whose
            # summaries `before` holds: none then, and no test of 2.8K paths per Django edit)
            paths |= before.keys() - self._summary.keys()
        old = _class_entries(before, paths)
        new = _class_entries(self._summary, paths)
        changed = {k for k in old.keys() | new.keys() if old.get(k) != new.get(k)}
        if not changed:
            return set(), set()
        old_sub: dict[tuple[str, str], list[tuple[str, str]]] = {}
        for path, summary in before.items():
            for local, bases, *_ in summary[2]:
                for base in bases:
                    old_sub.setdefault(base, []).append((path, local))
        reach = set(changed)
        stack = list(changed)
        while stack:
            cls = stack.pop()
            for sub in (*old_sub.get(cls, ()), *self.subclasses.get(cls, ())):
                if sub not in reach:
                    reach.add(sub)
                    stack.append(sub)
        classes: set[str] = set()
        methods: set[str] = set()
        for path, local in reach:
            classes.add(strip_dup(local).rpartition(".")[2])
            for summary in (before.get(path), self._summary.get(path)):
                if summary is not None:
                    methods.update(m for m, ml in summary[1] if ml.rpartition(".")[0] == local)
        return classes, methods

    def qualified(self, fi: FileIndex, local: str) -> str:
        if not local:
            return fi.module
        return f"{fi.module}.{strip_dup(local)}" if fi.module else strip_dup(local)

    def ent_uid(self, ent: Entity) -> str | None:
        k = ent[0]
        if k == "sym" or k == "inst":  # (self.uid written out: a static method, which
            return f"{ent[1]}::{ent[2]}"  # CPython 3.11 looks up unspecialised at each call)
        if k == "mod":
            return f"{ent[1]}::"
        if k == "ext":
            return external_uid(ent[1])
        return None

    def module_symbol_name(self, fi: FileIndex) -> str:
        return fi.module.rpartition(".")[2] if fi.module else PurePosixPath(fi.path).stem

    def resolve_file(self, path: str) -> ResolvedFile:
        self.forget_lookups()
        out = super().resolve_file(path)
        out.unresolved += self.unbound_fixtures(self.files[path])  # plugins' fixtures
        return out

    def resolve_call(self, fi: FileIndex, index: int, call, edges: Edges,
                     out: ResolvedFile) -> None:  # fmt: skip
        try:
            self._resolve_call(fi, call, call.scope, call.callee, call.line, call.kind,
                               call.args, edges, out)  # fmt: skip
        except RecursionError:  # an absurdly deep chain: unresolved, not a crash
            self._too_deep(fi, call, out)

    def _too_deep(self, fi: FileIndex, call, out: ResolvedFile) -> None:
        self.memo.clear()  # entries left busy would read as cycles
        last = call.callee.rpartition(".")[2]
        out.unresolved.append((self.uid(fi.path, call.scope), last, call.line))

    # ------------------------------------------------------------------ calls
    def _resolve_call(self, fi: FileIndex, call, scope: str, callee: str, line: int, kind: str,
                      args: tuple, edges: Edges, out: ResolvedFile) -> None:  # fmt: skip
        if kind == "decorator" and scope:
            # a decorator (and what its arguments call) runs where the definition stands: it
            # is called from the enclosing scope, whose names it sees (`@d def f` is f = d(f))
            scope = fi.parent.get(scope, "")
            call = _new(call.__class__, (scope, *call[1:]))  # (not _replace: ~3x the time)
        # (the last name is without its suffixes; a method call `a.b.m()`: the receiver's
        # value, then the method on it, with dispatch; any other form: the chain's value)
        # (callee_shape's table read here: a frame per site, 44K per Django)
        shape = _SHAPES.get(callee) or callee_shape(callee)
        of_getattr, head, steps, last, dotted, method, simple, _ = shape
        bound = fi.getattr_bound  # (empty in most files)
        if of_getattr or bound and head in bound:
            alts = self.getattr_calls(fi, call)  # `getattr(c, "get")()` is `c.get()`
            for alt in alts:  # (the scope is the decorator's already)
                alt = alt._replace(kind="call")
                self._resolve_call(fi, alt, alt.scope, alt.callee, alt.line, "call", alt.args,
                                   edges, out)  # fmt: skip
            if alts:
                return
        src = self._srcs.get(scope)  # (here_uid written out)
        if src is None:
            src = self._srcs[scope] = f"{fi.path}::{scope}"
        if steps is None:
            out.unresolved.append((src, last, line))
            return
        reads: list = []  # property getters the chain's attribute reads run
        if simple:
            # a name alone (`f()`, `self.m()`: most sites): the file's lookups answer first
            seen = self._lookups
            key = (fi.path, scope, steps[0][0])
            value = seen.get(key, MISSING) if seen is not None else MISSING
            if value is MISSING:
                value = self.lookup_name(fi, scope, key[2], line, 0, key)
        else:
            value = self.eval_chain(
                fi, scope, None, line, 0, reads, steps[:-1] if method else steps
            )
        if args and args[0][0] == "**" and forwards_only(fi, call):
            call = call._replace(args=())  # (its outcome is that of a call without any)
            args = ()
        # What follows the value depends on the value and the last name only, the same at
        # every call site of that form (`self.assertEqual(a, b)` in every test of a class,
        # `Model()` everywhere): played back from the one memo as the edges' other ends, with
        # this site's source and line; then what the site's arguments make (playback.py).
        for getter, rule in reads:  # (the value's own reads first, as the general path does)
            edges.call(src, self.ent_uid(getter), rule, line)
        # The edges of calling `value` (`method`: `last` on it), its arguments aside; what the
        # arguments make: the steps `_arguments` takes, the outcome's. (Written out: a frame
        # per site resolved here, 43K per Django.)
        key = ("call outcome", method, dotted, value, last)
        played = self.memo.table.get(key)
        if played is None:
            follow = self._record_outcome(key, fi, call, method, value, last, edges, src, out)
        else:
            ends, names, builtin, follow = played
            append = edges.append
            for rel, dst, conf, reason in ends:
                append((rel, src, dst, conf, reason, line))
            for name in names:
                out.unresolved.append((src, name, line))
            out.calls_builtin += builtin
        if args:
            # (no step of the outcome's and no dotted argument, whose reads `_arguments`
            # looks for: nothing to make, no frame, as playback.py's played sites)
            if not follow:
                for _, chain in args:
                    if "." in chain:
                        break
                else:
                    return
            self._arguments(fi, call, src, edges, follow)

    def _call_value(self, fi, call, ent, reason, receiver, edges, src, out, alt: bool,
                    follow: list) -> bool:  # fmt: skip
        """The edges of calling `ent` (found by `reason`) at `call`; False when it is no
        callable we know (an alternative that is not callable is dropped silently). What
        reads the arguments goes to `follow` (playback.py `_record_outcome`)."""
        line = call.line  # (a field of a named tuple: read once)
        k = ent[0]
        if k == "builtin" or k == "view":
            if not alt:
                out.calls_builtin += 1
            if k == "builtin":  # `sorted(xs, key=f)` calls f; `len(x)`: x.__len__
                self.library_follow(f"builtins.{ent[1]}", reason, follow)
                if ent[1] in BUILTIN_PROTOCOL:
                    follow.append((PROTOCOL, ent[1], None))
            return True
        if k == "ext":
            edges.call(src, external_uid(ent[1]), reason, line)
            # `Thread(target=f)`, `Client(app)`: the library calls back
            self.library_follow(ent[1], reason, follow)
            return True
        if k == "inst":
            m = self.class_member(ent[1], ent[2], "__call__", 0)
            if m is None and alt:
                return False
            ent = m[0] if m is not None else ent
        if ent[0] != "sym":
            return False
        s = self.files[ent[1]].syms.get(ent[2])  # (_kind written out: 15K per Django)
        skind = s.kind if s else None
        if skind is None or skind == "variable":
            return False
        last = call.callee.rpartition(".")[2]
        # (decorated's first test here: most functions called have no decorator, 13K per Django)
        wrapper = (
            self.decorated(ent[1], ent[2], 0)
            if s.decorators and (skind == "function" or skind == "method")
            else None
        )
        run = self._callable_of(wrapper) if wrapper is not None else None
        if run is not None:  # a decorated name: what its decorators returned runs
            edges.call(src, self.ent_uid(run), weakest("decorator", reason), line)
            # the caller still names the definition: impact follows this reference upstream,
            # not the wrapper's value-flow call, which it makes for every caller of every
            # definition it wraps (query/relays.py)
            edges.add("REFERENCES", src, self.ent_uid(ent), reason, line)
        else:  # (ent_uid and edges.call written out: a symbol's, 14K per Django)
            edges.append(("CALLS", src, f"{ent[1]}::{ent[2]}", CONFIDENCE[reason], reason, line))
            if reason == "value-flow":  # `g()` for g = partial(f), `HANDLERS[k]()`: src itself
                # calls f, but impact takes a value-flow call for a relay (query/relays.py)
                # and would not follow src's callers; its reference is followed
                edges.add("REFERENCES", src, self.ent_uid(ent), reason, line)
        if skind == "class":
            self.construction_edges(ent, edges, src, line)  # __init__, __new__, ...
            # a subclass of a library class: its constructor's arguments
            rows = self.construct_rows(ent)
            if rows:
                follow.append((ROWS, rows, weakest(reason, "entry-point")))
        elif skind == "method" and receiver is not None and not alt:
            self._dispatch(receiver, ent, last, edges, src, line)
        elif skind == "method" and not alt and "." not in call.callee:
            bound = self._bound_receiver(fi, call)  # `report = e.show` ... `report()`
            self._src_read = True  # (what this makes depends on the site's own binding)
            if bound is not None:
                self._dispatch(bound, ent, ent[2].rpartition(".")[2], edges, src, line)
        follow.append((FLOW, ent, skind))
        return True

    def _arms_call(self, fi, call, receiver, last, reason, edges, src, out, follow) -> list:
        """`last` called on a receiver that is one of several values (`obj: A | B`, an item
        of a container): each arm's method runs, and, on an arm whose class may be a
        subclass, the overrides of that method in its subclasses (the dispatch a single
        receiver gets). Whether a call was made, per method."""
        made, seen = [], set()
        for arm in receiver[0][1]:
            r = self.getattr(arm, last, receiver[1], 1)
            for e in members(r[0]) if r is not None else ():
                if e not in seen:
                    seen.add(e)
                    made.append(self._call_value(fi, call, e, reason, receiver, edges, src, out,
                                                 True, follow))  # fmt: skip
                if e[0] == "sym" and arm[0] == "inst" and self._kind(e) == "method":
                    self._dispatch((arm, receiver[1]), e, last, edges, src, call.line)
        return made

    def _bound_receiver(self, fi: FileIndex, call):
        """The receiver of a bound method called through a local alias (`report = e.show`,
        then `report()`): e, so that the call dispatches to e's overrides as `e.show()`
        would. Only a plain name bound in the call's own scope to `receiver.method`."""
        cands = fi.names.get(call.scope, NO_NAMES).get(call.callee)
        if not cands:
            return None
        c = self._pick(cands, call.line)[0]
        b = c[2] if c[1] == "bind" else None
        if b is None or b.is_call or ":" in b.value or "." not in b.value:
            return None
        return self.eval_chain(fi, b.scope, b.value.rpartition(".")[0], b.line, 0)

    def _dispatch(self, receiver, ent, name, edges, src, line) -> None:
        """A method called on a receiver of static class C may run an override in a subclass;
        `super().m()` in C runs the m after C in the MRO of the instance's class, which for
        a subclass with several bases may be another base's (a diamond)."""
        if receiver[0][0] == "super":
            _, path, cls = receiver[0]
            found = self.super_members(path, cls, name)
        else:
            # (the static class of a receiver whose runtime class may be a subclass: an
            # instance not known exact, or `cls` in a classmethod; a frame less per call)
            r, how = receiver
            if r[0] == "inst" and not r[3] or r[0] == "sym" and how == "self":
                found = self.overrides(r[1], r[2], name)
            else:
                return
        if not found:  # (most: no generator nor list made)
            return
        targets = []
        for p, m in found:
            if p != ent[1] or m != ent[2]:
                targets.append(self.uid(p, m))
        edges.dispatch(src, targets, line)

    def _unique_name(self, name: str, edges, src, line) -> bool:
        """Receiver unknown: the only method of that name in the repository, at 0.5.

        Not for names that builtin types or common libraries also have, capitalised
        names or properties, and not when the one definition overrides a method of a
        base we cannot see (its name is then part of an outside API, which the unknown
        receiver more likely is).
        """
        if name.startswith("__") or name[:1].isupper():  # x.Name() constructs a class, likelier
            return False
        return self.unique_name_call(edges, src, name, line)

    def unique_veto(self, found: tuple[str, str]) -> bool:
        p, local = found
        if self._is_property(("sym", p, local)):  # its value is called, not the getter
            return True
        cls = self.files[p].parent.get(local, "")
        for cp, c in self.mro(p, cls):  # noqa: SIM110 (a loop: no generator made)
            info = self.memo.table.get(("bases", cp, c))  # (see construct_rows)
            if info is None or info is BUSY:
                info = self._bases_info(cp, c)
            if info[1]:  # (a base unknown: outside, unresolved)
                return True
        return False

    def unique_target(self, found: tuple[str, str]) -> str:
        """A decorated method's call reaches what its decorators returned."""
        wrapper = self.decorated(found[0], found[1], 0)
        run = self._callable_of(wrapper) if wrapper is not None else None
        return self.ent_uid(run) if run is not None else self.uid(*found)

    def _init_of(self, ent) -> str | None:
        """The uid of the repository `__init__` a call of class `ent` runs, else None."""
        if self._kind(ent) != "class":
            return None
        init = self.class_member(ent[1], ent[2], "__init__", 0)
        if init is None or init[0][0] != "sym" or self._kind(init[0]) != "method":
            return None
        return self.ent_uid(init[0])


class _Summaries(Mapping[str, tuple]):
    """path -> its summary: the files summarised again (`fresh`), else the previous run's,
    decoded when asked (an edit asks for a few of them)."""

    def __init__(self, paths: list[str], prior: Mapping[str, tuple]):
        self._paths = dict.fromkeys(paths)
        self._prior = prior
        self.fresh: dict[str, tuple] = {}

    def __getitem__(self, path: str) -> tuple:
        hit = self.fresh.get(path)
        if hit is not None:
            return hit
        if path not in self._paths:
            raise KeyError(path)
        return self._prior[path]

    def __contains__(self, path) -> bool:
        return path in self._paths

    def __iter__(self):
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)


def _class_entries(summaries: dict[str, tuple], paths) -> dict[tuple[str, str], tuple]:
    """(path, class) -> (bases, unknown base, implicit members) over the given files."""
    return {
        (path, local): (bases, unknown, tuple(implicit))
        for path in paths
        if path in summaries
        for local, bases, unknown, implicit, _clean in summaries[path][2]
    }
