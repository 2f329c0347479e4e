"""C++ names on top of C's (a mixin of CProject): namespaces, classes, members, `this`.

A name written in a C++ scope (`ns.A.m`, the dotted local of a method) is looked up as the
compiler does, innermost first: the function's locals, `this`, the members of the
enclosing class and its bases (`self` / `inheritance`), then each enclosing namespace and
each `using namespace` in effect (`ns.A.name`, `ns.name`, `name`), then C's file, header and
link scopes. A namespace is an entity of its own, ("pkg", dotted), spanning every file that
opens it, so `ns::f()` and `ns::A::s()` are chains over it. Classes gather their members
from their bodies and from the out-of-class definitions of any file (`int A::m() {...}`
in a .cpp: the definition replaces the bodyless declaration of that arity, so a call
through the class reaches the code that runs). Constructors are the `<init>` members the
engine's constructions look for. A call on a receiver whose static type declares a virtual
method also reaches the overrides of the classes below it (`dispatch`, capped).
"""

from __future__ import annotations

from codeimpact.indexer.lang.engine.hierarchy import descendants, subtypes
from codeimpact.indexer.lang.engine.static import TYPE_KINDS, FileIndex
from codeimpact.indexer.resolved import strip_dup

CLASS_KINDS = frozenset({"class", "struct", "union"})
# namespaces of libraries a project uses but does not hold: `std::printf(...)` is theirs
LIBRARY_NAMESPACES = frozenset({"std", "boost", "absl", "v8", "node", "Napi", "folly", "Qt"})


