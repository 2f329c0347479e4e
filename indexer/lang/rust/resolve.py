"""Rust name resolution across files: `use` paths, impls, traits and typed receivers.

The crates and module tree come from crates.py.

qualified_name is `<crate>::<module path>::<item>` with the crate's own name
(`regex_syntax::ast::parse::Parser::new`); methods are named after the type
they are implemented for, wherever the impl block is. External paths keep
Rust's separators: `<external>::serde::Serialize`.

Names are looked up as Rust does: items, `use`s and globs of the enclosing
function bodies, then the enclosing module (never its parent), then the
crates of the project and the external/std ones, then the prelude (builtin).
Privacy is not checked: code that compiles only names what it may see.
Receivers are typed by `self`, declared parameter, `let` and field types,
struct literals and the declared return types of the functions called; `?`
and `unwrap` open `Option`/`Result`. A call of a trait method (through
`dyn Trait`, `impl Trait`, a bounded generic or `Self` in a default method)
points at the trait's declaration and fans out to every implementation
(`dispatch`). Every edge names its rule (engine/rules.py); a chain takes
its weakest.

Call sites that are counted as builtin: prelude constructors and types
(`Some`, `Ok`, `Vec::new`, `Box::new`), standard macros, and methods of
standard traits and types on receivers that are not repository types or that
a repository type gets by derive (`clone`, `len`, `iter`, ...). Other macros
(`log::info!`, a crate's own `macro_rules!`) are unresolved sites named
`name!`: what they expand to is not seen.

Edge ownership: a file owns the edges its facts produce. That is the edges
that start at its symbols, and also those of its impl blocks: CONTAINS
(type -> method) and IMPLEMENTS (type -> trait) come from the file with the
impl, even when the type is defined in another file. So editing an impl
re-resolves only its own file, and the impl's header names (recorded as
ReferenceFacts of kind "impl", which make no edge) tie it to the type's file.
"""

from __future__ import annotations

from codeimpact.indexer.lang.api import FileFacts, SymbolFact
from codeimpact.indexer.lang.engine.edges import Edges
from codeimpact.indexer.lang.engine.project import Project
from codeimpact.indexer.lang.engine.rules import weakest
from codeimpact.indexer.lang.engine.scopes import innermost
from codeimpact.indexer.lang.rust.crates import module_tree
from codeimpact.indexer.lang.rust.index import (
    PATH,
    PRELUDE,
    PRIMITIVES,
    STD_MACROS,
    STD_METHODS,
    TYPE_KINDS,
    Entity,
    File,
    Impl,
    Scope,
    head,
    std_trait,
)
from codeimpact.indexer.lang.rust.matching import MACROS
from codeimpact.indexer.lang.rust.paths import Paths
from codeimpact.indexer.lang.rust.values import Values
from codeimpact.indexer.resolved import ResolvedFile, Unresolved, external_uid, strip_dup


