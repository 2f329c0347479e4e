"""TypeScript / JavaScript members as a receiver sees them (a mixin of TsProject): an
attribute of a module, a namespace, an object or a class instance (members through the
extends-then-implements chain, fields bound in the class, an external base's members),
heritage, call results (an instance of a class, what a function returns) and subtypes."""

from __future__ import annotations

from codeimpact.indexer.lang.engine.hierarchy import (
    extends_then_implements,
    first_member,
    subtypes,
)
from codeimpact.indexer.lang.engine.memo import memoized
from codeimpact.indexer.lang.engine.receivers import returned_value
from codeimpact.indexer.lang.engine.rules import CONFIDENCE, weakest
from codeimpact.indexer.lang.typescript.exports import MAX_DEPTH as _MAX_DEPTH
from codeimpact.indexer.lang.typescript.exports import Entity

TYPE_KINDS = frozenset(["class", "interface"])
_INSTANCE = frozenset(["inst"])  # what a call result must be for members to be found
NO_MEMBERS: dict = {}  # read-only: the members of a type that has none


def _inherited(reason: str) -> str:
    """The rule of a member found in a base type: `inheritance`, unless a weaker step came first
    (or the chain started at `super`, whose rule it keeps)."""
    if reason == "super":
        return reason
    return "inheritance" if CONFIDENCE[reason] >= CONFIDENCE["inheritance"] else reason


class Members:
    """Members of a TsProject (files, memo, eval_chain, eval_type and the export walk are
    the project's)."""

    def getattr(self, er: tuple[Entity, str], attr: str, depth: int):
        ent, reason = er
        k = ent[0]
        if k == "mod":
            r = self.export_lookup(ent[1], attr, depth + 1)
            return (r[0], weakest(reason, r[1])) if r is not None else None
        if k == "ext":
            return ("ext", f"{ent[1]}.{attr}"), reason
        if k == "builtin":
            return ent, reason
        if k not in ("sym", "inst"):
            return None
        fi = self.files[ent[1]]
        kind = fi.kind(ent[2])
        if kind == "module":  # a TS namespace
            m = fi.members.get(ent[2], {}).get(attr)
            return (("sym", ent[1], m), reason) if m is not None else None
        if kind in ("variable", "function"):
            m = fi.members.get(ent[2], {}).get(attr)  # obj.m = / F.prototype.m = function
            return (("sym", ent[1], m), reason) if m is not None else None
        if kind not in TYPE_KINDS:
            return None
        hit = self.member(ent[1], ent[2], attr)
        if hit is not None:
            (p, m), inherited = hit
            return ("sym", p, m), _inherited(reason) if inherited else reason
        if k == "inst":
            for i, (p, c) in enumerate(self.type_chain(ent[1], ent[2])):
                binds = self.files[p].fields.get(c, {}).get(attr)
                if binds:
                    r = self._eval_binding(self.files[p], binds[-1], depth + 1)
                    if r is None:
                        return None
                    rr = weakest(weakest(reason, r[1]), "local-type")
                    return r[0], _inherited(rr) if i else rr
        ext = self._external_base(ent[1], ent[2])
        if ext is not None:
            # class X extends React.Component: this.setState() is the external base's
            return ("ext", f"{ext}.{attr}"), _inherited(reason)
        return None

    def member(self, path: str, local: str, attr: str):
        """((path, local), inherited) of a member through the type chain."""
        files = self.files
        hit = first_member(self.type_chain(path, local),
                           lambda k: files[k[0]].members.get(k[1], NO_MEMBERS).get(attr))  # fmt: skip
        return ((hit[1][0], hit[2]), hit[0] > 0) if hit is not None else None

    def heritage(self, path: str, local: str) -> tuple:
        """((kind, entity, reason, line), ...) of a class or interface's extends/implements."""
        return self._heritage_of(path, local)

    @memoized('("heritage", path, local)')
    def _heritage_of(self, path: str, local: str) -> tuple:
        fi = self.files[path]
        scope = fi.parent.get(local, "")
        out = []
        for h in fi.facts.heritage:
            if h.scope != local:
                continue
            r = self.eval_chain(fi, scope, h.base, h.line)
            if r is None:
                continue
            ent, reason = r
            if ent[0] == "inst":
                ent = ("sym", ent[1], ent[2])
            if ent[0] == "ext" or (ent[0] == "sym" and self._kind(ent) in TYPE_KINDS):
                if ent != ("sym", path, local):
                    out.append((h.kind, ent, reason, h.line))
        return tuple(out)

    def type_chain(self, path: str, local: str) -> tuple[tuple[str, str], ...]:
        """The type, its `extends` ancestors (breadth first), then implemented interfaces."""
        return self._type_chain(path, local)

    @memoized('("chain", path, local)')
    def _type_chain(self, path: str, local: str) -> tuple[tuple[str, str], ...]:
        return extends_then_implements((path, local), self._supertypes)

    def _supertypes(self, key: tuple[str, str]):
        """(kind, (path, local)) of the repository types a class or interface extends or
        implements."""
        return [(kind, (e[1], e[2])) for kind, e, _r, _l in self.heritage(*key) if e[0] == "sym"]

    def _base_class(self, path: str, local: str) -> Entity | None:
        for kind, ent, _reason, _line in self.heritage(path, local):
            if kind == "extends":
                return ("inst", ent[1], ent[2]) if ent[0] == "sym" else ent
        return None

    def _external_base(self, path: str, local: str) -> str | None:
        for p, c in self.type_chain(path, local):
            for kind, ent, _r, _l in self.heritage(p, c):
                if ent[0] == "ext" and kind == "extends":
                    return ent[1]
        return None

    def call_result(self, ent: Entity, depth: int) -> Entity | None:
        """The value of calling `ent`: an instance for a class, what a function returns."""
        if ent[0] == "builtin":
            return ent  # expect(x).toBe(), Object.keys(o).map(): still the runtime's
        if ent[0] != "sym":
            return None
        if depth > _MAX_DEPTH:
            return self._cut()
        # memoised per function: `return f()` chains would otherwise be walked once per path
        return self._call_result(ent, depth)

    @memoized('("result", ent)')
    def _call_result(self, ent: Entity, depth: int) -> Entity | None:
        fi = self.files[ent[1]]
        kind = fi.kind(ent[2])
        if kind == "class" or (kind == "function" and ent[2] in fi.members):
            return ("inst", ent[1], ent[2])  # a class, or a constructor function with a prototype
        if kind not in ("function", "method"):
            return None

        def declared(text, _r):
            res = self.eval_type(fi, ent[2], text, depth + 1)
            return res[0] if res is not None else None

        return returned_value(self, fi, fi.returns.get(ent[2], ()), ":", declared, _INSTANCE, depth)

    def subtypes(self) -> dict[tuple[str, str], list[tuple[str, str]]]:
        """Type -> the classes and interfaces that extend or implement it directly (built
        once, at the first dispatch, in the project's memo)."""
        return self.memo.cached(("subtypes",), self._subtypes_table)

    def _subtypes_table(self) -> dict[tuple[str, str], list[tuple[str, str]]]:
        types = (
            (path, local)
            for path, fi in self.files.items()
            for local, s in fi.syms.items()
            if s.kind in TYPE_KINDS
        )
        return subtypes(types, lambda k: [t for _kind, t in self._supertypes(k)])
