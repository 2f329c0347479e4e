"""Members of the typed engine's types: lookup through the supertypes, owners, the hierarchy.

A mixin of StaticProject (engine/static.py). `members` holds each repository type's own
members by name (`add_member`); lookup walks the type and its supertypes breadth first
(engine/hierarchy.py) and picks overloads by arity (the language's `arity_fits`);
`super_keys` are a type's resolved supertypes (the language's `supertypes`, followed through
`canonical`), external ones as ("x", dotted).
"""

from __future__ import annotations

from typing import NamedTuple

from codeimpact.indexer.lang.engine.hierarchy import breadth_first
from codeimpact.indexer.lang.engine.rules import weakest
from codeimpact.native.sha import sha256

TYPE_KINDS = frozenset(
    {
        "class",
        "interface",
        "enum",
        "struct",
        "union",
        "type_alias",
        "trait",
        "module",
        "object",
        "mixin",
        "extension",
    }
)
CALLABLE_KINDS = frozenset({"function", "method", "constructor"})
# what holds a value a member access reads: fields, and properties (C#: a field with accessors)
FIELD_KINDS = frozenset({"variable", "property"})


def _NONE(_key) -> tuple:  # noqa: N802 (a constant function)
    return ()


class Found(NamedTuple):
    targets: tuple[tuple[str, str], ...]  # (path, local) of the members found
    inherited: bool  # found in a supertype, not in the type itself
    ambiguous: bool  # several overloads fit (or none did): each is only a possible target
    external: str  # an external supertype that may declare it, when the repository has none


class TypedMembers:
    """Member lookup and the type hierarchy of a StaticProject."""

    def add_member(self, owner: tuple[str, str], name: str, target: tuple[str, str]) -> None:
        self.members.setdefault(owner, {}).setdefault(name, []).append(target)
        if self.sym(target).kind == "method":
            self.methods_by_name.setdefault(name, []).append(target)

    # ------------------------------------------------------------------ members
    def find_member(self, tkey, name, want: str, argc: int | None = None, supers_only=False):
        """A member by name through the supertypes, breadth first; overloads picked by arity."""
        return self.memo.cached(
            ("member", tkey, name, want, argc, supers_only),
            lambda: self._find_member(tkey, name, want, argc, supers_only),
        )

    def _wanted(self, target, want: str) -> bool:
        kind = self.sym(target).kind
        if want == "method":
            return kind in CALLABLE_KINDS
        if want == "field":
            return kind in FIELD_KINDS
        return kind in TYPE_KINDS

    def _supers_of(self, tkey) -> list:
        """The supertypes member lookup goes on to (none past an external type)."""
        return [] if tkey[0] == "x" else [s for s, _kind, _line in self.super_keys(tkey)]

    def _find_member(self, tkey, name, want, argc, supers_only):
        first: Found | None = None
        external = ""
        # constructors are not inherited: the type's own only
        supers = self._supers_of if name != "<init>" else _NONE
        start = self._supers_of(tkey) if supers_only else None
        for depth, t in breadth_first(tkey, supers, start=start):
            if t[0] == "x":
                external = external or t[1]
                continue
            cands = [c for c in self.members.get(t, {}).get(name, ()) if self._wanted(c, want)]
            if cands:
                fit = [c for c in cands if self.arity_fits(c, argc)]
                if fit:
                    return Found(tuple(fit), depth > 0 or supers_only, len(fit) > 1, "")
                if first is None:
                    first = Found(tuple(cands), depth > 0 or supers_only, True, "")
        if first is not None:
            return first
        if external:
            return Found((), True, False, external)
        return None

    def super_keys(self, tkey) -> tuple:
        """Supertypes as keys: (path, local) for repository types, ("x", dotted) for external."""
        table = self.memo.table
        memo_key = ("supers", tkey)
        hit = table.get(memo_key)
        if hit is not None:
            return hit
        table[memo_key] = ()  # cycles (invalid code) stop here
        out = []
        for ent, kind, line in self.supertypes(tkey):
            if ent[0] == "sym":
                key = self.canonical((ent[1], ent[2]))
                if key is not None and key != tkey:
                    out.append((key, kind, line))
            elif ent[0] == "xsym":
                out.append((("x", ent[1]), kind, line))
        res = tuple(out)
        table[memo_key] = res
        return res

    def _member_hit(self, found: Found, name: str, reason: str):
        """(entity, reason) of the first member found, or of the external supertype's member."""
        if found.targets:
            return ("sym", *found.targets[0]), weakest(
                "inheritance", reason
            ) if found.inherited else reason
        return ("xsym", f"{found.external}.{name}"), weakest("inheritance", reason)

    def owner_type(self, ent) -> tuple[str, str] | None:
        """The type that declares a method (its members table entry)."""
        if self._owner_of is None:
            self.index_owners()
        return self._owner_of.get((ent[1], ent[2]))

    def index_owners(self) -> None:
        """Call once the members table is complete (or set `_owner_of` to None then: it is
        built on the first `owner_type`)."""
        self._owner_of = {
            t: owner for owner, names in self.members.items() for ts in names.values() for t in ts
        }

    def hierarchy_digest(self) -> str:
        """A digest of every type's resolved supertypes.

        Member lookup and dispatch walk supertypes through types the caller never names
        (C extends B extends A): when any file changes that relation, every file of the
        language is re-resolved (module_names of the subclasses carry this digest).
        """
        h = sha256()
        for path in sorted(self.files):
            for s in self.files[path].facts.symbols:
                if s.kind in TYPE_KINDS:
                    sup = [k for k, _kind, _line in self.super_keys((path, s.local))]
                    h.update(repr((path, s.local, sup)).encode())
        return h.hexdigest()[:16]
