"""The edges of a file on the typed engine besides its calls (a mixin of StaticProject):
imports (the language's hook), heritage (EXTENDS/IMPLEMENTS to the repository or external
type a base names), the language's extra edges, and REFERENCES (a type named in an
annotation, a value chain that is a definition)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from codeimpact.indexer.lang.engine.edges import Edges
from codeimpact.indexer.lang.engine.typed_members import TYPE_KINDS

if TYPE_CHECKING:
    from codeimpact.indexer.lang.engine.static import FileIndex


class TypedEdges:
    """File edges of a StaticProject (resolve_type, eval_chain, kind, ent_uid and the
    hooks import_edges, heritage_rel, extra_edges are the project's)."""

    def file_edges(self, fi: FileIndex, edges: Edges) -> None:
        self.import_edges(fi, edges)
        self.heritage_edges(fi, edges)
        self.extra_edges(fi, edges)
        self.reference_edges(fi, edges)

    def heritage_edges(self, fi: FileIndex, edges: Edges) -> None:
        for h in fi.facts.heritage:
            r = self.resolve_type(fi, fi.parent.get(h.scope, ""), h.base)
            if r is None or r[0][0] not in ("sym", "xsym"):
                continue
            if r[0][0] == "sym" and self.kind(r[0]) not in TYPE_KINDS:
                continue
            rel = self.heritage_rel(fi, h, r[0])
            dst = self.ent_uid(r[0])
            src = f"{fi.path}::{h.scope}"
            if dst != src:
                edges.add(rel, src, dst, r[1], h.line)

    def reference_edges(self, fi: FileIndex, edges: Edges) -> None:
        for ref in fi.facts.references:
            if ref.kind == "annotation":
                r = self.resolve_type(fi, ref.scope, ref.target)
                ok = r is not None and r[0][0] == "sym" and self.kind(r[0]) in TYPE_KINDS
            else:
                r = self.eval_chain(fi, ref.scope, ref.target, ref.line)
                ok = r is not None and r[0][0] == "sym"
            if not ok:
                continue
            src = f"{fi.path}::{ref.scope}"
            dst = self.ent_uid(r[0])
            if dst != src:
                edges.add("REFERENCES", src, dst, r[1], ref.line)
