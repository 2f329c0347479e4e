"""Name resolution shared by the statically typed languages (Go, Java).

In both languages a receiver's type is usually evident from a declaration: a
parameter, a field, a local (`var x T`, `T x = ...`, `x := &T{}`, `var v = new
T()`), or a call whose declared result type is known. The engine evaluates a
chain (see lang/syntax_common.py) left to right over entities, finds members through
supertypes (Go embedding, Java extends/implements) and fans calls out to the
implementations that may run instead (`dispatch`). A language module supplies
its scoping rules: how a head name, a type name and a package member are found,
what a type's supertypes are, and which methods override which.

Entities are plain tuples:
  ("sym", path, local)    a definition in the repository
  ("inst", path, local)   a value whose static type is the repository type (path, local)
  ("super", path, local)  `super` inside the type (path, local)
  ("pkg", key)            a package of the repository (the language's key)
  ("xpkg", dotted)        a package outside the repository
  ("xsym", dotted)        something outside the repository (type, function, member)
  ("xinst", dotted)       a value of an external type
  ("builtin", name)       a builtin function or type
  ("unknown", name)       a value whose type is not evident: calls on it are not guessed,
                          except at `unique-name` when nothing says it comes from outside
  ("slice", entity)       a container (slice, array, map, channel) of values `entity`
  ("slicetype", entity)   the type of such a container (a declared `[]T`)
Every step names its rule (engine/rules.py); a chain takes its weakest rule.

Member lookup through the supertypes and the type hierarchy are typed_members.py's (a mixin
of StaticProject). This is the engine of the statically typed languages: Go and Java plug in their scoping
rules (Go's packages and embedding, Java's imports, nested types and overloads), and a
C-family language (C#, Kotlin, Swift, Dart, C++) is meant to plug in the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from codeimpact.indexer.lang.api import CallFact, FileFacts, SymbolFact
from codeimpact.indexer.lang.engine.chains import evaluate, evaluate_steps
from codeimpact.indexer.lang.engine.edges import Edges
from codeimpact.indexer.lang.engine.project import Project
from codeimpact.indexer.lang.engine.rules import weakest
from codeimpact.indexer.lang.engine.scopes import Lexical, ScopeTable, in_effect
from codeimpact.indexer.lang.engine.typed_edges import TypedEdges
from codeimpact.indexer.lang.engine.typed_members import (  # noqa: F401 (Found: re-exported)
    CALLABLE_KINDS,
    FIELD_KINDS,
    TYPE_KINDS,
    Found,
    TypedMembers,
)
from codeimpact.indexer.resolved import ResolvedFile, Unresolved, external_uid

MAX_DEPTH = 16
# What an external call returns: its type is outside the repository, so a same-named
# repository method is no candidate (`reflect.ValueOf(v).IsNil()` is not ours).
EXTERNAL_VALUE = ("unknown", "<external>")
# A call on an interface with more implementations than this (Iterator.next, Collection.size)
# keeps its edge to the declared method only: one more candidate says next to nothing, and
# the edges would outnumber every other kind.
MAX_DISPATCH = 32
_SUFFIXES = ("()", "{}", "[]", "[i]")


def split_chain(chain: str) -> list[tuple[str, tuple[str, ...]]]:
    """`a.b().C{}` -> [("a", ()), ("b", ("()",)), ("C", ("{}",))]; `xs[i]` is an element."""
    if "(" not in chain and "{" not in chain and "[" not in chain:  # most: names alone
        return [(seg, ()) for seg in chain.split(".")]
    out = []
    for seg in chain.split("."):
        suffixes: list[str] = []
        while True:
            suf = next((x for x in _SUFFIXES if seg.endswith(x)), None)
            if suf is None:
                break
            suffixes.append(suf)
            seg = seg[: -len(suf)]
        out.append((seg, tuple(reversed(suffixes))))
    return out


@dataclass
class FileIndex(Lexical):
    path: str
    facts: FileFacts
    syms: dict[str, SymbolFact] = field(default_factory=dict)
    parent: dict[str, str] = field(default_factory=dict)  # local -> lexical parent local
    # scope -> name -> [(line, kind, payload)], kind "type" (payload a type chain),
    # "bind" (a BindingFact) or "unknown"
    scoped: ScopeTable = field(default_factory=ScopeTable)
    children: dict[str, dict[str, list[str]]] = field(
        default_factory=dict
    )  # scope -> name -> locals

    @property
    def extra(self) -> dict:
        return self.facts.extra


def index_facts(path: str, facts: FileFacts) -> FileIndex:
    """A file's index: its definitions by local, lexical parents and children, and the
    declarations of each scope (parameters, typed locals, bindings)."""
    fi = FileIndex(path, facts)
    for s in facts.symbols:
        fi.syms[s.local] = s
        if s.local:
            parent = s.local.rpartition(".")[0]
            fi.parent[s.local] = parent
            fi.children.setdefault(parent, {}).setdefault(s.name, []).append(s.local)
        if s.kind in CALLABLE_KINDS:
            for name, typ in s.params:
                _add_local(fi, s.local, name.lstrip("*"), s.start_line, typ)
    for scope, name, typ, line in facts.extra.get("locals", ()):
        _add_local(fi, scope, name, line, typ)
    for b in facts.bindings:
        fi.scoped.add(b.scope, b.name, (b.line, "bind", b))
    fi.scoped.finish()
    return fi


def _add_local(fi: FileIndex, scope: str, name: str, line: int, typ: str) -> None:
    fi.scoped.add(scope, name, (line, "type", typ) if typ else (line, "unknown", None))


class StaticProject(TypedMembers, TypedEdges, Project):
    """Resolution of one language's files; subclasses supply the language's scoping rules."""

    def __init__(self, files: dict[str, FileFacts], is_test_path, configs=None):
        super().__init__(is_test_path)
        self.configs = configs or {}
        self.files: dict[str, FileIndex] = {}
        for path in sorted(files):
            self.files[path] = self._index_file(path, files[path])
        self.members: dict[tuple[str, str], dict[str, list[tuple[str, str]]]] = {}
        self._owner_of: dict[tuple[str, str], tuple[str, str]] = {}

    # ------------------------------------------------------------------ indexing
    def _index_file(self, path: str, facts: FileFacts) -> FileIndex:
        return index_facts(path, facts)

    # ------------------------------------------------------------------ language hooks
    def qualified(self, fi: FileIndex, local: str) -> str:
        raise NotImplementedError

    def container(self, fi: FileIndex, local: str) -> str:
        return fi.parent.get(local, "")

    def container_uid(self, fi: FileIndex, s: SymbolFact) -> str:
        return self.uid(fi.path, self.container(fi, s.local))

    def module_symbol_name(self, fi: FileIndex) -> str:
        name = fi.path.rpartition("/")[2]
        return name.rpartition(".")[0] or name

    def lookup_head(self, fi, scope, name, line, mode, depth):
        """(entity, reason) of the first name of a chain; mode is value, type or call."""
        raise NotImplementedError

    def call_head(self, fi, scope, name, line, argc, depth):
        """Targets [(entity, reason, receiver)] of an unqualified call `name(...)`.

        `receiver` is the static type of the instance the method is called on (None for
        static calls): overrides in its subtypes may run instead (see overrides).
        """
        r = self.lookup_head(fi, scope, name, line, "call", depth)
        return [(r[0], r[1], None)] if r is not None else None

    def resolve_type(self, fi: FileIndex, scope: str, chain: str, depth: int = 0):
        """(entity, reason) of a type name as written in (fi, scope)."""
        raise NotImplementedError

    def attr_pkg(self, ent, name: str, call: bool, reason: str):
        raise NotImplementedError

    def attr_xpkg(self, ent, name: str, call: bool, reason: str):
        return ("xsym", f"{ent[1]}.{name}"), reason

    def supertypes(self, tkey: tuple[str, str]) -> tuple:
        """((entity, "extends" | "implements", line), ...) of a repository type."""
        raise NotImplementedError

    def overrides(self, target, owner, receiver) -> list[tuple[str, str]]:
        """Methods that a call resolved to `target` (declared in `owner`) may run instead,
        when the instance's static type is `receiver`."""
        return []

    def arity_fits(self, target: tuple[str, str], argc: int | None) -> bool:
        return True

    def canonical(self, tkey: tuple[str, str], depth: int = 0) -> tuple[str, str] | None:
        """The type a type name stands for (Go aliases point elsewhere)."""
        return tkey

    def type_call(self, fi, src, ent, reason, call, edges, out) -> None:
        """A call whose callee is a type (a Go conversion): by default not a call at all."""
        out.calls_builtin += 1

    def import_edges(self, fi: FileIndex, edges: Edges) -> None:
        pass

    def is_accessor(self, ent) -> bool:
        """A field that a call reaches through an implicit accessor (Java record components)."""
        return False

    def heritage_rel(self, fi: FileIndex, h, ent) -> str:
        return "IMPLEMENTS" if h.kind == "implements" else "EXTENDS"

    def extra_edges(self, fi: FileIndex, edges: Edges) -> None:
        pass

    def argc(self, fi: FileIndex, index: int) -> int | None:
        return None

    def resolve_decl(self, fi: FileIndex, scope: str, chain: str, depth: int = 0):
        """resolve_type, and `[]T` (a container of T) on top of it."""
        if chain.startswith("[]"):
            r = self.resolve_type(fi, scope, chain[2:], depth)
            return (("slicetype", r[0]), r[1]) if r is not None else None
        return self.resolve_type(fi, scope, chain, depth)

    # ------------------------------------------------------------------ lookups
    def sym(self, key: tuple[str, str]) -> SymbolFact:
        return self.files[key[0]].syms[key[1]]

    def kind(self, ent) -> str | None:
        if ent[0] != "sym":
            return None
        s = self.files[ent[1]].syms.get(ent[2])
        return s.kind if s is not None else None

    def scoped_entry(self, fi: FileIndex, scope: str, name: str, line: int | None):
        """The latest declaration of `name` in `scope` at or before `line`."""
        cands = fi.scoped.bindings(scope, name)
        if not cands:
            return None
        return cands[-1] if line is None else in_effect(cands, line)

    def local_value(self, fi: FileIndex, scope: str, entry, depth: int):
        """The entity a local declaration stands for."""
        _line, kind, payload = entry
        if kind == "type":
            r = self.resolve_decl(fi, scope, payload, depth + 1)
            if r is not None:
                inst = self.instantiate(r[0])
                if inst is not None:
                    return inst, "local-type"
            return ("unknown", ""), "local-type"
        if kind == "bind":
            return self.binding_value(fi, payload, depth + 1) or (("unknown", ""), "local-type")
        return ("unknown", ""), "local-type"

    def binding_value(self, fi: FileIndex, b, depth: int):
        if depth > MAX_DEPTH:
            return None
        value, index = b.value, 0
        if b.is_call and "#" in value:  # `a, err := f()`: err is f#1
            value, _, n = value.rpartition("#")
            index = int(n) if n.isdigit() else 0
        r = self.eval_chain(fi, b.scope, value, b.line, depth + 1)
        if r is None:
            return None
        ent, reason = r
        if b.is_call:
            res = self.call_result(ent, depth + 1, index)
            return (res, weakest("local-type", reason)) if res is not None else None
        if value.endswith("[i]"):  # an element, typed by the container's declaration
            return ent, weakest("local-type", reason)
        return ent, weakest("alias", reason)

    def instantiate(self, ent):
        k = ent[0]
        if k == "sym":
            s = self.files[ent[1]].syms.get(ent[2])
            if s is None or s.kind not in TYPE_KINDS:
                return None
            key = self.canonical((ent[1], ent[2]))
            if key is None or key[0] == "x":
                return ("xinst", key[1]) if key is not None else None
            return ("inst", key[0], key[1])
        if k == "xsym":
            return ("xinst", ent[1])
        if k == "builtin":
            return ent
        if k == "slicetype":
            inner = self.instantiate(ent[1])
            return ("slice", inner) if inner is not None else None
        return None

    def call_result(self, ent, depth: int, index: int = 0):
        """The value a call of `ent` returns, typed by its declared result."""
        if depth > MAX_DEPTH:
            return None
        if ent == EXTERNAL_VALUE:
            return ent
        k = ent[0]
        if k == "sym":
            fi = self.files[ent[1]]
            s = fi.syms.get(ent[2])
            if s is None:
                return None
            if s.kind in TYPE_KINDS:
                return self.instantiate(ent)
            chain = fi.extra.get("results", {}).get(ent[2])
            if isinstance(chain, (tuple, list)):
                chain = chain[index] if index < len(chain) else ""
            elif index:
                chain = ""
            if s.kind in CALLABLE_KINDS and chain:
                r = self.resolve_decl(fi, self.type_scope(fi, ent[2]), chain, depth + 1)
                if r is not None:
                    return self.instantiate(r[0]) or ("unknown", "")
            return ("unknown", "")
        if k == "xsym":
            return EXTERNAL_VALUE
        if k == "builtin":
            return ("unknown", ent[1])
        return None

    def type_scope(self, fi: FileIndex, local: str) -> str:
        """Where the type names of a member's declaration are looked up."""
        return fi.parent.get(local, "")

    def value_of(self, ent, reason: str, depth: int):
        """The value held by a variable or field symbol, typed by its declaration."""
        fi = self.files[ent[1]]
        local = ent[2]
        chain = fi.extra.get("types", {}).get(local)
        if chain:
            r = self.resolve_decl(fi, self.type_scope(fi, local), chain, depth + 1)
            inst = self.instantiate(r[0]) if r is not None else None
            if inst is not None:
                return inst, weakest("local-type", reason)
            return ("unknown", local), reason
        s = fi.syms[local]
        entry = self.scoped_entry(fi, fi.parent.get(local, ""), s.name, None)
        if entry is not None and entry[1] == "bind" and depth <= MAX_DEPTH:
            r = self.binding_value(fi, entry[2], depth + 1)
            if r is not None and r[0] != ent:
                return r[0], weakest(r[1], reason)
        return ("unknown", local), reason

    # ------------------------------------------------------------------ chains
    def attr(self, ent, name: str, call: bool, reason: str, depth: int):
        """`ent.name` (call: the member is called, so a method is wanted)."""
        if depth > MAX_DEPTH:
            return None
        if ent == EXTERNAL_VALUE:  # a member of something outside stays outside
            return ent, reason
        k = ent[0]
        if k == "inst":
            tkey = (ent[1], ent[2])
            # a value `x.m` (a field, else a method: the callee of a bound call `y = x.m()`)
            # is "what an external supertype may declare" only when no member is found
            outside = None
            for want in ("method", "field") if call else ("field", "method"):
                found = self.find_member(tkey, name, want)
                if found is not None and (found.targets or call):
                    return self._member_hit(found, name, reason)
                if found is not None and want == "field":
                    outside = found
            return self._member_hit(outside, name, reason) if outside is not None else None
        if k == "sym":
            s = self.files[ent[1]].syms.get(ent[2])
            if s is None:
                return None
            if s.kind in FIELD_KINDS:
                v = self.value_of(ent, reason, depth + 1)
                return self.attr(v[0], name, call, v[1], depth + 1) if v else None
            if s.kind not in TYPE_KINDS:
                return None
            tkey = self.canonical((ent[1], ent[2]))
            if tkey is None:
                return None
            if tkey[0] == "x":
                return ("xsym", f"{tkey[1]}.{name}"), reason
            if name == "this" and not call:  # Java `Outer.this`
                return ("inst", *tkey), "self"
            for want in ("method",) if call else ("field", "type", "method"):
                found = self.find_member(tkey, name, want)
                if found is not None and found.targets:
                    return self._member_hit(found, name, reason)
            return None
        if k == "super":
            found = self.find_member(
                (ent[1], ent[2]), name, "method" if call else "field", None, True
            )
            return self._member_hit(found, name, "super") if found is not None else None
        if k == "pkg":
            return self.attr_pkg(ent, name, call, reason)
        if k == "xpkg":
            return self.attr_xpkg(ent, name, call, reason)
        if k in ("xsym", "xinst"):
            return ("xsym", f"{ent[1]}.{name}"), reason
        if k == "builtin":
            return ent, reason
        return None

    def apply_suffixes(self, r, suffixes: tuple[str, ...], depth: int):
        for suf in suffixes:
            if r is None:
                return None
            ent, reason = r
            if suf == "()":
                res = self.call_result(ent, depth + 1)
                r = (res, weakest("local-type", reason)) if res is not None else None
            elif suf == "{}":  # a literal, cast or assertion types its value like a declaration
                inst = self.instantiate(ent)
                r = (inst, weakest("local-type", reason)) if inst is not None else None
            elif suf == "[]":  # Go: instantiating a generic function keeps the function
                if self.kind(ent) not in CALLABLE_KINDS and ent[0] != "xsym":
                    return None
            elif suf == "[i]":  # an element of a container
                r = self.element(ent, reason, depth)
        return r

    def element(self, ent, reason: str, depth: int):
        """An element of a container: a declared `[]T`, or a value of a type defined as one."""
        if ent[0] == "sym" and self.kind(ent) in FIELD_KINDS:
            v = self.value_of(ent, reason, depth + 1)
            if v is None:
                return None
            ent, reason = v
        if ent[0] == "inst":  # `type Commands []*Command`
            fi = self.files[ent[1]]
            chain = fi.extra.get("types", {}).get(ent[2], "")
            if chain.startswith("[]"):
                r = self.resolve_decl(fi, self.type_scope(fi, ent[2]), chain, depth + 1)
                ent = self.instantiate(r[0]) if r is not None else None
                if ent is None:
                    return None
        if ent == EXTERNAL_VALUE:
            return ent, reason
        return (ent[1], weakest("local-type", reason)) if ent[0] == "slice" else None

    # the engine's evaluator (engine/chains.py): steps are split_chain's (name, suffixes);
    # the head is looked up as a type, a callee or a value by its first suffix, each member
    # step is `attr`, and the suffixes apply after each; too deep: None, no memo cut
    chain_depth = MAX_DEPTH

    def chain_cut(self):
        return None

    def chain_steps(self, chain: str) -> list[tuple[str, tuple[str, ...]]]:
        return split_chain(chain)

    def chain_head(self, fi, scope, step, line, depth, _option):
        name, suf = step
        mode = (
            "type" if suf[:1] == ("{}",) else "call" if suf[:1] in (("()",), ("[]",)) else "value"
        )
        return self.apply_suffixes(self.lookup_head(fi, scope, name, line, mode, depth), suf, depth)

    def chain_step(self, found, step, depth, _option):
        name, suf = step
        call = suf[:1] in (("()",), ("[]",))
        return self.apply_suffixes(self.attr(found[0], name, call, found[1], depth + 1), suf, depth)

    def chain_end(self, found, depth, _option):
        return found

    def eval_segments(self, fi, scope, segs, line, depth):
        return evaluate_steps(self, fi, scope, segs, line, depth)

    def eval_chain(self, fi: FileIndex, scope: str, chain: str, line: int | None, depth: int = 0):
        return evaluate(self, fi, scope, chain, line, depth)

    # ------------------------------------------------------------------ calls
    def member_targets(self, ent, reason: str, name: str, argc: int | None, depth: int):
        """[(entity, reason, receiver)] of calling `ent.name(...)` (see call_head)."""
        k = ent[0]
        if ent == EXTERNAL_VALUE:
            return []  # a call into code we do not index: nothing to point at, nothing to guess
        if k in ("inst", "super") or (k == "sym" and self.kind(ent) in TYPE_KINDS):
            if k == "sym":
                tkey = self.canonical((ent[1], ent[2]))
                if tkey is None:
                    return None
                if tkey[0] == "x":
                    return [(("xsym", f"{tkey[1]}.{name}"), reason, None)]
            else:
                tkey = (ent[1], ent[2])
            supers_only = k == "super"
            found = self.find_member(tkey, name, "method", argc, supers_only)
            if found is None:
                return None
            if k == "super":
                reason = "super"
            elif found.inherited:
                reason = weakest("inheritance", reason)
            if not found.targets:
                return [(("xsym", f"{found.external}.{name}"), reason, None)]
            if found.ambiguous:
                reason = weakest("dispatch", reason)
            receiver = tkey if k == "inst" else None
            return [(("sym", *t), reason, receiver) for t in found.targets]
        if k == "sym" and self.kind(ent) in FIELD_KINDS:
            v = self.value_of(ent, reason, depth + 1)
            return self.member_targets(v[0], v[1], name, argc, depth + 1) if v else None
        r = self.attr(ent, name, True, reason, depth + 1)
        return [(r[0], r[1], None)] if r is not None else None

    def new_targets(self, fi, call: CallFact, argc, depth):
        """`new T(...)`: the class at the rule that found its name, and the constructor."""
        r = self.resolve_type(fi, call.scope, call.callee, depth)
        if r is None:
            return None
        ent, reason = r
        if ent[0] != "sym":
            return [(ent, reason, None)] if ent[0] in ("xsym",) else None
        out = [(ent, reason, None)]
        tkey = self.canonical((ent[1], ent[2]))
        if tkey is not None and tkey[0] != "x":
            found = self.find_member(tkey, "<init>", "method", argc)
            if found is not None and found.targets:
                rule = "dispatch" if found.ambiguous else "constructor"
                out.extend((("sym", *t), weakest(rule, reason), None) for t in found.targets)
        return out

    def call_targets(self, fi, call: CallFact, argc, depth=0):
        if call.kind == "new":
            return self.new_targets(fi, call, argc, depth)
        segs = split_chain(call.callee)
        name, suf = segs[-1]
        if suf and suf != ("[]",):
            return None
        if len(segs) == 1:
            targets = self.call_head(fi, call.scope, name, call.line, argc, depth)
        else:
            prefix = self.eval_segments(fi, call.scope, segs[:-1], call.line, depth)
            if prefix is None:
                return None
            targets = self.member_targets(prefix[0], prefix[1], name, argc, depth)
        if targets and suf == ("[]",):
            targets = [t for t in targets if self.kind(t[0]) in CALLABLE_KINDS or t[0][0] == "xsym"]
        return targets

    def resolve_call(self, fi: FileIndex, index: int, call: CallFact, edges: Edges,
                     out: ResolvedFile) -> None:  # fmt: skip
        src = f"{fi.path}::{call.scope}"
        last = call.callee.rpartition(".")[2].rstrip("()[]{}")
        targets = self.call_targets(fi, call, self.argc(fi, index))
        emitted = False
        builtin = False
        for ent, reason, receiver in targets or ():
            k = ent[0]
            if k == "builtin":
                builtin = True
            elif k == "xsym":
                edges.call(src, external_uid(ent[1]), reason, call.line)
                emitted = True
                if call.args:  # `t.Run(name, f)`: the library calls f (the entry-point table)
                    self.library_arguments(fi, call, ent[1], src, edges, CALLABLE_KINDS, reason)
            elif k == "sym":
                kind = self.kind(ent)
                if kind in TYPE_KINDS and call.kind != "new":
                    self.type_call(fi, src, ent, reason, call, edges, out)
                    return
                if (
                    kind not in CALLABLE_KINDS
                    and kind not in TYPE_KINDS
                    and not self.is_accessor(ent)
                ):
                    continue  # a function-typed variable or field: its value is not known
                edges.call(src, f"{ent[1]}::{ent[2]}", reason, call.line)
                emitted = True
                if receiver is not None:
                    owner = self.owner_type(ent)
                    impls = self.overrides((ent[1], ent[2]), owner, receiver) if owner else ()
                    if len(impls) <= MAX_DISPATCH:
                        edges.dispatch(src, (f"{p}::{m}" for p, m in impls), call.line)
        if builtin and not emitted:
            out.calls_builtin += 1
            return
        if not emitted and not self._unique_name(call, targets, last, src, edges):
            out.unresolved.append(Unresolved(src, last, call.line))
        if call.args:
            # a function passed by name is referenced by the caller (the callee may call it)
            self.passed_definitions(fi, call, src, edges, CALLABLE_KINDS)

    def _unique_name(self, call, targets, last, src, edges: Edges) -> bool:
        """Receiver of unknown type: the only method of that name in the repository, at 0.5."""
        if "." not in call.callee or targets is not None or call.kind == "new":
            return False
        if last.startswith("<"):  # a constructor: never called by its name
            return False
        return self.unique_name_call(edges, src, last, call.line)

    # ------------------------------------------------------------------ output
    def ent_uid(self, ent) -> str | None:
        if ent[0] in ("sym", "inst"):
            return f"{ent[1]}::{ent[2]}"
        if ent[0] in ("xsym", "xinst", "xpkg"):
            return external_uid(ent[1])
        return None