class CppNames:
    """Needs CProject's tables (files, qualified_defs, namespaces, members, ...) and
    `_cpp_paths`, the C++ files in path order."""

    def index_cpp(self) -> None:
        """Out-of-class definitions join their class; constructors become `<init>`."""
        for path in self._cpp_paths:  # (every other file's index is built when a lookup asks)
            fi = self.files[path]
            declared = set(fi.extra.get("declared", ()))
            for s in fi.facts.symbols:
                if s.kind not in ("method", "constructor") or "." not in s.local:
                    continue
                parent = fi.parent[s.local]
                if parent in fi.syms:
                    owner = (path, parent)
                else:  # `A::m` defined outside its class
                    r = self.resolve_type(fi, self.namespace_of(fi, parent), strip_dup(parent))
                    if r is None or r[0][0] != "sym":
                        continue
                    owner = (r[0][1], r[0][2])
                    self._replace_declaration(owner, s, fi)
                target = (path, s.local)
                if s.kind == "constructor":
                    self.members.setdefault(owner, {}).setdefault("<init>", []).append(target)
                elif s.local not in declared or parent not in fi.syms:
                    pass  # added with the class's members (by the C indexing) or just now
        classes = [
            (path, sym.local)
            for path in self._cpp_paths
            for sym in self.files[path].facts.symbols
            if sym.kind in CLASS_KINDS
        ]
        self.subclasses = subtypes(
            classes, lambda t: [k for k, _kind, _line in self.super_keys(t) if k[0] != "x"]
        )

    def _replace_declaration(self, owner, s, fi) -> None:
        names = self.members.setdefault(owner, {})
        key = "<init>" if s.kind == "constructor" else s.name
        arity = fi.extra.get("arity", {}).get(s.local)
        kept = []
        for t in names.get(key, ()):
            tf = self.files[t[0]]
            is_decl = t[1] in tf.extra.get("declared", ())
            if is_decl and tf.extra.get("arity", {}).get(t[1]) == arity:
                continue
            kept.append(t)
        if key != "<init>":
            kept.append((fi.path, s.local))
            if s.kind == "method":
                self.methods_by_name.setdefault(s.name, []).append((fi.path, s.local))
        names[key] = kept

    # ------------------------------------------------------------------ scopes
    def namespace_of(self, fi: FileIndex, local: str) -> str:
        """The innermost namespace (or class) enclosing a local, as a dotted prefix."""
        return local

    def prefixes(self, fi: FileIndex, scope: str):
        """The dotted prefixes a name is tried under from `scope`, innermost first."""
        parts = strip_dup(scope).split(".") if scope else []
        for i in range(len(parts), 0, -1):
            yield ".".join(parts[:i])
        for s, ns in fi.extra.get("using", ()):
            if not s or scope == s or scope.startswith(s + "."):
                yield ns
        yield ""

    def owner_class(self, fi: FileIndex, scope: str):
        """The class a method's scope belongs to (its own file's, or the one `A::m` names)."""
        key = ("owner", fi.path, scope)
        table = self.memo.table
        if key in table:
            return table[key]
        res = None
        s = scope
        while s and res is None:
            parent = fi.parent.get(s, s.rpartition(".")[0])
            sym = fi.syms.get(parent)
            if sym is not None and sym.kind in CLASS_KINDS:
                res = (fi.path, parent)
            elif parent and sym is None:
                r = self.resolve_type(fi, "", strip_dup(parent))
                if r is not None and r[0][0] == "sym" and self.kind(r[0]) in CLASS_KINDS:
                    res = (r[0][1], r[0][2])
            s = parent
        table[key] = res
        return res

    def qualified_pick(self, fi: FileIndex, dotted: str, kinds=None):
        """(entity, reason) of the definition of a qualified name: in the file, a header it
        reaches, else one with external linkage elsewhere."""
        cands = [
            c
            for c in self.qualified_defs.get(dotted, ())
            if kinds is None or self.files[c[0]].syms[c[1]].kind in kinds
        ]
        if not cands:
            return None
        rank = self.rank(fi.path)
        seen = [c for c in cands if c[0] in rank]
        if seen:
            best = min(seen, key=lambda c: rank[c[0]])
            return ("sym", *best), "scope" if best[0] == fi.path else "import"
        linked = [c for c in cands if self.files[c[0]].syms[c[1]].exported]
        if len(linked) == 1:
            return ("sym", *linked[0]), "import" if self.declared(
                fi.path, dotted
            ) else "unique-name"
        return None

    def cpp_head(self, fi: FileIndex, scope: str, name: str, mode: str):
        """A name's meaning through `this`, the class and the namespaces (None: C's rules)."""
        cls = self.owner_class(fi, scope) if scope else None
        if name == "this":
            return (("inst", *cls), "self") if cls is not None else None
        if cls is not None and mode != "type":
            want = "method" if mode == "call" else "field"
            found = self.find_member(cls, name, want)
            if found is not None and found.targets:
                return self._member_hit(found, name, "self")
        kinds = TYPE_KINDS if mode == "type" else None
        if name in LIBRARY_NAMESPACES and name not in self.namespaces:
            return ("xpkg", name), "import"
        for p in self.prefixes(fi, scope):
            dotted = f"{p}.{name}" if p else name
            if dotted in self.namespaces:  # `scope` when this file opens it
                return ("pkg", dotted), "scope" if dotted in fi.syms else "import"
            if p:
                r = self.qualified_pick(fi, dotted, kinds)
                if r is not None:
                    return r
        return None

    def attr_pkg(self, ent, name, call, reason):
        dotted = f"{ent[1]}.{name}"
        if dotted in self.namespaces:
            return ("pkg", dotted), reason
        cands = self.qualified_defs.get(dotted)
        if not cands:
            return None
        exported = [c for c in cands if self.files[c[0]].syms[c[1]].exported] or cands
        return ("sym", *exported[0]), reason

    def supertypes(self, tkey):
        fi = self.files[tkey[0]]
        out = []
        for h in fi.facts.heritage:
            if h.scope == tkey[1]:
                r = self.resolve_type(fi, fi.parent.get(h.scope, ""), h.base)
                if r is not None:
                    out.append((r[0], "extends", h.line))
        return tuple(out)

    def overrides(self, target, owner, receiver):
        """Methods of the same name in the classes below the receiver's static type."""
        if receiver is None:
            return []
        name = self.sym(target).name
        return [
            x
            for sub in descendants(receiver, lambda t: self.subclasses.get(t, ()))
            for x in self.members.get(sub, {}).get(name, ())
            if x != target
        ]

    def constructor_call(self, fi, src, ent, reason, call, edges) -> None:
        """`A(1)`, `A a(1)`, `new A(1)`: the class, and its constructors when written."""
        edges.call(src, f"{ent[1]}::{ent[2]}", reason, call.line)
        tkey = self.canonical((ent[1], ent[2]))
        if tkey is None or tkey[0] == "x":
            return
        for t in self.members.get(tkey, {}).get("<init>", ()):
            edges.call(src, f"{t[0]}::{t[1]}", "constructor" if reason != "unique-name" else reason,
                       call.line)  # fmt: skip
