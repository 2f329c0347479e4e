"""Python names: imports, scopes, bindings and parameters (a mixin of PythonProject).

A name is looked up the way Python does it: local, enclosing functions, module (star
imports included), builtins; class bodies are not enclosing scopes. What a binding holds
is evaluated through values.py.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from codeimpact.indexer.lang.api import SymbolFact, native_core
from codeimpact.indexer.lang.engine.imports import (
    MODULE,
    UNBOUND,
    exported,
    through_reexports,
    via_import,
)
from codeimpact.indexer.lang.engine.memo import BUSY, MISSING
from codeimpact.indexer.lang.engine.rules import CONFIDENCE, weakest
from codeimpact.indexer.lang.engine.scopes import first
from codeimpact.indexer.lang.engine.values import ALTS, alternatives
from codeimpact.indexer.lang.python.containers import CONTAINER_KINDS
from codeimpact.indexer.lang.python.index import (
    BUILTINS,
    CLASS_FIRST,
    MAX_DEPTH,
    NO_NAMES,
    Entity,
    FileIndex,
    candidate_rank,
)

# Binding values of containers and unpacking (lang/python/items.py): their forms' names.
_CONTAINER_FORMS = frozenset(("lit", "item", "at", "key"))
# The binding forms evaluated from their chain's first step whose element or item of an
# unknown value is nothing (`null_cycle`), and what may follow a chain's head: its end, a
# member, a call, a subscript.
_NULL_FORMS = ("iter:", "at:")
_CHAIN_END = frozenset(("", ".", "(", "["))
# (a binding evaluated deeper than this may meet the depth bound on its cycle: `null_cycle`
# is not applied there)
_NULL_CYCLE_DEPTH, _NULL_CYCLE_BINDINGS = MAX_DEPTH // 2, 16
# The callables whose literal argument names the module they return (Names._imported_module).
_IMPORT_MODULE = ("ext", "importlib.import_module")
_DUNDER_IMPORT = ("builtin", "__import__")
# A class body's names are not visible in the functions nested in it.
_CLASS_BODY = frozenset(("class",))
# a parameter's default that names something (`def run(cb=fallback)`), in a signature
_DEFAULT = re.compile(r"[(,]\s*([A-Za-z_]\w*)\s*=\s*([A-Za-z_][\w.]*)\s*(?=[,)])")
_CONSTANTS = frozenset(("None", "True", "False"))
_DEFAULT_KINDS = frozenset(("function", "method", "class"))
# engine/imports.py via_import's bar: a binding reached through an import is an `import` step
_IMPORT_CONFIDENCE = CONFIDENCE["import"]
_LOCAL_TYPE_CONFIDENCE = CONFIDENCE["local-type"]
_ALIAS_CONFIDENCE = CONFIDENCE["alias"]


def _from_own_name(b) -> int | None:
    """The line at which binding `b`'s evaluation looks up its own name, first of anything,
    when it does and holds nothing if that name is unknown: a plain chain from the name with
    a member, call or subscript after it, or an `iter:` or `at:` form of a chain from the
    name (the element or item of an unknown value); else None."""
    value, name = b.value, b.name
    line = b.line - 1  # (a plain value is evaluated before its own statement binds)
    if ":" in value:
        if not value.startswith(_NULL_FORMS):
            return None
        value = value.split(":", 2)[2]
        line = b.line
    elif value == name and not b.is_call:
        return None  # (`x = x` holds the unknown value itself)
    elif b.is_call and value.endswith(".getfixturevalue"):
        return None
    if not value.startswith(name) or value[len(name) : len(name) + 1] not in _CHAIN_END:
        return None
    return line


def null_cycle(fi: FileIndex, b) -> bool:
    """Whether binding `b` holds nothing because it reads its own name through a cycle of
    bindings of that name (Django's Field.deconstruct: seven `path = path.replace(...)`, the
    first looked up before any, which takes the last): each binding on the way is one of
    the scope's bindings of the name (no import, definition or variable), evaluated from the
    name's lookup first (`_from_own_name`), which picks one binding (`_pick`). Wherever that
    cycle is entered, its lookup meets a binding being evaluated, answers the name's unknown
    value, and so each binding holds nothing: the same in every order, without the cut
    (which left every lookup above it unkept, made again at each ask: 1.4K of the 2.2K
    cuts at bindings of a Django resolution, every deconstruct() result among them)."""
    cands = fi.names.get(b.scope, NO_NAMES).get(b.name)
    if not cands or len(cands) > _NULL_CYCLE_BINDINGS:
        return False
    for c in cands:
        if c[1] != "bind":
            return False
    seen: set = set()
    k = b
    while id(k) not in seen:
        seen.add(id(k))
        line = _from_own_name(k)
        if line is None:
            return False
        if len(cands) == 1:
            k = cands[0][2]
            continue
        i = bisect_right(cands, line, key=first) or len(cands)  # (Names._pick's)
        if i > 1 and cands[i - 2][0] == cands[i - 1][0]:
            return False  # (several on that line: not one binding)
        k = cands[i - 1][2]
    return True


class Names:
    """Lookups of names in a file's scopes and across its imports."""

    def _relative_base(self, fi: FileIndex, level: int, module: str) -> str:
        pkg = fi.package
        for _ in range(level - 1):
            pkg = pkg.rpartition(".")[0]
        if module:
            return f"{pkg}.{module}" if pkg else module
        return pkg

    def module_entity(self, dotted: str) -> Entity:
        path = self.module_file.get(dotted)
        return ("mod", path) if path is not None else ("ext", dotted)

    def _import_base(self, fi: FileIndex, imp) -> str:
        return self._relative_base(fi, imp.level, imp.module) if imp.level else imp.module

    def import_target(self, fi: FileIndex, imp, follow: bool, depth: int):
        """What an import binds: a module, a definition (through re-exports) or an external.

        With `follow`, variables are followed to their values (for resolving uses);
        without, the imported symbol itself is the answer (for IMPORTS edges).
        """
        if not imp.name:
            if imp.alias:
                return self.module_entity(imp.module), "import"
            return self.module_entity(imp.module.split(".", 1)[0]), "import"
        # (_import_base and via_import written out: two frames per import followed, ~56K
        # per Django)
        base = self._relative_base(fi, imp.level, imp.module) if imp.level else imp.module
        sub = f"{base}.{imp.name}" if base else imp.name
        module_file = self.module_file
        if sub in module_file:
            return ("mod", module_file[sub]), "import"
        base_path = module_file.get(base)
        if base_path is None:
            if imp.level:
                return None  # a relative import into nothing we index
            return ("ext", sub), "import"
        if depth > MAX_DEPTH:
            return self._cut()
        # (module_name_entity written out, the memo's entry read first: two frames per
        # import followed, 25K per Django)
        key = ("modname", base_path, imp.name, follow)
        found = self.memo.table.get(key, MISSING)
        if found is MISSING or found is BUSY:
            found = exported(self, key, (base_path, follow), imp.name, depth + 1)
        if found is None:
            return None
        ent, reason = found
        return ent, "import" if CONFIDENCE[reason] >= _IMPORT_CONFIDENCE else reason

    def module_name_entity(self, path: str, name: str, follow: bool, depth: int):
        """A top-level name of a module, as another module importing it sees it (the
        engine's walk, engine/imports.py: a module here is (path, follow))."""
        return exported(self, ("modname", path, name, follow), (path, follow), name, depth)

    # the engine's export walk: its hooks
    def exported(self, module: tuple[str, bool], name: str, depth: int):
        return self.module_name_entity(module[0], name, module[1], depth)

    def own_binding(self, module: tuple[str, bool], name: str, depth: int):
        path, follow = module
        r = self._lookup_in_scope(self.files[path], "", name, None, follow, depth)
        return UNBOUND if r is None else r

    def reexports(self, module: tuple[str, bool], name: str):
        # `from m import *`, last first: a later star import rebinds the names of an earlier one
        return reversed(self.files[module[0]].star_imports)

    def reexport_target(self, module: tuple[str, bool], imp, name: str, depth: int):
        path, follow = module
        fi = self.files[path]
        target = self.module_file.get(self._import_base(fi, imp))
        if target is None or target == path:
            return None
        exported_names = self.files[target].facts.extra.get("all")
        if name not in exported_names if exported_names is not None else name.startswith("_"):
            return None
        return MODULE, (target, follow)

    via_reexport = staticmethod(via_import)

    def _pick(self, cands: list, line: int | None) -> list:
        """The candidates of the binding in effect: the last at or before `line`, else the last.

        Several candidates on one line (`x: T = v`, a module variable and its value) are
        all returned, the most telling first (see candidate_rank).
        """
        n = len(cands)
        if n == 1:
            return cands  # in effect whatever the line
        # (engine/scopes.py in_effect written out, a frame per pick, 23K per Django; the
        # candidates are in line order, so the ones on the chosen line are the run ending
        # at it: no walk of all of them)
        i = bisect_right(cands, line, key=first) if line is not None else 0
        if not i:
            i = n
        at = cands[i - 1][0]
        j = i - 1
        while j and cands[j - 1][0] == at:
            j -= 1
        group = cands[j:i]
        if i - j > 1:
            group.sort(key=candidate_rank)
        return group

    def _lookup_in_scope_py(self, fi: FileIndex, scope: str, name: str, line: int | None,
                            follow: bool, depth: int, cands: list | None = None):  # fmt: skip
        """`name` in `scope` alone: its bindings there (`cands`, when the caller read them),
        else its parameter; None when neither. `_lookup_in_scope` is this method in C
        (native/core_lookup.c) where the extension has it."""
        if depth > MAX_DEPTH:
            return self._cut()
        if cands is None:
            cands = fi.names.get(scope, NO_NAMES).get(name)
        if cands:
            picked = cands if len(cands) == 1 else self._pick(cands, line)  # (most: one)
            if follow and picked[0][1] == "import" and len(cands) > 1:
                alt = fi.facts.extra.get("alt_imports")
                if alt and picked[0][0] in alt:
                    r = self._alternative_imports(fi, cands, alt, line, depth)
                    if r is not None:
                        return r
            for c in picked:  # (_candidate written out: a frame per candidate, 70K per Django)
                kind = c[1]
                if kind == "def" or kind == "var":
                    return ("sym", fi.path, c[2]), "scope"
                if kind == "import":
                    r = self.import_target(fi, c[2], follow, depth + 1)
                elif follow:
                    r = self._binding_value(fi, c[2], depth + 1)
                else:
                    continue  # a binding: the variable symbol (a later candidate) answers
                if r is not None:
                    return r
            if follow and picked[0][1] == "bind":
                # (":" first: str.startswith is a slow call in CPython 3.11, its arguments
                # parsed per call, and most bindings hold a plain chain)
                value = picked[0][2].value
                if ":" in value and value.startswith("key:"):
                    r = self._before_item_read(fi, cands, picked, line, depth)
                    if r is not None:
                        return r
            # the name is bound here (so an outer scope does not see through), to a value we
            # cannot follow: the module variable when there is one, else an unknown
            for c in cands:
                if c[1] == "var":
                    return ("sym", fi.path, c[2]), "scope"
            return ("unknown", fi.path, scope, name), "scope"
        ps = fi.params.get(scope)
        if ps and name in ps:  # (a parameter's value: lookup_name's, the same at any line)
            return self.lookup_name(fi, scope, name, line, depth)
        return None

    _lookup_in_scope = _lookup_in_scope_py  # (native/core_lookup.c's where it is: below)

    def _before_item_read(self, fi: FileIndex, cands: list, picked: list, line, depth: int):
        """An item read we cannot follow (`node = node.children[0]`, the items stored from a
        parameter): the name's binding before it, as when such reads bound nothing."""
        while picked[0][1] == "bind" and picked[0][2].value.startswith("key:"):
            cands = [c for c in cands if c[0] < picked[0][0]]
            if not cands:
                return None
            picked = self._pick(cands, line)
            for c in picked:
                r = self._candidate(fi, c, True, depth)
                if r is not None:
                    return r
        return None

    def _alternative_imports(self, fi: FileIndex, cands: list, alt: list, line, depth: int):
        """A name imported in two branches of a try/except ImportError or an if/else
        (extra["alt_imports"]): either import may be the one that ran, so the name holds one
        of their values, by the rule `value-flow` at most (which one runs depends on the
        environment). Only the imports before `line` when there is one."""
        found, rule = [], "import"
        for c in cands:
            if c[1] == "import" and c[0] in alt and (line is None or c[0] <= line):
                r = self._candidate(fi, c, True, depth)
                if r is not None:
                    found.append(r[0])
                    rule = weakest(rule, r[1])
        ent = alternatives(found)
        if ent is None:
            return None
        return ent, weakest(rule, "value-flow") if ent[0] == ALTS else rule

    def _candidate(self, fi: FileIndex, c, follow: bool, depth: int):
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

    def _binding_value(self, fi: FileIndex, b, depth: int):
        """(entity, rule) of what binding `b` holds, None when it cannot be followed; kept
        while the file is resolved (the memo's `per_file` table under ("bind", path, id(b)):
        engine/memo.py's protocol written out here: the wrapper and the function were two
        frames per binding evaluated, 46K per Django)."""
        memo = self.memo
        key = ("bind", fi.path, id(b))
        table = memo.file_table
        hit = table.get(key, MISSING)
        if hit is not MISSING:
            if hit is BUSY:
                memo.cuts += 1
                return None
            return hit
        table[key] = BUSY
        cuts = memo.cuts
        try:
            value = b.value
            # a form (`ann:T`, `iter:N:chain`, ...); a plain chain holds no ":" (the forms
            # written in here: a frame per binding of a form, 13K per Django)
            if b.name in value and depth < _NULL_CYCLE_DEPTH and null_cycle(fi, b):
                out = None
            elif ":" not in value:
                out = MISSING
            else:
                # (the form's name, not a str.startswith per form: a slow call in CPython
                # 3.11, its arguments parsed per call)
                form = value.partition(":")[0]
                if form == "ann":
                    r = self.eval_type(fi, b.scope, value[4:], depth + 1)
                    out = (r, "local-type") if r is not None else None
                elif form == "enter" or form == "aenter":
                    r = self.entered(fi, b, depth + 1)
                    if r is None:
                        out = self.raised_info(fi, b, depth + 1) if b.is_call else None
                    else:
                        m = self.class_member(r[0][1], r[0][2], r[2][0], depth + 1)
                        res = self.call_result(m[0], depth + 1) if m is not None else None
                        out = (res, weakest(r[1], "local-type")) if res is not None else None
                elif form == "iter":
                    _, index, chain = value.split(":", 2)
                    r = self.eval_chain(fi, b.scope, chain, b.line, depth + 1)
                    item = self.iter_item(r[0], int(index), depth + 1) if r is not None else None
                    if item is None:
                        out = None
                    else:  # one of a container's items: which one is not followed
                        rule = "value-flow" if r[0][0] in CONTAINER_KINDS else "local-type"
                        out = item, weakest(r[1], rule)
                elif form in _CONTAINER_FORMS:
                    out = self.container_binding(fi, b, depth)
                elif form == "callback":  # a lambda's parameter (callbacks.py)
                    out = self.callback_value(fi, b, depth)
                else:
                    out = MISSING  # a ":" in no form: a chain
            if out is MISSING:
                out = None
                # pytest (fixtures.py); (`in` first: str.endswith is a slow call, see above)
                if b.is_call and "getfixturevalue" in value and value.endswith(".getfixturevalue"):
                    out = self.requested_value(fi, b, depth)
                if out is None:
                    # (the value is evaluated before its own statement binds: `a, b = b, a`)
                    r = self.eval_chain(fi, b.scope, value, b.line - 1, depth + 1)
                    if r is None:
                        pass
                    elif b.is_call:
                        ent, reason = r
                        res = self.call_result(ent, depth + 1)
                        if res is None:
                            if ent[0] != "ext" or ent == _IMPORT_MODULE:
                                out = self._imported_module(fi, b, ent)
                            else:  # `partial(f, x)`: f runs when it is called
                                res = self.passed_argument(fi, b.scope, b.line, ent, depth + 1)
                                if res is not None:
                                    # a weak reference to an object (values.py PROXIED) is
                                    # typed by it; a function handed back (`partial(f, x)`)
                                    # is a value that flows
                                    flow = "local-type" if res[0] == "proxied" else "value-flow"
                                    out = res, weakest(reason, flow)
                        else:  # (weakest written out here and below: most bindings end here)
                            out = (
                                res,
                                (
                                    reason
                                    if CONFIDENCE[reason] <= _LOCAL_TYPE_CONFIDENCE
                                    else "local-type"
                                ),
                            )
                    elif r[0] != ("sym", fi.path, b.name):
                        ent, reason = r
                        out = ent, reason if CONFIDENCE[reason] <= _ALIAS_CONFIDENCE else "alias"
        except BaseException:
            table.pop(key, None)
            raise
        if memo.cuts == cuts:
            table[key] = out
        else:
            del table[key]
        return out

    def _imported_module(self, fi: FileIndex, b, ent):
        """`m = importlib.import_module("a.b")` binds module a.b, `__import__("a.b")` its top
        package a (the facts do not hold a `fromlist=`, which would make it a.b): the
        literal's module, by the rule `import`. Relative names are not followed (the facts
        keep no literal starting with a dot)."""
        if ent != _IMPORT_MODULE and ent != _DUNDER_IMPORT:
            return None
        for c in fi.literal_calls.get(b.scope, ()):
            if c.line == b.line and c.callee == b.value:
                dotted = next((text for k, text in c.literals if k == 0), None)
                if not dotted:
                    return None
                if ent == _DUNDER_IMPORT:
                    dotted = dotted.partition(".")[0]
                return self.module_entity(dotted), "import"
        return None

    def _default(self, fi: FileIndex, scope: str, s, name: str, depth: int):
        """A parameter whose default names a function or class (`def run(cb=fallback)`): the
        default, or whatever a caller passes (one of the two: `param` stays an alternative).
        The default is evaluated where the definition stands, when it is made."""
        for m in _DEFAULT.finditer(s.signature):
            if m.group(1) != name:
                continue
            chain = m.group(2)
            if chain in _CONSTANTS or chain.rpartition(".")[2].isupper():
                return None  # (a constant's name: a sentinel, `default=NOT_PROVIDED`)
            r = self.eval_chain(fi, fi.parent.get(scope, ""), chain, s.start_line, depth + 1)
            if r is None or r[0][0] != "sym" or self._kind(r[0]) not in _DEFAULT_KINDS:
                return None
            both = alternatives((r[0], ("param", fi.path, scope, name)))
            return both, weakest(r[1], "value-flow")
        return None

    # (path, scope, name) -> the lookup's answer, for the lookups whose answer does not depend
    # on the line (the name bound once in its scope, or bound around it, or a parameter): a
    # call site's receiver and arguments start from the same few names (`self` alone is 90K
    # of Django's 355K lookups, 133K of them distinct). Kept while one file is resolved
    # (`forget_lookups`): for the run it would hold every file's. An answer met with a cut
    # (a cycle, the depth bound) is not kept, as in the memo. (None while no file is resolved:
    # set in PythonProject's __init__, not here, see values.py `_folds`.)
    _lookups: dict | None

    def forget_lookups(self) -> None:
        self.memo.next_file()
        self._lookups = {}
        self._folds = {}  # values.py: the steps after a chain's head
        self._srcs = {}  # `here_uid`

    # scope -> its uid, for the file being resolved (`here_uid`): the source of most edges
    # the file makes, one string per scope (not one made per edge, each hashed again where
    # the edges are deduplicated and encoded)
    _srcs: dict

    def here_uid(self, fi: FileIndex, scope: str) -> str:
        """`uid(fi.path, scope)` for the file being resolved (`fi`: that file only)."""
        src = self._srcs.get(scope)
        if src is None:
            src = self._srcs[scope] = f"{fi.path}::{scope}"
        return src

    def _lookup_name(self, fi: FileIndex, scope: str, name: str, line: int | None,
                     depth: int = 0, key: tuple | None = None):  # fmt: skip
        """(entity, rule) of `name` read in `scope` at `line`: its bindings there, else its
        parameter, else the enclosing scopes'; kept with the file's lookups
        (`_lookups`, None: not kept) when no cut was met and the line does not matter.
        `key`: (fi.path, scope, name), given by a caller that read the file's lookups under
        it and found nothing (most callers: the key is not made and looked up again).
        `lookup_name` is this method in C (native/core_chain.c) where the extension has it."""
        if depth > MAX_DEPTH:
            self._cut()  # every scope's lookup would be cut
            return self._unbound_lookup(fi, name, depth)
        seen = self._lookups
        if seen is not None and key is None:
            key = (fi.path, scope, name)
            hit = seen.get(key, MISSING)
            if hit is not MISSING:
                return hit
        cuts = self.memo.cuts
        # (the bindings read once, for both; a parameter's lookup is _lookup_in_scope's last
        # step, depth is in bounds here)
        bound = fi.names.get(scope, NO_NAMES).get(name)
        if bound:
            r = self._lookup_in_scope(fi, scope, name, line, True, depth, bound)
        elif name in fi.params.get(scope, NO_NAMES):
            # a parameter (written out here, its one caller: a frame per lookup, 34K per
            # Django): the instance or class of a method's first, else its annotation's type,
            # what pytest binds a test's to, a default that names something, else a `param`
            idx, ann = fi.params[scope][name]
            s = fi.syms[scope]
            r = None
            if idx == 0 and s.kind == "method" and "staticmethod" not in s.decorators:
                cls = fi.parent.get(scope, "")
                if "classmethod" in s.decorators or s.name in CLASS_FIRST:
                    r = ("sym", fi.path, cls), "self"
                else:
                    r = ("inst", fi.path, cls, False), "self"
            elif ann:
                r = self.eval_type(fi, scope, ann, depth + 1)
                if r is not None:
                    r = r, "local-type"
            else:  # a test's parameter holds what pytest binds it to (fixtures.py)
                r = self.pytest_value(fi, scope, name, depth)
                if r is None:
                    sig = s.signature
                    if "=" in sig and (name + "=" in sig or name + " =" in sig):
                        r = self._default(fi, scope, s, name, depth)
            if r is None:
                r = ("param", fi.path, scope, name), "scope"
        else:
            # Bound nowhere in `scope`: in the enclosing functions and the module; a class
            # body's names are not visible in the functions nested in it (no cache of the
            # walk: kept for the run, one held 100 MB per 12K files, and emptied per file it
            # still fragmented the heap). `Lexical.enclosing` written out (its generator, left
            # at the scope that binds the name, was closed at every lookup), here (a frame
            # per lookup, 66K per Django)
            names, params, syms, parent = fi.names, fi.params, fi.syms, fi.parent
            s = scope
            while s:
                s = parent.get(s, "")
                if s:
                    sym = syms.get(s)
                    if sym is not None and sym.kind in _CLASS_BODY:
                        continue
                # (the module, "", has no parameters: most walks end there)
                if name in names.get(s, NO_NAMES) or s and name in params.get(s, NO_NAMES):
                    break
            else:
                s = None  # (the module's star imports and the builtins: the same from any scope)
            # `name` looked up in the enclosing scope `s` that binds it (None: bound in none),
            # the same answer from every scope nested in it (an outer scope's binding is
            # looked up without a line): kept with the file's lookups, the module's imports
            # are read from each of its functions (written out here: a frame per lookup)
            outer = (fi.path, s, name, None)
            r = seen.get(outer, MISSING) if seen is not None else MISSING
            if r is MISSING:
                outer_cuts = self.memo.cuts
                if s is None:
                    r = self._unbound_lookup(fi, name, depth)
                else:
                    r = self._lookup_in_scope(fi, s, name, None, True, depth)
                if seen is not None and self.memo.cuts == outer_cuts:
                    seen[outer] = r
        if seen is not None and self.memo.cuts == cuts and (bound is None or len(bound) < 2):
            seen[key] = r
        return r

    lookup_name = _lookup_name  # (native/core_chain.c's where the extension has it: below)

    def _unbound_lookup(self, fi: FileIndex, name: str, depth: int):
        """A name no scope of the file binds: the module's star imports, then the builtins."""
        if fi.star_imports:  # (most modules have none: the engine's walk would find nothing)
            r = through_reexports(self, (fi.path, True), name, depth)
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

    def enclosing_class(self, fi: FileIndex, scope: str) -> str | None:
        return fi.innermost(scope, _CLASS_BODY)


# `_lookup_name` and `_lookup_in_scope_py` in C installed as the methods (method descriptors:
# their calls specialised as a Python method's are, no wrapper frame); the Python methods where
# the extension is older
_lookup_method = getattr(native_core(), "lookup_method", None)
if _lookup_method is not None:
    _at = SymbolFact._fields.index
    Names.lookup_name, Names._lookup_in_scope = _lookup_method(
        Names, (MAX_DEPTH, CLASS_FIRST, _at("kind"), _at("name"), _at("signature"),
                _at("decorators"))
    )  # fmt: skip
