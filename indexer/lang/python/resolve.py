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

import builtins
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import PurePosixPath

from codeimpact.indexer.lang.api import FileFacts, Prior, SymbolFact
from codeimpact.indexer.lang.engine.edges import Edges
from codeimpact.indexer.lang.engine.hierarchy import c3, descendants
from codeimpact.indexer.lang.engine.memo import MISSING
from codeimpact.indexer.lang.engine.project import Project, unique_definition
from codeimpact.indexer.lang.engine.rules import CONFIDENCE, weakest
from codeimpact.indexer.lang.python.extract import module_name
from codeimpact.indexer.resolved import ResolvedFile, Unresolved, external_uid, strip_dup

BUILTINS = frozenset(dir(builtins))
# Every recursive lookup passes through a memoized step that detects cycles, so the depth
# bound only guards the interpreter's stack against absurdly long chains.
MAX_DEPTH = 120

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

# Annotation heads, by what a value of that type holds.
_UNWRAP = frozenset(
    ["Optional", "Annotated", "Final", "ClassVar", "Required", "NotRequired", "ReadOnly"]
)
_SEQ = frozenset(
    """list List set Set frozenset FrozenSet Sequence MutableSequence Iterable Iterator
    Collection Generator AsyncIterator AsyncIterable AsyncGenerator Deque deque AbstractSet
    MutableSet KeysView ValuesView Reversible""".split()  # noqa: SIM905
)
_MAP = frozenset(
    ["dict", "Dict", "Mapping", "MutableMapping", "defaultdict", "DefaultDict", "OrderedDict"]
    + ["ChainMap"]
)
_TYPE = frozenset(("type", "Type"))
_ACCESSORS = (".setter", ".deleter", ".getter")
# Methods the resolver looks up although no call site names them.
_IMPLICIT = ("__init__", "__call__", "__getitem__", "__iter__", "__enter__")
# Implicit classmethods: their first parameter is the class.
_CLASS_FIRST = frozenset(("__new__", "__init_subclass__", "__class_getitem__"))

# Entities a name or chain can evaluate to (plain tuples: cheap and hashable):
#   ("sym", path, local)           a definition in the repository (a class object, a function)
#   ("mod", path)                  a module of the repository
#   ("inst", path, local, exact)   an instance of a repository class; exact when constructed
#                                  here (a subclass instance is then impossible)
#   ("ext", dotted)                something outside the repository
#   ("builtin", name)
#   ("param", path, scope, name)   a parameter whose value we do not know
#   ("seq", path, scope, T)        a container of T items (T: annotation text in path/scope)
#   ("map", path, scope, K, V)     a mapping from K to V
#   ("tup", path, scope, (T, ...)) a fixed tuple
#   ("view", path, scope, K, V, m) the bound method m (items/keys/values) of a map
#   ("super", path, cls)           super() inside class cls
Entity = tuple
_NO_NAMES: dict = {}  # read-only: the names of a scope that binds none


@dataclass
class _FileIndex:
    path: str
    module: str
    package: str  # the package relative imports start from
    facts: FileFacts
    syms: dict[str, SymbolFact] = field(default_factory=dict)
    parent: dict[str, str] = field(default_factory=dict)
    # scope -> name -> [(line, kind, payload)] candidates in source order
    names: dict[str, dict[str, list[tuple[int, str, object]]]] = field(default_factory=dict)
    params: dict[str, dict[str, tuple[int, str]]] = field(default_factory=dict)
    returns: dict[str, list] = field(default_factory=dict)
    # class -> attr -> bindings of self.attr in its methods
    self_attrs: dict[str, dict[str, list]] = field(default_factory=dict)
    # function -> parameter -> the scopes that call it (the function or a closure inside it)
    param_calls: dict[str, dict[str, set[str]]] = field(default_factory=dict)
    star_imports: list = field(default_factory=list)
    # class -> name -> local of the member definition (the last one wins, as at runtime)
    members: dict[str, dict[str, str]] = field(default_factory=dict)


def _split_top(text: str, sep: str) -> list[str]:
    """Split TYPE text on `sep` outside brackets."""
    out, depth, cur = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        elif ch == sep and depth == 0:
            out.append(text[cur:i])
            cur = i + 1
    out.append(text[cur:])
    return out


# a name (`$` joins a comprehension variable to its comprehension) and its suffixes
_STEP = re.compile(r"([A-Za-z_][\w$]*)((?:\(\)|\[\])*)")


@lru_cache(maxsize=65536)
def _parse_steps(chain: str) -> tuple[tuple[str, str], ...] | None:
    """`a.b().c[]` -> (("a", ""), ("b", "()"), ("c", "[]")): names with their suffixes."""
    if "(" not in chain and "[" not in chain:
        return tuple((p, "") for p in chain.split("."))
    steps = []
    for part in chain.split("."):
        m = _STEP.fullmatch(part)
        if m is None:
            return None
        steps.append((m.group(1), m.group(2)))
    return tuple(steps)


class _LazyIndexes(dict):
    """path -> _FileIndex, built on first use: an incremental run reads few of the files."""

    def __init__(self, build):
        super().__init__()
        self._build = build

    def __missing__(self, path: str) -> _FileIndex:
        fi = self[path] = self._build(path)
        return fi


