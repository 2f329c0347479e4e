"""TypeScript / JavaScript name resolution across files (one project for .ts, .tsx and .js).

Qualified names are the module path without its extension plus the local
name: `src/utils/str.ts::slugify` is `src/utils/str.slugify`, an index file
keeps its `index` (`src/utils/index`) so it never collides with
`src/utils.ts`. Specifiers are resolved by modules.py; what they name is
read from each module's exports (ES `export`, `export default`, `export =`,
CommonJS `module.exports` / `exports.x`, re-exports, `export *`).

A name is looked up through the lexical scopes of its file (class bodies are
not scopes for bare names), then the globals. Member chains go through module
exports, class members (own, then `extends` bases, then implemented
interfaces), typed fields and receivers whose type is evident (`new A()`,
annotations, `as T`, declared return types). Every step names its rule from
the closed table in engine/rules.py; a chain takes its weakest rule. What cannot
be resolved is counted, never guessed at full confidence.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field

from codeimpact.indexer.lang.api import FileFacts, SymbolFact
from codeimpact.indexer.lang.engine.chains import evaluate
from codeimpact.indexer.lang.engine.edges import Edges
from codeimpact.indexer.lang.engine.hierarchy import (
    descendants,
)
from codeimpact.indexer.lang.engine.memo import memoized
from codeimpact.indexer.lang.engine.project import Project
from codeimpact.indexer.lang.engine.rules import weakest
from codeimpact.indexer.lang.engine.scopes import Lexical, ScopeTable, in_effect, innermost
from codeimpact.indexer.lang.typescript.exports import MAX_DEPTH as _MAX_DEPTH
from codeimpact.indexer.lang.typescript.exports import Entity, Exports
from codeimpact.indexer.lang.typescript.members import TYPE_KINDS as _TYPE_KINDS
from codeimpact.indexer.lang.typescript.members import Members
from codeimpact.indexer.lang.typescript.modules import ModuleResolver, module_path
from codeimpact.indexer.resolved import ResolvedFile, Unresolved, external_uid, strip_dup

# Globals of the ECMAScript runtime, browsers and node, plus the test-runner globals that jest,
# mocha and vitest inject: calls to them are builtin, not unresolved.
GLOBALS = frozenset(
    """
    Array ArrayBuffer Atomics BigInt BigInt64Array BigUint64Array Boolean DataView Date Error
    EvalError FinalizationRegistry Float32Array Float64Array Function Infinity Int16Array
    Int32Array Int8Array Intl JSON Map Math NaN Number Object Promise Proxy RangeError
    ReferenceError Reflect RegExp Set SharedArrayBuffer String Symbol SyntaxError TypeError
    URIError Uint16Array Uint32Array Uint8Array Uint8ClampedArray WeakMap WeakRef WeakSet
    AggregateError decodeURI decodeURIComponent encodeURI encodeURIComponent escape unescape eval
    isFinite isNaN parseFloat parseInt undefined globalThis
    console process Buffer require module exports __dirname __filename setTimeout clearTimeout
    setInterval clearInterval setImmediate clearImmediate queueMicrotask structuredClone
    window document navigator location history localStorage sessionStorage fetch alert confirm
    prompt atob btoa URL URLSearchParams Blob File FileReader FormData Headers Request Response
    AbortController AbortSignal Event EventTarget CustomEvent TextEncoder TextDecoder WebSocket
    XMLHttpRequest Worker MessageChannel requestAnimationFrame cancelAnimationFrame performance
    crypto getComputedStyle matchMedia MutationObserver IntersectionObserver ResizeObserver
    HTMLElement Element Node Image customElements self
    describe it test expect beforeEach afterEach beforeAll afterAll jest vi suite before after
    context xit xdescribe fit fdescribe
    """.split()
)

# Method names of builtin objects (arrays, strings, promises, maps, DOM, emitters...): an
# untyped receiver is most likely one of those, so a same-named repository method is no
# evidence of a call.
_COMMON_METHODS = frozenset(
    """
    push pop shift unshift slice splice concat join reverse sort indexOf lastIndexOf includes
    find findIndex findLast filter map forEach reduce reduceRight some every flat flatMap fill
    keys values entries from isArray toString valueOf toJSON length charAt charCodeAt
    codePointAt startsWith endsWith padStart padEnd repeat replace replaceAll split substring
    substr toLowerCase toUpperCase trim trimStart trimEnd match matchAll search normalize
    localeCompare then catch finally resolve reject all allSettled race any get set has delete
    clear add size apply call bind hasOwnProperty assign freeze create defineProperty
    getPrototypeOf parse stringify emit on once off addListener removeListener
    removeAllListeners listeners addEventListener removeEventListener dispatchEvent
    querySelector querySelectorAll getElementById appendChild removeChild insertBefore
    setAttribute getAttribute removeAttribute contains focus blur click log warn error info
    debug trace write read end close open send next return throw done toFixed test exec
    format now getTime toISOString setState render update destroy init start stop run pipe
    subscribe unsubscribe dispose listen use handle invoke execute process transform load save
    fetch post put patch head request json text clone equals compare copy
    """.split()
)

# never guessed by unique-name: builtin method names, and the constructor (called by `new`)
_NOT_UNIQUE = _COMMON_METHODS | {"constructor"}

#                 ("builtin", name) ("param", path, scope, name)
_CLASS = frozenset(["class"])
_PASSED = frozenset(["function", "method", "class"])  # referenced when passed as a value


def _split_call(part: str) -> tuple[str, bool]:
    return (part[:-2], True) if part.endswith("()") else (part, False)


@dataclass
class _FileIndex(Lexical):
    path: str
    facts: FileFacts
    module: str
    syms: dict[str, SymbolFact] = field(default_factory=dict)
    parent: dict[str, str] = field(default_factory=dict)
    # scope -> name -> [(line, kind, payload)] in source order; kind: def var import bind
    names: ScopeTable = field(default_factory=ScopeTable)
    members: dict[str, dict[str, str]] = field(default_factory=dict)  # type -> name -> local
    fields: dict[str, dict[str, list]] = field(default_factory=dict)  # type -> attr -> bindings
    params: dict[str, dict[str, tuple[int, str]]] = field(default_factory=dict)
    returns: dict[str, list] = field(default_factory=dict)
    exports: dict[str, tuple] = field(default_factory=dict)
    stars: list[str] = field(default_factory=list)
    unbound: frozenset[str] = frozenset()  # definitions that bind no name (exports.f = ...)


_KIND_ORDER = {"def": 0, "var": 0, "import": 1, "bind": 2}


def _index_file(fi: _FileIndex) -> None:
    f = fi.facts
    unbound = fi.unbound = frozenset(f.extra.get("unbound", ()))
    for s in f.symbols:
        fi.syms[s.local] = s
        if not s.local:
            continue
        head = s.local.rpartition(".")[0]
        fi.parent[s.local] = head
        kind = "var" if s.kind == "variable" else "def"
        if s.local not in unbound:
            fi.names.add(head, s.name, (s.start_line, kind, s.local))
        if s.kind != "variable" and (
            fi.kind(head) in ("class", "interface", "module") or s.local in unbound
        ):
            # an unbound member is `A.prototype.m = ...` / `obj.m = ...` assigned onto A / obj
            fi.members.setdefault(head, {}).setdefault(s.name, s.local)
        if s.kind in ("function", "method") and s.params:
            fi.params[s.local] = {
                n.lstrip("*"): (i, t) for i, (n, t) in enumerate(s.params) if n and n != "*"
            }
    for imp in f.imports:
        if imp.level == 1:
            _reexport(fi, imp.module, imp.name, imp.alias)
            continue
        bound = imp.alias or (imp.name if imp.name not in ("", "default") else "")
        if bound:
            fi.names.add(imp.scope, bound, (imp.line, "import", imp))
    for b in f.bindings:
        if b.name.startswith("this."):
            owner = fi.innermost(b.scope, _TYPE_KINDS)
            if owner is not None:
                fi.fields.setdefault(owner, {}).setdefault(b.name[5:], []).append(b)
            continue
        fi.names.add(b.scope, b.name, (b.line, "bind", b))
    for r in f.returns:
        fi.returns.setdefault(r.scope, []).append(r)
    fi.names.finish(key=lambda c: (c[0], _KIND_ORDER[c[1]]))
    for name, local in f.extra.get("exports", ()):
        fi.exports.setdefault(name, ("local", local))


def _reexport(fi: _FileIndex, spec: str, name: str, alias: str) -> None:
    """A re-export adds to the module's exports and binds no local name."""
    if name == "*":
        fi.stars.append(spec)
    elif name == "=":
        fi.exports["="] = ("ns", spec)
        fi.stars.append(spec)
    elif name == "":
        fi.exports.setdefault(alias, ("ns", spec))
    else:
        fi.exports.setdefault(alias or name, ("re", spec, name))