class RustProject(Values, Paths, Project):
    """Resolution context for all Rust files of one index."""

    language = "rust"
    common_methods = STD_METHODS

    def __init__(
        self, files: dict[str, FileFacts], is_test_path, configs: dict[str, str] | None = None
    ):
        super().__init__(is_test_path)
        self.files: dict[str, File] = {p: File(p, f) for p, f in sorted(files.items())}
        for fi in self.files.values():
            self._index_file(fi)
        tree = module_tree(files, configs or {})
        self.libs: dict[str, str] = tree.libs  # library crate name -> root file
        for p, fi in self.files.items():
            m = tree.modules[p]
            fi.crate, fi.root, fi.segs, fi.is_test, fi.parent = (
                m.crate,
                m.root,
                m.segs,
                m.is_test,
                m.parent,
            )
            for scope, children in m.mods.items():
                fi.scope(scope).mods.update(children)
        self._impls: dict[tuple[str, int], Impl] = {}
        self.type_impls: dict[tuple, list[Impl]] = {}
        self.trait_impls: dict[tuple, list[Impl]] = {}
        self._index_impls()
        # `macro_rules!` of the project: calls in their arguments are the caller's
        self.macro_names = {m for fi in self.files.values() for m in fi.bindings.get(MACROS, ())}

    # ------------------------------------------------------------ per-file index
    def _index_file(self, fi: File) -> None:
        f = fi.facts
        fi.impl_of = dict(f.extra.get("method_impl", {}))
        for s in f.symbols:
            fi.syms[s.local] = s
            if s.kind in ("function", "method"):
                fi.params[s.local] = {n: t for n, t in s.params if n != "_"}
            if s.local and s.local not in fi.impl_of:  # methods are no names of a scope
                fi.scope(head(s.local)).items.setdefault(s.name, s.local)
        for imp in f.imports:
            sc = fi.scope(imp.scope)
            if imp.name == "*":
                sc.globs.append(imp)
            elif imp.alias != "_":
                sc.uses.setdefault(imp.alias or imp.name, []).append(imp)
        for b in f.bindings:
            fi.bindings.setdefault(b.scope, {}).setdefault(b.name, []).append(b)
        for per in fi.bindings.values():
            for lst in per.values():
                lst.sort(key=lambda b: b.line)

    # ------------------------------------------------------------ impls
    def _index_impls(self) -> None:
        for path, fi in self.files.items():
            impls = fi.facts.extra.get("impls", ())
            for i, (scope, self_path, trait_path, prefix, line, _test) in enumerate(impls):
                self._impls[(path, i)] = Impl(path, i, scope, self_path, trait_path, prefix, line)
            for local, i in fi.impl_of.items():
                imp = self._impls.get((path, i))
                if imp is not None:
                    imp.methods.setdefault(fi.syms[local].name, []).append(local)
            for local, s in fi.syms.items():
                if s.kind == "method":
                    self.methods_by_name.setdefault(s.name, []).append((path, local))
        for imp in self._impls.values():
            fi = self.files[imp.path]
            reason = "scope"
            if imp.self_path:
                r = self.resolve_path(fi, imp.scope, imp.self_path.split("::"))
                if r is not None:
                    ent, reason = r
                    ent = self._follow_alias(ent)
                    if ent[0] == "sym" and self._kind(ent) in ("struct", "enum", "trait"):
                        imp.type_key = (ent[1], ent[2])
                        self.type_impls.setdefault(imp.type_key, []).append(imp)
            if imp.trait_path:
                r = self.resolve_path(fi, imp.scope, imp.trait_path.split("::"))
                if r is not None:
                    imp.trait, treason = std_trait(r[0]), r[1]
                    reason = weakest(reason, treason)
                    if imp.trait[0] == "sym" and self._kind(imp.trait) == "trait":
                        self.trait_impls.setdefault((imp.trait[1], imp.trait[2]), []).append(imp)
            imp.reason = reason

    def module_names(self) -> dict[str, str]:
        """path -> its module path (and test flag): what `mod` lines and manifests decide."""
        return {
            p: self.module_qname(fi) + (" [test]" if fi.is_test else "")
            for p, fi in self.files.items()
        }

    # ------------------------------------------------------------ small lookups
    def _kind(self, ent: Entity) -> str | None:
        if ent[0] != "sym":
            return None
        s = self.files[ent[1]].syms.get(ent[2])
        return s.kind if s is not None else None

    def _container(self, fi: File, local: str) -> str:
        """The lexical scope a definition is written in (an impl's methods: the impl's)."""
        i = fi.impl_of.get(local)
        if i is not None:
            imp = self._impls.get((fi.path, i))
            return imp.scope if imp is not None else head(local)
        return head(local)

    def _module_of(self, fi: File, scope: str) -> str:
        """The local of the innermost module (file "" or inline) around a scope."""
        syms = fi.syms
        s = innermost(scope, lambda s: self._container(fi, s),
                      lambda s: s in syms and syms[s].kind == "module")  # fmt: skip
        return s or ""

    def _parent_module(self, fi: File, mlocal: str) -> tuple[File, str] | None:
        if mlocal:
            return fi, self._module_of(fi, self._container(fi, mlocal))
        if fi.parent is None:
            return None
        p, local = fi.parent
        return self.files[p], self._module_of(self.files[p], local)

    def _impl_around(self, fi: File, scope: str) -> Impl | None:
        s = innermost(scope, lambda s: self._container(fi, s), fi.impl_of.__contains__)
        return self._impls.get((fi.path, fi.impl_of[s])) if s is not None else None

    def _trait_around(self, fi: File, scope: str) -> str | None:
        s = scope
        while s:
            sym = fi.syms.get(s)
            if sym is not None and sym.kind == "trait":
                return s
            if s in fi.impl_of:
                return None
            s = self._container(fi, s)
        return None

    def _self_type(self, fi: File, scope: str) -> Entity | None:
        """What `Self` names in a scope: the impl's type, or the trait in a trait's body."""
        imp = self._impl_around(fi, scope)
        if imp is not None:
            return ("sym", *imp.type_key) if imp.type_key else None
        t = self._trait_around(fi, scope)
        return ("sym", fi.path, t) if t is not None else None

    def _follow_alias(self, ent: Entity, depth: int = 0) -> Entity:
        while ent[0] == "sym" and self._kind(ent) == "type_alias" and depth < 8:
            fi = self.files[ent[1]]
            enc = fi.facts.extra.get("alias", {}).get(ent[2], "")
            if not enc or enc.startswith(("?", "dyn ", "[")) or enc in PRIMITIVES:
                return ent
            r = self.resolve_path(fi, self._container(fi, ent[2]), enc.split("::"))
            if r is None or r[0] == ent:
                return ent
            ent = r[0]
            depth += 1
        return ent

    # ------------------------------------------------------------ output
    def module_qname(self, fi: File, mlocal: str = "") -> str:
        parts = [fi.crate, *fi.segs]
        if mlocal:
            parts.extend(strip_dup(mlocal).split("."))
        return "::".join(parts)

    def qualified(self, fi: File, local: str) -> str:
        if not local:
            return self.module_qname(fi)
        i = fi.impl_of.get(local)
        if i is not None:
            imp = self._impls.get((fi.path, i))
            if imp is not None and imp.type_key is not None:
                tfi = self.files[imp.type_key[0]]
                return f"{self.qualified(tfi, imp.type_key[1])}::{fi.syms[local].name}"
        return f"{self.module_qname(fi)}::{'::'.join(strip_dup(local).split('.'))}"

    def ent_uid(self, ent: Entity) -> str | None:
        k = ent[0]
        if k in ("sym", "inst", "mod"):
            return self.uid(ent[1], ent[2])
        if k == "variant":
            return self.uid(ent[1], ent[2])
        if k == "ext":
            return external_uid(ent[1])
        return None

    def _parent_uid(self, fi: File, local: str) -> str:
        i = fi.impl_of.get(local)
        if i is not None:
            imp = self._impls.get((fi.path, i))
            if imp is not None and imp.type_key is not None:
                return self.uid(*imp.type_key)
        return self.uid(fi.path, self._container(fi, local))

    def module_symbol_name(self, fi: File) -> str:
        return fi.segs[-1] if fi.segs else fi.crate

    def row_is_test(self, fi: File, s: SymbolFact, file_is_test: bool) -> bool:
        return file_is_test or fi.is_test or s.is_test

    def container_uid(self, fi: File, s: SymbolFact) -> str:
        return self._parent_uid(fi, s.local)

    def file_edges(self, fi: File, edges: Edges) -> None:
        path, f = fi.path, fi.facts
        module_uid = self.uid(path, "")
        for i in range(len(f.extra.get("impls", ()))):
            imp = self._impls[(path, i)]
            if imp.type_key is not None and imp.trait is not None and imp.trait[0] != "builtin":
                src, dst = self.uid(*imp.type_key), self.ent_uid(imp.trait)
                if dst is not None and dst != src:
                    edges.add("IMPLEMENTS", src, dst, imp.reason, imp.line)

        for imp in f.imports:
            r = self.import_target(fi, imp)
            if r is None:
                continue
            dst = self.ent_uid(r[0])
            if dst is not None and dst != module_uid:
                edges.add("IMPORTS", module_uid, dst, "import", imp.line)
        for scope, name, line, _p, _t in f.extra.get("mods", ()):
            child = fi.scopes.get(scope, Scope()).mods.get(name)
            if child is not None:
                edges.add("IMPORTS", module_uid, self.uid(child, ""), "scope", line)

        for h in f.heritage:
            r = self.resolve_path(fi, self._container(fi, h.scope), h.base.split("::"))
            if r is None:
                continue
            ent, reason = std_trait(r[0]), r[1]
            if ent[0] == "ext" or self._kind(ent) == "trait":
                edges.add("EXTENDS", self.uid(path, h.scope), self.ent_uid(ent), reason, h.line)

        for ref in f.references:
            if ref.kind == "impl":
                continue
            r = self.resolve_path(fi, ref.scope, ref.target.split("::"))
            if r is None or r[0][0] != "sym" or self._kind(r[0]) not in TYPE_KINDS:
                continue
            src, dst = self.uid(path, ref.scope), self.ent_uid(r[0])
            if src != dst:
                edges.add("REFERENCES", src, dst, r[1], ref.line)

    def calls(self, fi: File):
        for i, call in enumerate(fi.facts.calls):
            kind, _, ctx = call.kind.partition("@")
            if ctx and ctx not in self.macro_names:
                continue  # inside another crate's macro (quote!, json!): maybe not code
            yield i, call._replace(kind=kind)

    # ------------------------------------------------------------ calls
    def resolve_call(self, fi: File, index: int, call, edges: Edges, out: ResolvedFile) -> None:
        src = self.uid(fi.path, call.scope)
        if call.kind == "macro":
            head, _, last = call.callee.rpartition("::")
            if last in STD_MACROS and head in ("", "std", "core", "alloc"):
                out.calls_builtin += 1
            else:
                out.unresolved.append(Unresolved(src, last + "!", call.line))
            return
        if call.kind == "method":
            self._method_call(fi, call, src, edges, out)
        else:
            self._path_call(fi, call, src, edges, out)
        for _pos, arg in call.args:
            r = self.resolve_path(fi, call.scope, arg.split("::"))
            if r is not None and r[0][0] == "sym" and self._kind(r[0]) in ("function", "method"):
                if not self._binding(fi, call.scope, arg, call.line) and not self._param(
                    fi, call.scope, arg
                ):
                    edges.add("REFERENCES", src, self.ent_uid(r[0]), r[1], call.line)

    def _edge(self, edges: Edges, src, ent, reason, line) -> None:
        edges.call(src, self.ent_uid(ent), reason, line)

    def _fan_out(self, edges: Edges, src, ent, line) -> None:
        if self._is_trait_method(ent):
            impls = self.implementations((ent[1], ent[2]))
            edges.dispatch(src, (self.uid(p, local) for p, local in impls), line)

    def _path_call(self, fi: File, call, src, edges, out) -> None:
        last = call.callee.rpartition("::")[2]
        segs = call.callee.split("::")
        if call.callee == "?" or not all(segs):
            out.unresolved.append(Unresolved(src, last, call.line))
            return
        if len(segs) == 1 and call.kind == "call":
            # a local holding a closure or a fn pointer: only `let g = f;` names a definition
            b = self._binding(fi, call.scope, last, call.line)
            if b is not None and PATH.fullmatch(b.value):
                r = self.resolve_path(fi, call.scope, b.value.split("::"))
                if r is not None and self._kind(r[0]) in ("function", "method"):
                    self._edge(edges, src, r[0], weakest(r[1], "alias"), call.line)
                    return
            if b is not None or self._param(fi, call.scope, last):
                out.unresolved.append(Unresolved(src, last, call.line))
                return
        r = self.resolve_path(fi, call.scope, segs)
        if (
            len(segs) == 1
            and call.kind == "call"
            and last in PRELUDE
            and (r is None or r[0][0] == "mod" or self._kind(r[0]) in ("enum", "trait"))
        ):
            # `Err(e)` where a crate's own `enum Err` is in scope: types and values are
            # separate namespaces, and only the prelude's Err is a value
            r = ("builtin", last), "scope"
        if r is None:
            out.unresolved.append(Unresolved(src, last, call.line))
            return
        ent, reason = self._follow_alias(r[0]), r[1]
        k = ent[0]
        if k == "builtin":
            out.calls_builtin += 1
            return
        if k == "ext":
            self._edge(edges, src, ent, reason, call.line)
            return
        if k == "many" and segs[0] == "Self" and len(segs) == 2:
            own = self._same_impl(fi, call.scope, last)
            if own is not None:
                ent, k, reason = own, "sym", "self"
        if k == "many":
            for p, local in ent[1]:
                self._edge(edges, src, ("sym", p, local), "dispatch", call.line)
            return
        if k == "variant":
            self._edge(edges, src, ent, "constructor", call.line)
            return
        kind = self._kind(ent) if k == "sym" else None
        if call.kind == "struct":
            if kind in ("struct", "enum"):
                self._edge(edges, src, ent, "constructor", call.line)
            else:
                out.unresolved.append(Unresolved(src, last, call.line))
            return
        if kind == "struct":
            self._edge(edges, src, ent, "constructor", call.line)
        elif kind in ("function", "method"):
            self._edge(edges, src, ent, reason, call.line)
            if len(segs) > 1:  # Trait::f(), T::f(), Self::f() in a trait: any implementation
                owner = self.resolve_path(fi, call.scope, segs[:-1])
                if owner is not None and self._kind(owner[0]) == "trait":
                    self._fan_out(edges, src, ent, call.line)
        else:
            out.unresolved.append(Unresolved(src, last, call.line))

    def _method_call(self, fi: File, call, src, edges, out) -> None:
        recv, _, name = call.callee.rpartition(".")
        r = self.eval_value(fi, call.scope, recv, call.line) if recv != "?" else None
        if r is None:
            if not self.unique_name_call(edges, src, name, call.line):
                if name in STD_METHODS:
                    out.calls_builtin += 1
                else:
                    out.unresolved.append(Unresolved(src, name, call.line))
            return
        val, reason = r
        k = val[0]
        if k == "ext":
            self._edge(edges, src, ("ext", f"{val[1]}::{name}"), reason, call.line)
            return
        if k in ("builtin", "wrap", "seq"):
            out.calls_builtin += 1
            return
        targets, how = self._method_targets(val, name, reason)
        if len(targets) > 1 and recv == "self":
            own = self._same_impl(fi, call.scope, name)
            if own is not None:
                targets, how = [own], "self"
        if not targets:
            if name in STD_METHODS:
                out.calls_builtin += 1
            else:
                out.unresolved.append(Unresolved(src, name, call.line))
            return
        for ent in targets:
            self._edge(edges, src, ent, how, call.line)
            if k == "dyn":
                self._fan_out(edges, src, ent, call.line)

    def _same_impl(self, fi: File, scope: str, name: str) -> Entity | None:
        """`self.m()` / `Self::m()` where the type has several m: the one of this impl block
        (impls for `S` and `&S` both have S's methods)."""
        imp = self._impl_around(fi, scope)
        found = imp.methods.get(name) if imp is not None else None
        return ("sym", fi.path, found[0]) if found else None