class PythonProject(Project):
    """Resolution context for all Python files of one index."""

    SUPPORTS_PRIOR = True
    language = "python"

    def __init__(
        self,
        files: Mapping[str, FileFacts],
        is_test_path,
        configs: dict[str, str] | None = None,
        prior: Prior | None = None,
    ):
        super().__init__(is_test_path)
        # .pyi stubs after their sources, so a module name stands for the source file
        self.paths = sorted(files, key=lambda p: (p.endswith(".pyi"), p))
        package_dirs = frozenset(
            p.rpartition("/")[0] or "."
            for p in self.paths
            if p.rpartition("/")[2] in ("__init__.py", "__init__.pyi")
        )
        self._module_of: dict[str, tuple[str, str]] = {}
        self.module_file: dict[str, str] = {}
        for path in self.paths:
            mod = module_name(path, package_dirs)
            is_pkg = path.rpartition("/")[2] in ("__init__.py", "__init__.pyi")
            self._module_of[path] = (mod, mod if is_pkg else mod.rpartition(".")[0])
            self.module_file.setdefault(mod, path)
        module_of = self._module_of

        def index_path(path: str) -> _FileIndex:
            mod, package = module_of[path]  # KeyError: not a file of this project
            fi = _FileIndex(path, mod, package, files[path])
            PythonProject._index_file(fi)
            return fi

        # built from a closure, not a bound method: no reference cycle through the project,
        # so dropping it frees every index at once without the (paused) cycle collector
        self.files: dict[str, _FileIndex] = _LazyIndexes(index_path)
        # lookups go through the one memo (engine/memo.py): what it stores is the same
        # whatever order files are resolved in (incremental == full rebuild relies on that)
        memo = self.memo.table
        # per file: (module, methods [(name, local)], classes [(local, bases, unknown,
        # implicit members)]) in definition order
        self._summary: dict[str, tuple] = {}
        fresh = []
        for path in self.paths:
            old = prior.summaries.get(path) if prior is not None else None
            if old is None or path in prior.dirty or old[0] != self._module_of[path][0]:
                fresh.append(path)
                continue
            self._summary[path] = old
            for local, bases, unknown, _implicit, clean in old[2]:
                if clean:  # a result the memo would hold in any order of lookups
                    memo[("bases", path, local)] = (bases, unknown)
        for path in fresh:
            self._summary[path] = self._summarise(path)
        self._fresh = fresh
        # method name -> definitions, for unique-name
        self.methods_by_name: dict[str, list[tuple[str, str]]] = {}
        self.subclasses: dict[tuple[str, str], list[tuple[str, str]]] = {}
        for path in self.paths:
            _, methods, classes = self._summary[path]
            for name, local in methods:
                self.methods_by_name.setdefault(name, []).append((path, local))
            for local, bases, *_ in classes:
                for base in bases:
                    self.subclasses.setdefault(base, []).append((path, local))

    def _summarise(self, path: str) -> tuple:
        fi = self.files[path]
        methods = [(s.name, local) for local, s in fi.syms.items() if s.kind == "method"]
        classes = []
        for local, s in fi.syms.items():
            if s.kind != "class":
                continue
            bases, unknown = self._bases_info(path, local)
            members = fi.members.get(local, {})
            implicit = tuple(m for m in _IMPLICIT if m in members)
            clean = ("bases", path, local) in self.memo.table
            classes.append((local, bases, unknown, implicit, clean))
        return fi.module, methods, classes

    def release(self, path: str) -> None:
        """Drop the calls and references of a resolved file (from the facts this project was
        given): only resolving that file reads them, and at the end of a full build of a large
        tree they would be the biggest part of the memory still held."""
        fi = dict.get(self.files, path)  # never index a file just to release it
        if fi is not None:
            fi.facts.calls = []
            fi.facts.references = []

    def summaries(self) -> dict[str, tuple]:
        """Per file, what `Prior` hands the next run (plain tuples: marshal-able)."""
        return self._summary

    # ------------------------------------------------------------------ memo
    def _cut(self):
        self.memo.cut()
        return None

    # ------------------------------------------------------------------ indexing
    @staticmethod
    def _index_file(fi: _FileIndex) -> None:
        f = fi.facts
        names = fi.names
        syms = fi.syms
        for s in f.symbols:
            local = s.local
            syms[local] = s
            if not local:
                continue
            head = local.rpartition(".")[0]
            fi.parent[local] = head
            kind = "var" if s.kind == "variable" else "def"
            names.setdefault(head, {}).setdefault(s.name, []).append((s.start_line, kind, local))
            if kind == "def" and head in syms and syms[head].kind == "class":
                # a property's setter or deleter is the same attribute: the getter stands for it
                if not any(d.endswith(_ACCESSORS) for d in s.decorators):
                    fi.members.setdefault(head, {})[s.name] = local
            if s.params and s.kind in ("function", "method"):
                fi.params[local] = {
                    name.lstrip("*"): (i, ann) for i, (name, ann) in enumerate(s.params)
                }
        for imp in f.imports:
            if imp.name == "*":
                if imp.scope == "":
                    fi.star_imports.append(imp)
                continue
            if imp.name:
                bound = imp.alias or imp.name
            else:
                bound = imp.alias or imp.module.split(".", 1)[0]
            names.setdefault(imp.scope, {}).setdefault(bound, []).append((imp.line, "import", imp))
        for b in f.bindings:
            if b.name.startswith("self."):
                cls = fi.parent.get(b.scope)
                if cls is not None and cls in syms and syms[cls].kind == "class":
                    fi.self_attrs.setdefault(cls, {}).setdefault(b.name[5:], []).append(b)
                continue
            names.setdefault(b.scope, {}).setdefault(b.name, []).append((b.line, "bind", b))
        for r in f.returns:
            fi.returns.setdefault(r.scope, []).append(r)
        param_names = {n for ps in fi.params.values() for n in ps}
        for c in f.calls:
            # a plain name that is some function's parameter: a call of what it was passed
            if c.callee in param_names:
                owner = PythonProject._param_owner(fi, c.scope, c.callee)
                if owner is not None:
                    fi.param_calls.setdefault(owner, {}).setdefault(c.callee, set()).add(c.scope)
        for cands in names.values():
            for lst in cands.values():
                if len(lst) > 1:
                    lst.sort(key=_line_of)

    @staticmethod
    def _param_owner(fi: _FileIndex, scope: str, name: str) -> str | None:
        """The function whose parameter `name` is, seen from `scope` (closures included)."""
        s = scope
        while s:
            sym = fi.syms.get(s)
            if sym is None or sym.kind not in ("function", "method"):
                return None
            if name in fi.params.get(s, ()):
                return s
            if name in fi.names.get(s, ()):
                return None  # rebound locally
            s = fi.parent.get(s, "")
        return None

    # ------------------------------------------------------------------ names
    def _relative_base(self, fi: _FileIndex, level: int, module: str) -> str:
        pkg = fi.package
        for _ in range(level - 1):
            pkg = pkg.rpartition(".")[0]
        if module:
            return f"{pkg}.{module}" if pkg else module
        return pkg

    def module_entity(self, dotted: str) -> Entity:
        path = self.module_file.get(dotted)
        return ("mod", path) if path is not None else ("ext", dotted)

    def _import_base(self, fi: _FileIndex, imp) -> str:
        return self._relative_base(fi, imp.level, imp.module) if imp.level else imp.module

    def import_target(self, fi: _FileIndex, imp, follow: bool, depth: int):
        """What an import binds: a module, a definition (through re-exports) or an external.

        With `follow`, variables are followed to their values (for resolving uses);
        without, the imported symbol itself is the answer (for IMPORTS edges).
        """
        if not imp.name:
            if imp.alias:
                return self.module_entity(imp.module), "import"
            return self.module_entity(imp.module.split(".", 1)[0]), "import"
        base = self._import_base(fi, imp)
        sub = f"{base}.{imp.name}" if base else imp.name
        if sub in self.module_file:
            return ("mod", self.module_file[sub]), "import"
        base_path = self.module_file.get(base)
        if base_path is None:
            if imp.level:
                return None  # a relative import into nothing we index
            return ("ext", sub), "import"
        if depth > MAX_DEPTH:
            return self._cut()
        r = self.module_name_entity(base_path, imp.name, follow, depth + 1)
        if r is None:
            return None
        return r[0], "import" if r[1] == "scope" else weakest(r[1], "import")

    def module_name_entity(self, path: str, name: str, follow: bool, depth: int):
        """A top-level name of a module, as another module importing it sees it."""
        key = ("modname", path, name, follow)
        hit = self.memo.table.get(key, MISSING)
        if hit is not MISSING:
            return self.memo.hit(hit, None)  # a cycle of re-exports resolves to nothing
        cuts = self.memo.begin(key)
        fi = self.files[path]
        r = self._lookup_in_scope(fi, "", name, None, follow, depth)
        if r is None:
            r = self._star_lookup(fi, name, follow, depth)
        return self.memo.store(key, r, cuts)

    def _star_lookup(self, fi: _FileIndex, name: str, follow: bool, depth: int):
        """`name` bound by one of the module's `from m import *`."""
        for imp in fi.star_imports:
            target = self.module_file.get(self._import_base(fi, imp))
            if target is None or target == fi.path:
                continue
            exported = self.files[target].facts.extra.get("all")
            if name not in exported if exported is not None else name.startswith("_"):
                continue
            r = self.module_name_entity(target, name, follow, depth + 1)
            if r is not None:
                return r[0], "import" if r[1] == "scope" else weakest(r[1], "import")
        return None

    def _pick(self, cands: list, line: int | None) -> list:
        """The candidates of the binding in effect: the last at or before `line`, else the last.

        Several candidates on one line (`x: T = v`, a module variable and its value) are
        all returned, the most telling first (see _candidate_rank).
        """
        if len(cands) == 1:
            return cands  # in effect whatever the line
        chosen = None
        if line is not None:
            for c in cands:
                if c[0] <= line:
                    chosen = c
                else:
                    break
        if chosen is None:
            chosen = cands[-1]
        group = [c for c in cands if c[0] == chosen[0]]
        if len(group) > 1:
            group.sort(key=_candidate_rank)
        return group

    def _lookup_in_scope(
        self, fi: _FileIndex, scope: str, name: str, line: int | None, follow: bool, depth: int
    ):
        if depth > MAX_DEPTH:
            return self._cut()
        cands = fi.names.get(scope, _NO_NAMES).get(name)
        if cands:
            for c in self._pick(cands, line):
                r = self._candidate(fi, c, follow, depth)
                if r is not None:
                    return r
            # the name is bound here (so an outer scope does not see through), to a value we
            # cannot follow: the module variable when there is one, else an unknown
            for c in cands:
                if c[1] == "var":
                    return ("sym", fi.path, c[2]), "scope"
            return ("unknown", fi.path, scope, name), "scope"
        ps = fi.params.get(scope)
        if ps and name in ps:
            return self._param(fi, scope, name, depth)
        return None

    def _candidate(self, fi: _FileIndex, c, follow: bool, depth: int):
        kind = c[1]
        if kind == "def":
            return ("sym", fi.path, c[2]), "scope"
        if kind == "var":
            return ("sym", fi.path, c[2]), "scope"
        if kind == "import":
            return self.import_target(fi, c[2], follow, depth + 1)
        if not follow:
            return None  # a binding: the variable symbol (a later candidate) is the answer
        return self._binding_value(fi, c[2], depth + 1)

    def _binding_value(self, fi: _FileIndex, b, depth: int):
        key = ("bind", fi.path, id(b))
        hit = self.memo.table.get(key, MISSING)
        if hit is not MISSING:
            return self.memo.hit(hit, None)
        cuts = self.memo.begin(key)
        return self.memo.store(key, self._eval_binding(fi, b, depth), cuts)

    def _eval_binding(self, fi: _FileIndex, b, depth: int):
        value = b.value
        if value.startswith("ann:"):
            r = self.eval_type(fi, b.scope, value[4:], depth + 1)
            return (r, "local-type") if r is not None else None
        if value.startswith("enter:"):
            r = self.eval_chain(fi, b.scope, value[6:], b.line, depth + 1)
            ent = r[0] if r is not None else None
            if ent is not None and b.is_call:
                ent = self.call_result(ent, depth + 1)
            if ent is None or ent[0] != "inst":
                return None
            m = self.class_member(ent[1], ent[2], "__enter__", depth + 1)
            res = self.call_result(m[0], depth + 1) if m is not None else None
            return (res, weakest(r[1], "local-type")) if res is not None else None
        if value.startswith("iter:"):
            _, index, chain = value.split(":", 2)
            r = self.eval_chain(fi, b.scope, chain, b.line, depth + 1)
            if r is None:
                return None
            item = self.iter_item(r[0], int(index), depth + 1)
            return (item, weakest(r[1], "local-type")) if item is not None else None
        r = self.eval_chain(fi, b.scope, value, b.line, depth + 1)
        if r is None:
            return None
        ent, reason = r
        if b.is_call:
            res = self.call_result(ent, depth + 1)
            if res is None:
                return None
            return res, weakest(reason, "local-type")
        if ent == ("sym", fi.path, b.name):
            return None
        return ent, weakest(reason, "alias")

    def _param(self, fi: _FileIndex, scope: str, name: str, depth: int):
        idx, ann = fi.params[scope][name]
        s = fi.syms[scope]
        cls = fi.parent.get(scope, "")
        if idx == 0 and s.kind == "method" and "staticmethod" not in s.decorators:
            if "classmethod" in s.decorators or s.name in _CLASS_FIRST:
                return ("sym", fi.path, cls), "self"
            return ("inst", fi.path, cls, False), "self"
        if ann:
            r = self.eval_type(fi, scope, ann, depth + 1)
            if r is not None:
                return r, "local-type"
        return ("param", fi.path, scope, name), "scope"

    def lookup_name(self, fi: _FileIndex, scope: str, name: str, line: int | None, depth: int = 0):
        if depth > MAX_DEPTH:
            self._cut()  # every scope's lookup would be cut
        else:
            # _lookup_in_scope answers (not None) exactly where the name is bound or a parameter
            names, params = fi.names, fi.params
            if name in names.get(scope, _NO_NAMES) or name in params.get(scope, _NO_NAMES):
                return self._lookup_in_scope(fi, scope, name, line, True, depth)
            # then the enclosing functions and the module: a class body's names are not
            # visible in the functions nested in it (no cache: kept for the run, one held
            # 100 MB per 12K files, and emptied per file it still fragmented the heap)
            s = scope
            while s != "":
                s = fi.parent.get(s, "")
                if s:
                    sym = fi.syms.get(s)
                    if sym is not None and sym.kind == "class":
                        continue
                if name in names.get(s, _NO_NAMES) or name in params.get(s, _NO_NAMES):
                    return self._lookup_in_scope(fi, s, name, None, True, depth)
        r = self._star_lookup(fi, name, True, depth)
        if r is not None:
            return r
        if name in BUILTINS:
            return ("builtin", name), "scope"
        return None

    def _kind(self, ent: Entity) -> str | None:
        if ent[0] != "sym":
            return None
        s = self.files[ent[1]].syms.get(ent[2])
        return s.kind if s else None

    def enclosing_class(self, fi: _FileIndex, scope: str) -> str | None:
        s = scope
        while s:
            sym = fi.syms.get(s)
            if sym is not None and sym.kind == "class":
                return s
            s = fi.parent.get(s, "")
        return None

    # ------------------------------------------------------------------ chains
    def eval_chain(self, fi: _FileIndex, scope: str, chain: str, line: int | None, depth: int = 0):
        if not chain or chain.startswith("?"):
            return None
        if depth > MAX_DEPTH:
            return self._cut()
        steps = _parse_steps(chain)
        if steps is None:
            return None
        return self._eval_steps(fi, scope, steps, line, depth)

    def _eval_steps(self, fi, scope, steps, line, depth):
        name, suffix = steps[0]
        if name == "super" and suffix.startswith("()"):
            cls = self.enclosing_class(fi, scope)
            if cls is None:
                return None
            r = ("super", fi.path, cls), "super"
            suffix = suffix[2:]
        else:
            r = self.lookup_name(fi, scope, name, line, depth)
            if r is None:
                return None
        if suffix:
            r = self._apply_suffix(r[0], r[1], suffix, depth)
        for name, suffix in steps[1:]:
            if r is None:
                return None
            r = self.getattr(r[0], name, r[1], depth + 1)
            if r is not None and suffix:
                r = self._apply_suffix(r[0], r[1], suffix, depth)
        return r

    def _apply_suffix(self, ent, reason, suffix, depth):
        while suffix:
            if suffix.startswith("()"):
                ent = self.call_result(ent, depth + 1)
                reason = weakest(reason, "local-type")
            elif ent[0] == "sym" and self._kind(ent) == "class":
                pass  # a generic class specialised (`A[int]`) is still the class
            else:
                ent = self.subscript_item(ent, depth + 1)
                reason = weakest(reason, "local-type")
            if ent is None:
                return None
            suffix = suffix[2:]
        return ent, reason

    def class_member(self, path: str, cls: str, attr: str, depth: int):
        """(entity, found in a base, rule) of `attr` on class `cls` through its MRO, or None.

        Methods and nested classes are definitions; class attributes bound to a value
        (`response_class = Response`, `json: JSONProvider = ...`) are followed.
        """
        key = ("member", path, cls, attr)
        hit = self.memo.table.get(key, MISSING)
        if hit is not MISSING:
            return self.memo.hit(hit, None)
        cuts = self.memo.begin(key)
        out = None
        for i, (p, c) in enumerate(self.mro(path, cls)):
            cfi = self.files[p]
            local = cfi.members.get(c, {}).get(attr)
            if local is not None:
                out = ("sym", p, local), i > 0, "scope"
                break
            cands = cfi.names.get(c, {}).get(attr)
            if cands:
                for cand in self._pick(cands, None):
                    r = self._candidate(cfi, cand, True, depth + 1)
                    if r is not None:
                        out = r[0], i > 0, r[1]
                        break
                break  # bound here: a base's attribute of that name is shadowed
        return self.memo.store(key, out, cuts)

    def instance_attr(self, path: str, cls: str, attr: str, depth: int):
        """The value of `self.attr` set in a method of `cls` or of a base, or None."""
        key = ("iattr", path, cls, attr)
        hit = self.memo.table.get(key, MISSING)
        if hit is not MISSING:
            return self.memo.hit(hit, None)
        cuts = self.memo.begin(key)
        out = None
        for p, c in self.mro(path, cls):
            cfi = self.files[p]
            binds = cfi.self_attrs.get(c, {}).get(attr)
            if not binds:
                continue
            # the most telling binding first, then in source order (sorted is stable)
            for b in sorted(binds, key=lambda b: _candidate_rank((b.line, "bind", b))):
                r = self._binding_value(cfi, b, depth + 1)
                if r is not None:
                    out = r
                    break
            if out is not None:
                break
        return self.memo.store(key, out, cuts)

    def getattr(self, ent: Entity, attr: str, reason: str, depth: int):
        if depth > MAX_DEPTH:
            return self._cut()
        kind = ent[0]
        if kind == "mod":
            path = ent[1]
            fi = self.files[path]
            r = self.module_name_entity(path, attr, True, depth + 1)
            if r is not None:
                return r[0], weakest(reason, r[1])
            sub = f"{fi.module}.{attr}" if fi.module else attr
            if sub in self.module_file:
                return ("mod", self.module_file[sub]), reason
            return None
        if kind == "ext":
            return ("ext", f"{ent[1]}.{attr}"), reason
        if kind == "builtin":
            return ("builtin", f"{ent[1]}.{attr}"), reason
        if kind in ("seq", "tup"):
            return ("builtin", attr), reason
        if kind == "map":
            if attr in ("items", "keys", "values"):
                return ("view", ent[1], ent[2], ent[3], ent[4], attr), reason
            if attr in ("get", "pop", "setdefault"):
                return ("view", ent[1], ent[2], ent[3], ent[4], "get"), reason
            return ("builtin", attr), reason
        if kind == "super":
            for i, (p, c) in enumerate(self.mro(ent[1], ent[2])):
                if i == 0:
                    continue
                local = self.files[p].members.get(c, {}).get(attr)
                if local is not None:
                    return ("sym", p, local), reason
            return None
        if kind == "inst":
            path, local = ent[1], ent[2]
            if attr == "__class__":
                return ("sym", path, local), reason
            r = self.class_member(path, local, attr, depth + 1)
            if r is not None:
                if self._is_property(r[0]):  # reading it runs the getter
                    value = self.call_result(r[0], depth + 1)
                    if value is None:
                        return ("unknown", path, local, attr), reason
                    return value, weakest(_member_rule(reason, r), "local-type")
                return r[0], _member_rule(reason, r)
            r = self.instance_attr(path, local, attr, depth + 1)
            if r is not None:
                return r[0], weakest(reason, r[1])
            return None
        if kind == "sym":
            path, local = ent[1], ent[2]
            sym = self.files[path].syms.get(local)
            if sym is None or sym.kind != "class":
                return None
            r = self.class_member(path, local, attr, depth + 1)
            if r is not None:
                return r[0], _member_rule(reason, r)
            return None
        return None

    def _is_property(self, ent: Entity) -> bool:
        if ent[0] != "sym":
            return False
        sym = self.files[ent[1]].syms.get(ent[2])
        return (
            sym is not None
            and sym.kind == "method"
            and any(d == "property" or d.endswith("cached_property") for d in sym.decorators)
        )

    def call_result(self, ent: Entity, depth: int) -> Entity | None:
        """The value of calling `ent`: an instance for a class, what a function returns."""
        if depth > MAX_DEPTH:
            return self._cut()
        kind = ent[0]
        if kind == "view":
            _, path, scope, k, v, m = ent
            if m == "items":
                return ("seq", path, scope, f"tuple[{k},{v}]")
            if m == "keys":
                return ("seq", path, scope, k)
            if m == "values":
                return ("seq", path, scope, v)
            return self.eval_type(self.files[path], scope, v, depth + 1)
        if kind == "inst":
            m = self.class_member(ent[1], ent[2], "__call__", depth + 1)
            return self.call_result(m[0], depth + 1) if m is not None else None
        if kind != "sym":
            return None
        key = ("result", ent)
        hit = self.memo.table.get(key, MISSING)
        if hit is not MISSING:
            return self.memo.hit(hit, None)
        cuts = self.memo.begin(key)
        out = None
        fi = self.files[ent[1]]
        sym = fi.syms.get(ent[2])
        if sym is not None and sym.kind == "class":
            out = ("inst", ent[1], ent[2], True)
        elif sym is not None and sym.kind in ("function", "method"):
            rets = fi.returns.get(ent[2], ())
            # the declared return type first: it names what every caller may get
            for r in sorted(rets, key=lambda r: not r.value.startswith("ann:")):
                if r.value.startswith("ann:"):
                    val = self.eval_type(fi, r.scope, r.value[4:], depth + 1)
                else:
                    res = self.eval_chain(fi, r.scope, r.value, None, depth + 1)
                    val = res[0] if res is not None else None
                    if val is not None and r.is_call:
                        val = self.call_result(val, depth + 1)
                if val is not None and val[0] in ("inst", "sym", "seq", "map", "tup"):
                    out = val
                    break
        return self.memo.store(key, out, cuts)

    def subscript_item(self, ent: Entity, depth: int) -> Entity | None:
        """`x[...]`: an item of a declared container; a generic class (`A[int]`) is the class."""
        kind = ent[0]
        if kind == "seq":
            return self.eval_type(self.files[ent[1]], ent[2], ent[3], depth + 1)
        if kind == "map":
            return self.eval_type(self.files[ent[1]], ent[2], ent[4], depth + 1)
        if kind == "sym" and self._kind(ent) == "class":
            return ent
        if kind == "inst":
            m = self.class_member(ent[1], ent[2], "__getitem__", depth + 1)
            return self.call_result(m[0], depth + 1) if m is not None else None
        return None

    def iter_item(self, ent: Entity, index: int, depth: int) -> Entity | None:
        """An element of `for x in ent` (index >= 0: position in a tuple target)."""
        kind = ent[0]
        item = None
        if kind == "seq" or kind == "map":
            item = ("type", ent[1], ent[2], ent[3])
        elif kind == "inst":
            m = self.class_member(ent[1], ent[2], "__iter__", depth + 1)
            if m is not None:
                it = self.call_result(m[0], depth + 1)
                if it is not None and it[0] == "seq":
                    item = ("type", it[1], it[2], it[3])
        if item is None:
            return None
        _, path, scope, text = item
        fi = self.files[path]
        if index < 0:
            return self.eval_type(fi, scope, text, depth + 1)
        tup = self.eval_type(fi, scope, text, depth + 1)
        if tup is not None and tup[0] == "tup" and index < len(tup[3]):
            return self.eval_type(self.files[tup[1]], tup[2], tup[3][index], depth + 1)
        return None

    def eval_type(self, fi: _FileIndex, scope: str, text: str, depth: int) -> Entity | None:
        """What a value of declared type TEXT is: an instance, a class, a typed container."""
        if not text:
            return None
        if depth > MAX_DEPTH:
            return self._cut()
        key = ("type", fi.path, scope, text)
        hit = self.memo.table.get(key, MISSING)
        if hit is not MISSING:
            return self.memo.hit(hit, None)
        cuts = self.memo.begin(key)
        return self.memo.store(key, self._eval_type(fi, scope, text, depth), cuts)

    def _eval_type(self, fi, scope, text, depth):
        arms = [a for a in _split_top(text, "|") if a and a != "None"]
        if len(arms) != 1:
            for a in arms:
                r = self.eval_type(fi, scope, a, depth + 1)
                if r is not None:
                    return r
            return None
        text = arms[0]
        head, args = text, []
        if text.endswith("]") and "[" in text:
            i = text.index("[")
            head, args = text[:i], _split_top(text[i + 1 : -1], ",")
        last = head.rpartition(".")[2]
        if args:
            if last in _UNWRAP or last == "Union":
                arms = args if last == "Union" else args[:1]
                for a in arms:
                    if a != "None":
                        r = self.eval_type(fi, scope, a, depth + 1)
                        if r is not None:
                            return r
                return None
            if last in _TYPE:
                r = self.eval_type(fi, scope, args[0], depth + 1)
                if r is not None and r[0] == "inst":
                    return ("sym", r[1], r[2])
                return None
            if last in _SEQ:
                return ("seq", fi.path, scope, args[0])
            if last in _MAP:
                return ("map", fi.path, scope, args[0], args[-1]) if len(args) >= 2 else None
            if last in ("tuple", "Tuple"):
                if len(args) == 2 and args[1] == "...":
                    return ("seq", fi.path, scope, args[0])
                return ("tup", fi.path, scope, tuple(args))
        r = self.eval_chain(fi, scope, head, None, depth + 1)
        if r is None:
            return None
        ent = r[0]
        if ent[0] == "sym" and self._kind(ent) == "class":
            return ("inst", ent[1], ent[2], False)
        return None

    # ------------------------------------------------------------------ classes
    def bases(self, path: str, local: str) -> list[tuple[str, str]]:
        return list(self._bases(path, local))

    def _bases(self, path: str, local: str) -> tuple[tuple[str, str], ...]:
        return self._bases_info(path, local)[0]

    def has_unknown_base(self, path: str, local: str) -> bool:
        """A base of this class is outside the repository or unresolved."""
        return self._bases_info(path, local)[1]

    def _bases_info(self, path: str, local: str) -> tuple[tuple[tuple[str, str], ...], bool]:
        key = ("bases", path, local)
        hit = self.memo.table.get(key, MISSING)
        if hit is not MISSING:
            return self.memo.hit(hit, ((), False))
        cuts = self.memo.begin(key)
        fi = self.files[path]
        out = []
        unknown = False
        scope = fi.parent.get(local, "")
        for h in fi.facts.heritage:
            if h.scope != local:
                continue
            r = self.eval_chain(fi, scope, h.base, h.line, 0)
            if r is not None and r[0][0] == "sym" and self._kind(r[0]) == "class":
                k = (r[0][1], r[0][2])
                if k != (path, local):
                    out.append(k)
            elif h.base not in ("object", "Generic", "t.Generic", "typing.Generic"):
                unknown = True
        return self.memo.store(key, (tuple(out), unknown), cuts)

    def mro(self, path: str, local: str) -> tuple[tuple[str, str], ...]:
        key = ("mro", path, local)
        hit = self.memo.table.get(key, MISSING)
        if hit is not MISSING:
            return self.memo.hit(hit, ((path, local),))  # a cycle of bases stops here
        cuts = self.memo.begin(key)
        return self.memo.store(key, self._c3(path, local), cuts)

    def _c3(self, path: str, local: str) -> tuple[tuple[str, str], ...]:
        """C3 over the bases we can resolve (engine/hierarchy.py)."""
        return c3((path, local), self._bases(path, local), lambda b: self.mro(*b))

    def descendants(self, path: str, cls: str) -> tuple[tuple[str, str], ...]:
        """Every subclass of `cls` in the repository, transitively, in a stable order."""
        return self.memo.cached(
            ("descendants", path, cls),
            lambda: tuple(sorted(descendants((path, cls), lambda k: self.subclasses.get(k, ())))),
        )

    def overrides(self, path: str, cls: str, name: str) -> list[tuple[str, str]]:
        """Definitions of method `name` in the subclasses of `cls`, transitively."""
        if (path, cls) not in self.subclasses:
            return []
        key = ("overrides", path, cls, name)
        out = self.memo.table.get(key)
        if out is None:
            out = []
            for p, members, fi in self._descendant_members(path, cls):
                m = members.get(name)
                if m is not None and fi.syms[m].kind == "method":
                    out.append((p, m))
            self.memo.table[key] = out
        return out

    def _descendant_members(self, path: str, cls: str) -> tuple[tuple[str, dict, _FileIndex], ...]:
        """(path, members, file index) of the descendants of `cls` that define members, in
        `descendants` order: a base of many classes (a model, a test case) is asked for many
        names. (One dict of every name over its descendants was faster still, but on a tree
        of 18 Django copies, whose test cases all subclass one TestCase, it held 450 MB.)"""
        key = ("members below", path, cls)
        found = self.memo.table.get(key)
        if found is None:
            below = []
            for p, c in self.descendants(path, cls):
                fi = self.files[p]
                members = fi.members.get(c)
                if members:
                    below.append((p, members, fi))
            found = self.memo.table[key] = tuple(below)
        return found

    # ------------------------------------------------------------------ output
    def module_names(self) -> dict[str, str]:
        """path -> its dotted module: what its resolution depends on that no name written in
        it says (a moved file, a new `__init__.py`). Changes to the class hierarchy are
        reported by name instead (`hierarchy_changes`)."""
        return {p: self._summary[p][0] for p in self.paths}

    def hierarchy_changes(self, before: dict[str, tuple]) -> tuple[set[str], set[str]]:
        """(value names, edge names) whose lookups may resolve differently because the class
        hierarchy changed since `before` (the previous run's summaries).

        A lookup walks the bases of classes the caller never names (`Child().m()` finds m
        in a base of a base) and finds `__init__`, `__call__`, `__getitem__`, `__iter__`
        and `__enter__`, names no call site spells. But it reaches a class only by a name:
        the class's own, or one that returns or holds an instance of it (the change plan
        follows those). So for every class whose bases, unknown bases or implicit members
        changed (or that came or went), the value names are its name and those of its
        subclasses, old and new (whose MROs changed), and the edge names the methods of
        all of these (dispatch and unique-name look at who defines a method name).
        """
        paths = set(self._fresh) | (before.keys() - self._summary.keys())
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

    def qualified(self, fi: _FileIndex, local: str) -> str:
        if not local:
            return fi.module
        return f"{fi.module}.{strip_dup(local)}" if fi.module else strip_dup(local)

    def ent_uid(self, ent: Entity) -> str | None:
        k = ent[0]
        if k == "sym" or k == "inst":
            return self.uid(ent[1], ent[2])
        if k == "mod":
            return self.uid(ent[1], "")
        if k == "ext":
            return external_uid(ent[1])
        return None

    def module_symbol_name(self, fi: _FileIndex) -> str:
        return fi.module.rpartition(".")[2] if fi.module else PurePosixPath(fi.path).stem

    def file_edges(self, fi: _FileIndex, edges: Edges) -> None:
        path, f = fi.path, fi.facts
        module_uid = self.uid(path, "")
        for imp in f.imports:
            if imp.name == "*":
                base = self._import_base(fi, imp)
                target = self.module_entity(base) if base else None
            elif not imp.name and not imp.alias:
                target = self.module_entity(imp.module)  # `import a.b` depends on a.b
            else:
                r = self.import_target(fi, imp, False, 0)
                target = r[0] if r else None
            if target is None:
                continue
            dst = self.ent_uid(target)
            if dst is not None and dst != module_uid:
                edges.add("IMPORTS", module_uid, dst, "import", imp.line)

        for h in f.heritage:
            r = self.eval_chain(fi, fi.parent.get(h.scope, ""), h.base, h.line)
            if r is None:
                continue
            ent, reason = r
            if ent[0] == "sym" and self._kind(ent) == "class" or ent[0] == "ext":
                edges.add("EXTENDS", self.uid(path, h.scope), self.ent_uid(ent), reason, h.line)

        for ref in f.references:
            r = self.eval_chain(fi, ref.scope, ref.target, ref.line)
            if r is None or r[0][0] != "sym":
                continue
            ent, reason = r
            if self._kind(ent) in ("class", "function", "method"):
                src = self.uid(path, ref.scope)
                dst = self.ent_uid(ent)
                if src != dst:
                    edges.add("REFERENCES", src, dst, reason, ref.line)

    def resolve_call(self, fi: _FileIndex, index: int, call, edges: Edges,
                     out: ResolvedFile) -> None:  # fmt: skip
        try:
            self._resolve_call(fi, call, edges, out)
        except RecursionError:  # an absurdly deep chain: unresolved, not a crash
            self.memo.clear()  # entries left busy would read as cycles
            last = call.callee.rpartition(".")[2]
            out.unresolved.append(Unresolved(self.uid(fi.path, call.scope), last, call.line))

    # ------------------------------------------------------------------ calls
    def _resolve_call(self, fi: _FileIndex, call, edges: Edges, out: ResolvedFile) -> None:
        src = self.uid(fi.path, call.scope)
        if call.kind == "decorator" and call.scope:
            # a decorator runs where the definition stands: its names are the enclosing scope's
            call = call._replace(scope=fi.parent.get(call.scope, ""))
        steps = _parse_steps(call.callee) if not call.callee.startswith("?") else None
        if steps is None:
            last = call.callee.rpartition(".")[2].split("(", 1)[0].split("[", 1)[0]
            out.unresolved.append(Unresolved(src, last, call.line))
            return
        last = steps[-1][0]  # the last name, without its suffixes
        receiver = None
        if len(steps) > 1 and not steps[-1][1]:
            # a method call: resolve the receiver, then the method on it (with dispatch)
            receiver = self._eval_steps(fi, call.scope, steps[:-1], call.line, 0)
            r = None
            if receiver is not None:
                r = self.getattr(receiver[0], last, receiver[1], 1)
        else:
            r = self._eval_steps(fi, call.scope, steps, call.line, 0)
        if r is None:
            if receiver is not None and self._dispatch_only(receiver, last, edges, src, call.line):
                return
            if receiver is None or receiver[0][0] in ("param", "unknown"):
                if len(steps) > 1 and self._unique_name(last, edges, src, call.line):
                    return
            out.unresolved.append(Unresolved(src, last, call.line))
            return
        ent, reason = r
        k = ent[0]
        if k == "builtin" or k == "view":
            out.calls_builtin += 1
            return
        if k == "ext":
            edges.call(src, external_uid(ent[1]), reason, call.line)
            return
        if k == "inst":
            m = self.class_member(ent[1], ent[2], "__call__", 0)
            ent = m[0] if m is not None else ent
        skind = self._kind(ent) if ent[0] == "sym" else None
        if skind is None or skind == "variable":
            out.unresolved.append(Unresolved(src, last, call.line))
            return
        edges.call(src, self.ent_uid(ent), reason, call.line)
        if skind == "class":
            init = self.class_member(ent[1], ent[2], "__init__", 0)
            if init is not None and init[0][0] == "sym" and self._kind(init[0]) == "method":
                edges.call(src, self.ent_uid(init[0]), "constructor", call.line)
        elif skind == "method" and receiver is not None:
            self._dispatch(receiver, ent, last, edges, src, call.line)
        if call.args:
            self._value_flow(fi, call, ent, skind, edges, src)

    @staticmethod
    def _polymorphic(receiver) -> tuple[str, str] | None:
        """The static class of a receiver whose runtime class may be a subclass."""
        ent, reason = receiver
        if ent[0] == "inst" and not ent[3]:
            return ent[1], ent[2]
        if ent[0] == "sym" and reason == "self":  # cls in a classmethod
            return ent[1], ent[2]
        return None

    def _dispatch(self, receiver, ent, name, edges, src, line) -> None:
        """A method called on a receiver of static class C may run an override in a subclass."""
        cls = self._polymorphic(receiver)
        if cls is None:
            return
        found = self.overrides(cls[0], cls[1], name)
        edges.dispatch(src, (self.uid(p, m) for p, m in found if (p, m) != (ent[1], ent[2])), line)

    def _dispatch_only(self, receiver, name, edges, src, line) -> bool:
        """C has no `name`, but subclasses define it (an abstract base, a mixin)."""
        cls = self._polymorphic(receiver)
        if cls is None:
            return False
        found = self.overrides(cls[0], cls[1], name)
        edges.dispatch(src, (self.uid(p, m) for p, m in found), line)
        return bool(found)

    def _unique_name(self, name: str, edges, src, line) -> bool:
        """Receiver unknown: the only method of that name in the repository, at 0.5.

        Not for names that builtin types or common libraries also have, capitalised
        names or properties, and not when the one definition overrides a method of a
        base we cannot see (its name is then part of an outside API, which the unknown
        receiver more likely is).
        """
        if name.startswith("__") or name[:1].isupper():  # x.Name() constructs a class, likelier
            return False
        found = unique_definition(self.methods_by_name, name, _COMMON_METHODS)
        if found is None:
            return False
        p, local = found
        if self._is_property(("sym", p, local)):  # its value is called, not the getter
            return False
        cls = self.files[p].parent.get(local, "")
        if any(self.has_unknown_base(cp, c) for cp, c in self.mro(p, cls)):
            return False
        edges.call(src, self.uid(p, local), "unique-name", line)
        return True

    def _value_flow(self, fi, call, ent, skind, edges, src) -> None:
        """Functions passed as arguments: a reference from the caller, a call from the callee."""
        target = ent
        if skind == "class":
            init = self.class_member(ent[1], ent[2], "__init__", 0)
            if init is None or init[0][0] != "sym":
                return
            target = init[0]
        tfi = self.files[target[1]]
        target_local = target[2]
        params = tfi.params.get(target_local, {})
        called = tfi.param_calls.get(target_local, {})
        tsym = tfi.syms.get(target_local)
        bound = (
            tsym is not None
            and tsym.kind == "method"
            and "staticmethod" not in tsym.decorators
            and (skind == "class" or "." in call.callee)
        )
        shift = 1 if bound else 0
        for key, chain in call.args:
            r = self.eval_chain(fi, call.scope, chain, call.line)
            if r is None or r[0][0] != "sym":
                continue
            vk = self._kind(r[0])
            if vk not in ("function", "method", "class"):
                continue
            dst = self.ent_uid(r[0])
            edges.add("REFERENCES", src, dst, "value-flow", call.line)
            if isinstance(key, str):
                pname = key
            else:  # a position: the parameter there, past `self` when the call binds it
                pname = next((n for n, (i, _) in params.items() if i - shift == key), None)
            for caller in sorted(called.get(pname, ())) if pname is not None else ():
                caller_uid = self.uid(target[1], caller)
                if caller_uid != dst:
                    edges.call(caller_uid, dst, "value-flow", call.line)