class TsProject(Exports, Members, Project):
    """Resolution context for all TypeScript, TSX and JavaScript files of one index."""

    common_methods = _NOT_UNIQUE

    def __init__(self, files: dict[str, FileFacts], is_test_path, configs: dict[str, str] | None):
        super().__init__(is_test_path)
        self.modules = ModuleResolver(frozenset(files), configs or {}, self.memo)
        self.files: dict[str, _FileIndex] = {}
        for path in sorted(files):
            fi = _FileIndex(path, files[path], module_path(path))
            _index_file(fi)
            self.files[path] = fi
        # method name -> class methods defining it, for the unique-name rule
        for path, fi in self.files.items():
            for local, s in fi.syms.items():
                if s.kind == "method" and fi.kind(fi.parent[local]) == "class":
                    self.methods_by_name.setdefault(s.name, []).append((path, local))

    def module_names(self) -> dict[str, str]:
        """path -> module path; incremental runs re-resolve files whose module name changed."""
        return {p: fi.module for p, fi in self.files.items()}

    # ------------------------------------------------------------------ names
    def _lookup_in_scope(self, fi: _FileIndex, scope: str, name: str, line, depth: int):
        cands = fi.names.get(scope, {}).get(name)
        if cands:
            chosen = in_effect(cands, line) if line is not None else None
            if chosen is None:
                # hoisting, or code that runs after the module loaded: prefer a definition
                defs = [c for c in cands if c[1] in ("def", "var", "import")]
                chosen = defs[-1] if defs else cands[-1]
            kind = chosen[1]
            if kind == "bind":
                var = next((c for c in cands if c[1] == "var"), None)
                if var is not None:
                    kind, chosen = "var", var  # a module variable: its symbol, deref'd on use
            if kind in ("def", "var"):
                return ("sym", fi.path, chosen[2]), "scope"
            if kind == "import":
                return self.import_target(fi, chosen[2], depth + 1)
            return self._eval_binding(fi, chosen[2], depth + 1)
        ps = fi.params.get(scope)
        if ps and name in ps:
            typ = ps[name][1]
            if typ:
                r = self.eval_type(fi, fi.parent.get(scope, ""), typ, depth + 1)
                if r is not None:
                    return r
            return ("param", fi.path, scope, name), "scope"
        return None

    def lookup_name(self, fi: _FileIndex, scope: str, name: str, line, depth: int = 0):
        # the scope and those around it but class and interface bodies (their names are
        # members, reached through `this`), the line only where the lookup is made
        if fi.kind(scope) not in _TYPE_KINDS:
            r = self._lookup_in_scope(fi, scope, name, line, depth)
            if r is not None:
                return r
        for s in fi.enclosing(scope, _TYPE_KINDS):
            r = self._lookup_in_scope(fi, s, name, None, depth)
            if r is not None:
                return r
        if name in GLOBALS:
            return ("builtin", name), "scope"
        return None

    def _eval_binding(self, fi: _FileIndex, b, depth: int):
        if depth > _MAX_DEPTH:
            return self._cut()
        return self._eval_binding_uncached(fi, b, depth)

    @memoized('("bind", fi.path, b)')
    def _eval_binding_uncached(self, fi: _FileIndex, b, depth: int):
        if b.value.startswith(":"):
            return self.eval_type(fi, b.scope, b.value[1:], depth + 1)
        if b.value.split(".", 1)[0].removesuffix("()") == b.name:
            return None  # x = x.next(): no single value
        r = self.eval_chain(fi, b.scope, b.value, b.line, depth + 1)
        if r is None:
            return None
        ent, reason = r
        if b.is_call:
            res = self.call_result(ent, depth + 1)
            return (res, weakest(reason, "local-type")) if res is not None else None
        return ent, weakest(reason, "alias")

    def eval_type(self, fi: _FileIndex, scope: str, typ: str, depth: int):
        """A value of type `typ`: an instance of a repository class/interface, or external."""
        r = self.eval_chain(fi, scope, typ, None, depth + 1, deref_last=False)
        if r is None:
            return None
        ent, reason = r
        if ent[0] == "sym" and self._kind(ent) in _TYPE_KINDS:
            return ("inst", ent[1], ent[2]), weakest(reason, "local-type")
        if ent[0] == "ext":
            return ent, weakest(reason, "local-type")
        return None

    def deref(self, ent: Entity, reason: str, depth: int) -> tuple[Entity, str]:
        """A module variable stands for the value it was bound to, when that is evident."""
        if ent[0] != "sym":
            return ent, reason
        if depth > _MAX_DEPTH:
            self._cut()
            return ent, reason
        fi = self.files[ent[1]]
        s = fi.syms.get(ent[2])
        if s is None or s.kind != "variable" or ent[2] in fi.members:
            return ent, reason  # an object given members by assignment is known by them
        binds = [c for c in fi.names.get(fi.parent[ent[2]], {}).get(s.name, ()) if c[1] == "bind"]
        if not binds:
            return ent, reason
        r = self._eval_binding(fi, binds[-1][2], depth + 1)
        if r is None or r[0] == ent:
            return ent, reason
        return r[0], weakest(reason, r[1])

    # ------------------------------------------------------------------ chains
    # `a.b().c` on the engine's evaluator (engine/chains.py): steps are (name, called); every
    # member step dereferences the value so far first (a module variable's value,
    # `module.exports`), and so does the end unless `deref_last` is false
    chain_depth = _MAX_DEPTH

    def chain_cut(self):
        return self._cut()

    def chain_steps(self, chain: str) -> list[tuple[str, bool]]:
        return [_split_call(part) for part in chain.split(".")]

    def eval_chain(self, fi, scope, chain, line, depth=0, deref_last=True):
        return evaluate(self, fi, scope, chain, line, depth, deref_last)

    def chain_head(self, fi, scope, step, line, depth, _deref_last):
        head, called = step
        if head == "this":
            cls = fi.innermost(scope, _CLASS)
            if cls is not None:
                r = (("inst", fi.path, cls), "self")
            else:
                r = self._this_owner(fi, scope)
                if r is None:
                    return None
        elif head == "super":
            cls = fi.innermost(scope, _CLASS)
            base = self._base_class(fi.path, cls) if cls is not None else None
            if base is None:
                return None
            r = (base, "super")
        else:
            r = self.lookup_name(fi, scope, head, line, depth + 1)
        if r is None or not called:
            return r
        return self._call_value(r[0], r[1], depth)

    def chain_step(self, found, step, depth, _deref_last):
        attr, called = step
        r = self.getattr(self.deref(found[0], found[1], depth + 1), attr, depth + 1)
        if r is None or not called:
            return r
        return self._call_value(r[0], r[1], depth)

    def chain_end(self, found, depth, deref_last):
        return self.deref(found[0], found[1], depth + 1) if deref_last else found

    def _this_owner(self, fi: _FileIndex, scope: str):
        """`this` in `A.prototype.m = function` is an A; in `obj.m = function` it is obj."""
        s = innermost(scope, fi.container, fi.unbound.__contains__)
        if s is None:
            return None
        owner = fi.container(s)
        kind = fi.kind(owner)
        if kind == "function":
            return ("inst", fi.path, owner), "self"
        if kind == "variable":
            return ("sym", fi.path, owner), "self"
        return None

    def _call_value(self, ent, reason, depth):
        ent, reason = self.deref(ent, reason, depth + 1)
        res = self.call_result(ent, depth + 1)
        return (res, weakest(reason, "local-type")) if res is not None else None

    def _kind(self, ent: Entity) -> str | None:
        if ent[0] not in ("sym", "inst"):
            return None
        return self.files[ent[1]].kind(ent[2])

    # ------------------------------------------------------------------ output
    def ent_uid(self, ent: Entity) -> str | None:
        k = ent[0]
        if k in ("sym", "inst"):
            return self.uid(ent[1], ent[2])
        if k == "mod":
            return self.uid(ent[1], "")
        if k == "ext":
            return external_uid(ent[1])
        return None

    def qualified(self, fi: _FileIndex, local: str) -> str:
        return f"{fi.module}.{strip_dup(local)}" if local else fi.module

    def module_symbol_name(self, fi: _FileIndex) -> str:
        return posixpath.basename(fi.module)

    def row_language(self, fi: _FileIndex) -> str:
        return fi.facts.language  # one project for the three languages

    def file_edges(self, fi: _FileIndex, edges: Edges) -> None:
        self._imports(fi, edges)
        self._heritage_edges(fi, edges)
        self._references(fi, edges)

    def _import_edge(self, fi, spec: str, name: str, line: int, edges: Edges) -> None:
        """IMPORTS from the module: to the definition imported, else to the module file."""
        src = self.uid(fi.path, "")
        t = self._target(fi, spec)
        if t.kind == "external":
            dotted = t.path if name in ("", "default", "*", "=") else f"{t.path}.{name}"
            dst = external_uid(dotted)
        elif t.kind == "file":
            dst = self.uid(t.path, "")
            if name not in ("", "*", "="):
                r = self._imported(t.path, name, 0)
                if r is not None and self.ent_uid(r[0]) is not None:
                    dst = self.ent_uid(r[0])
        else:
            return
        if dst != src:
            edges.add("IMPORTS", src, dst, "import", line)

    def _imports(self, fi: _FileIndex, edges: Edges) -> None:
        for imp in fi.facts.imports:
            self._import_edge(fi, imp.module, imp.name, imp.line, edges)

    def _heritage_edges(self, fi: _FileIndex, edges: Edges) -> None:
        for local, s in fi.syms.items():
            if s.kind not in _TYPE_KINDS:
                continue
            for kind, ent, reason, line in self.heritage(fi.path, local):
                rel = "EXTENDS"
                if kind == "implements":
                    rel = "IMPLEMENTS"
                edges.add(rel, self.uid(fi.path, local), self.ent_uid(ent), reason, line)

    def _references(self, fi: _FileIndex, edges: Edges) -> None:
        for ref in fi.facts.references:
            r = self.eval_chain(fi, ref.scope, ref.target, ref.line, deref_last=False)
            if r is None or r[0][0] != "sym":
                continue
            ent, reason = r
            if self._kind(ent) in ("class", "interface", "type_alias", "enum"):
                src, dst = self.uid(fi.path, ref.scope), self.ent_uid(ent)
                if src != dst:
                    edges.add("REFERENCES", src, dst, reason, ref.line)

    # ------------------------------------------------------------------ calls
    def resolve_call(self, fi: _FileIndex, index: int, call, edges: Edges,
                     out: ResolvedFile) -> None:  # fmt: skip
        src = self.uid(fi.path, call.scope)
        callee = call.callee
        last = callee.rpartition(".")[2].removesuffix("()")
        if callee == "super":
            self._super_call(fi, call, src, edges, out)
            return
        r = self.eval_chain(fi, call.scope, callee, call.line)
        if r is None and "." in callee and last in ("call", "apply", "bind"):
            # f.call(thisArg, ...) runs f itself; f.bind(x) is the runtime's, f runs later
            r = self.eval_chain(fi, call.scope, callee.rpartition(".")[0], call.line)
            if r is not None and self._kind(r[0]) not in ("function", "method"):
                r = None
            elif r is not None and last == "bind":
                out.calls_builtin += 1
                return
        if r is None or r[0][0] == "param":
            if "." in callee and not callee.startswith("?"):
                if self.unique_name_call(edges, src, last, call.line):
                    return
            out.unresolved.append(Unresolved(src, last, call.line))
            return
        ent, reason = r
        k = ent[0]
        if k == "builtin":
            out.calls_builtin += 1
            return
        if k == "ext":
            edges.call(src, external_uid(ent[1]), reason, call.line)
            return
        kind = self._kind(ent) if k == "sym" else None
        if kind not in ("class", "function", "method"):
            out.unresolved.append(Unresolved(src, last, call.line))
            return
        edges.call(src, self.ent_uid(ent), reason, call.line)
        if kind == "class":
            hit = self.member(ent[1], ent[2], "constructor")
            if hit is not None:
                edges.call(src, self.uid(*hit[0]), "constructor", call.line)
        elif kind == "method":
            self._dispatch(fi, call, ent, edges, src)
        if call.args:
            # a function or class passed as an argument is referenced by the caller
            self.passed_definitions(fi, call, src, edges, _PASSED)

    def _super_call(self, fi, call, src, edges, out) -> None:
        """super(...) runs the base class constructor."""
        cls = fi.innermost(call.scope, _CLASS)
        base = self._base_class(fi.path, cls) if cls is not None else None
        if base is None:
            out.unresolved.append(Unresolved(src, "super", call.line))
            return
        if base[0] == "ext":
            edges.call(src, external_uid(base[1]), "super", call.line)
            return
        hit = self.member(base[1], base[2], "constructor")
        dst = self.uid(*hit[0]) if hit is not None else self.uid(base[1], base[2])
        edges.call(src, dst, "super", call.line)

    def _dispatch(self, fi, call, ent, edges, src) -> None:
        """A call through an interface, an abstract method or `this` may run an override."""
        tfi = self.files[ent[1]]
        owner = tfi.parent.get(ent[2], "")
        sym = tfi.syms[ent[2]]
        abstract = sym.signature.startswith("abstract ") or " abstract " in sym.signature
        on_this = call.callee.startswith("this.") and call.callee.count(".") == 1
        if not (tfi.kind(owner) == "interface" or abstract or on_this):
            return
        subs = self.subtypes()
        targets = {(ent[1], ent[2])}
        for key in descendants((ent[1], owner), lambda k: subs.get(k, ())):
            if self.files[key[0]].kind(key[1]) == "class":
                hit = self.member(key[0], key[1], sym.name)
                if hit is not None and hit[0] not in targets:
                    (p, m), _ = hit
                    if self.files[p].kind(self.files[p].parent[m]) == "class":
                        targets.add(hit[0])
                        edges.call(src, self.uid(p, m), "dispatch", call.line)
