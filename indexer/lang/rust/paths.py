"""Rust paths: `use`s, globs and the module tree, and members of modules, types and traits (a
mixin of RustProject)."""

from __future__ import annotations

from codeimpact.indexer.lang.api import ImportFact
from codeimpact.indexer.lang.engine.hierarchy import depth_first, first_member
from codeimpact.indexer.lang.engine.imports import (
    FOUND,
    MODULE,
    UNBOUND,
    exported,
    through_reexports,
)
from codeimpact.indexer.lang.engine.memo import memoized
from codeimpact.indexer.lang.engine.rules import weakest
from codeimpact.indexer.lang.engine.scopes import outward
from codeimpact.indexer.lang.rust.index import (
    MAX_DEPTH,
    PRELUDE,
    STD_CRATES,
    STD_METHODS,
    Entity,
    File,
    head,
)


class Paths:
    """What a path names: `crate::a::b`, `self::x`, `super::y`, a `use`, a glob, `T::f`."""

    def resolve_path(self, fi: File, scope: str, segs: list[str], depth: int = 0):
        """A path as written in `scope` -> (entity, reason) or None."""
        if depth > MAX_DEPTH or not segs or not segs[0]:
            return None
        first = segs[0]
        r = self._pathhead(fi, scope, first, depth, multi=len(segs) > 1)
        if r is None:
            return None
        ent, reason = r
        for seg in segs[1:]:
            r = self.member(ent, seg, reason, depth + 1)
            if r is None:
                return None
            ent, reason = r
        return ent, reason

    def _pathhead(self, fi: File, scope: str, first: str, depth: int, multi: bool):
        if first == "crate":
            return self._crate_root(fi), "scope"
        if first == "self":
            return ("mod", fi.path, self._module_of(fi, scope)), "scope"
        if first == "super":
            pm = self._parent_module(fi, self._module_of(fi, scope))
            return (("mod", pm[0].path, pm[1]), "scope") if pm else None
        if first == "Self":
            st = self._self_type(fi, scope)
            return (st, "self") if st is not None else None
        gen = self._generic(fi, scope, first)
        if gen is not None:  # `T::f()` for `T: Trait` calls the trait's f
            traits = self._dyn_traits(fi, scope, gen, depth)
            if traits:
                return ("sym", *traits[0]), "local-type"
            return ("builtin", first), "scope"
        r = self.lookup(fi, scope, first, depth)
        if r is not None:
            return r
        return self._outside(first, multi)

    def _outside(self, first: str, multi: bool):
        """A first path segment no scope binds: a project crate, std, another crate, prelude."""
        if first in self.libs:
            return ("mod", self.libs[first], ""), "import"
        if first in STD_CRATES:
            return ("ext", first), "import"
        if first in PRELUDE:
            return ("builtin", first), "scope"
        if multi and first[:1].islower():  # an external crate, by the 2018 extern prelude
            return ("ext", first), "import"
        return None

    def _crate_root(self, fi: File) -> Entity:
        return ("mod", fi.root or fi.path, "")

    def _generic(self, fi: File, scope: str, name: str) -> str | None:
        gens = fi.facts.extra.get("generics", {})
        s = scope
        while s:
            g = gens.get(s)
            if g is not None and name in g:
                return g[name]
            s = self._container(fi, s)
        return None

    def lookup(self, fi: File, scope: str, name: str, depth: int = 0):
        """A single name: enclosing function bodies, then the enclosing module."""
        for s in outward(scope, lambda s: self._container(fi, s)):
            sym = fi.syms.get(s)
            if s == "" or (sym is not None and sym.kind == "module"):
                return self.module_member(fi.path, s, name, depth + 1)
            if sym is None or sym.kind in ("function", "method"):
                r = self._scope_member(fi, s, name, depth + 1)
                if r is not None:
                    return r
        return None  # not reached: the walk ends at the module

    def _scope_member(self, fi: File, s: str, name: str, depth: int):
        """A name of a module or function scope: its own items, modules and `use`s, then
        its globs (the engine's walk, engine/imports.py; a module here is (path, scope))."""
        r = self.own_binding((fi.path, s), name, depth)
        return r if r is not UNBOUND else through_reexports(self, (fi.path, s), name, depth)

    def module_member(self, path: str, mlocal: str, name: str, depth: int = 0):
        if depth > MAX_DEPTH:
            return None
        return exported(self, ("m", path, mlocal, name), (path, mlocal), name, depth + 1)

    # the engine's export walk: its hooks. The depths are those the lookups counted before
    # the shared walk (a glob one step, its base path another), so depth bounds cut where
    # they did.
    def exported(self, module: tuple[str, str], name: str, depth: int):
        return self.module_member(module[0], module[1], name, depth + 1)

    def own_binding(self, module: tuple[str, str], name: str, depth: int):
        path, s = module
        fi = self.files[path]
        sc = fi.scopes.get(s)
        if sc is None:
            return UNBOUND
        local = sc.items.get(name)
        if local is not None:
            sym = fi.syms[local]
            kind = "mod" if sym.kind == "module" else "sym"
            return (kind, fi.path, local), "scope"
        child = sc.mods.get(name)
        if child is not None:
            return ("mod", child, ""), "scope"
        for imp in sc.uses.get(name, ()):
            r = self.import_target(fi, imp, depth + 1)
            if r is not None:
                return r[0], weakest(r[1], "import") if r[1] != "scope" else "import"
        return UNBOUND

    def reexports(self, module: tuple[str, str], name: str):
        sc = self.files[module[0]].scopes.get(module[1])
        return sc.globs if sc is not None else ()

    def reexport_target(self, module: tuple[str, str], imp: ImportFact, name: str, depth: int):
        """`use m::*` leads to module m; `use E::*` answers with E's variant `name`."""
        fi = self.files[module[0]]
        base = self.resolve_path(fi, imp.scope, imp.module.split("::"), depth + 2)
        if base is None:
            return None
        ent, _ = base
        ent = self._follow_alias(ent)
        if ent[0] == "mod":
            if (ent[1], ent[2]) == module:
                return None
            return MODULE, (ent[1], ent[2])
        if ent[0] == "sym" and self._kind(ent) == "enum":
            r = self.member(ent, name, "import", depth + 2)
            return (FOUND, r) if r is not None and r[0][0] == "variant" else None
        return None

    @staticmethod
    def via_reexport(found):
        return found[0], "import"  # a glob's name is an import step, whatever it was there

    def import_target(self, fi: File, imp: ImportFact, depth: int = 0):
        """What a `use` leaf (or `extern crate`) binds."""
        segs = [*imp.module.split("::"), imp.name] if imp.module else [imp.name]
        if imp.name == "*":
            segs = imp.module.split("::")
        # (through `use`s and globs, which may form cycles: a lookup meeting itself gets None;
        # past the depth bound, nothing is looked up)
        if depth > MAX_DEPTH:
            return None
        return self._use_path(fi, imp, segs, depth + 1)

    @memoized('("i", fi.path, imp)')
    def _use_path(self, fi: File, imp: ImportFact, segs: list[str], depth: int):
        first = segs[0]
        if first in ("crate", "self", "super"):
            return self.resolve_path(fi, imp.scope, segs, depth)
        # `use foo;` / `extern crate foo;` name a crate; a longer path starts at a name
        # of this scope (2018 uniform paths), else at a crate
        r = self.lookup(fi, imp.scope, first, depth) if len(segs) > 1 else None
        if r is None:
            r = self._outside(first, True)
        if r is None:
            return None
        ent, reason = r
        reason = "import" if reason == "scope" else reason
        for seg in segs[1:]:
            r = self.member(ent, seg, reason, depth + 1)
            if r is None:
                return None
            ent, reason = r
        return ent, reason

    # ------------------------------------------------------------ members
    def member(self, ent: Entity, name: str, reason: str, depth: int = 0):
        """`ent::name` -> (entity, reason) or None."""
        if depth > MAX_DEPTH:
            return None
        k = ent[0]
        if k == "mod" and name in ("super", "self"):  # `super::super::x`
            fi = self.files[ent[1]]
            pm = self._parent_module(fi, ent[2]) if name == "super" else (fi, ent[2])
            return (("mod", pm[0].path, pm[1]), reason) if pm else None
        if k == "mod":
            r = self.module_member(ent[1], ent[2], name, depth + 1)
            return (r[0], weakest(reason, r[1])) if r is not None else None
        if k == "ext":
            return ("ext", f"{ent[1]}::{name}"), reason
        if k == "builtin":
            return ("builtin", f"{ent[1]}::{name}"), reason
        if k != "sym":
            return None
        ent = self._follow_alias(ent)
        kind = self._kind(ent)
        if kind == "enum":
            fi = self.files[ent[1]]
            if name in fi.facts.extra.get("variants", {}).get(ent[2], ()):
                return ("variant", ent[1], ent[2], name), reason
        if kind == "trait":
            m = self.trait_method((ent[1], ent[2]), name)
            if m is not None:
                return ("sym", *m[0]), weakest(reason, m[1])
            return None
        if kind in ("struct", "enum"):
            found, how = self.methods_of((ent[1], ent[2]), name)
            if len(found) == 1:
                return ("sym", *found[0]), weakest(reason, how)
            if found:
                return ("many", tuple(found)), "dispatch"
            if name in STD_METHODS:
                return ("builtin", name), reason
        return None

    def methods_of(self, key: tuple, name: str) -> tuple[list, str]:
        """Methods `name` of a type: its impls' own, else a default of a trait it implements."""
        own = [
            (imp.path, local)
            for imp in self.type_impls.get(key, ())
            for local in imp.methods.get(name, ())
        ]
        if own:
            return own, "scope"
        seen = []
        for imp in self.type_impls.get(key, ()):
            if imp.trait is not None and imp.trait[0] == "sym":
                m = self.trait_method((imp.trait[1], imp.trait[2]), name)
                if m is not None and m[0] not in seen:
                    seen.append(m[0])
        return seen, "inheritance"

    def trait_method(self, trait: tuple, name: str):
        """((path, local), reason) of a method declared by a trait or, the first found
        depth first, one of its supertraits (9 levels at most: cycles are cut there)."""

        def declared(t: tuple) -> tuple[str, str] | None:
            local = f"{t[1]}.{name}"
            s = self.files[t[0]].syms.get(local)
            return (t[0], local) if s is not None and s.kind == "method" else None

        walk = (t for _depth, t in depth_first(trait, self.supertraits, max_depth=9))
        hit = first_member(walk, declared)
        if hit is None:
            return None
        return hit[2], "scope" if hit[0] == 0 else "inheritance"

    def supertraits(self, trait: tuple) -> list[tuple]:
        key = ("sup", trait)
        table = self.memo.table
        if key in table:
            return table[key]
        table[key] = []
        fi = self.files[trait[0]]
        out = []
        for h in fi.facts.heritage:
            if h.scope == trait[1]:
                r = self.resolve_path(fi, self._container(fi, h.scope), h.base.split("::"))
                if r is not None and r[0][0] == "sym" and self._kind(r[0]) == "trait":
                    out.append((r[0][1], r[0][2]))
        table[key] = out
        return out

    def implementations(self, trait_method: tuple) -> list[tuple[str, str]]:
        """The methods that implement a trait's method, in every impl of the trait."""
        path, local = trait_method
        trait, name = head(local), self.files[path].syms[local].name
        return [
            (imp.path, m)
            for imp in self.trait_impls.get((path, trait), ())
            for m in imp.methods.get(name, ())
        ]

    def _is_trait_method(self, ent: Entity) -> bool:
        if ent[0] != "sym" or self._kind(ent) != "method":
            return False
        fi = self.files[ent[1]]
        return ent[2] not in fi.impl_of and self._kind(("sym", ent[1], head(ent[2]))) == "trait"