def _class_entries(summaries: dict[str, tuple], paths) -> dict[tuple[str, str], tuple]:
    """(path, class) -> (bases, unknown base, implicit members) over the given files."""
    return {
        (path, local): (bases, unknown, tuple(implicit))
        for path in paths
        if path in summaries
        for local, bases, unknown, implicit, _clean in summaries[path][2]
    }


def _line_of(candidate: tuple) -> int:
    return candidate[0]


def _member_rule(reason: str, member: tuple) -> str:
    """The rule of `obj.attr` found by class_member: the weakest step, `inheritance` when the
    attribute comes from a base (it says more than the equally confident `self`)."""
    _, in_base, rule = member
    reason = weakest(reason, rule)
    if in_base and CONFIDENCE[reason] >= CONFIDENCE["inheritance"]:
        return "inheritance"
    return reason


def _candidate_rank(c) -> int:
    """Order of the candidates bound on one line, most telling first.

    `x: type[Base] = Impl` holds Impl (an alias names the very definition), while
    `x: Base = make()` holds some Base (the declared type also covers subclasses,
    which a call result typed by its own return would not).
    """
    kind = c[1]
    if kind == "bind":
        b = c[2]
        if b.value.startswith("ann:"):
            return 1
        return 3 if b.is_call or b.value.startswith("iter:") else 0
    if kind == "var":
        return 4
    return 2
