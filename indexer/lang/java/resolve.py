"""Java name resolution: packages, imports, nested types, fields, overloads, inheritance.

Types are found the way javac finds them: type parameters, then member and
local types of the enclosing scopes (inherited member types included), the
file's single-type imports, the types of the same package (every file with the
same `package` clause, wherever it lies), on-demand imports (`a.b.*`, also of
a type's members), then `java.lang`. A dotted name is a package path when its
head is a package of the repository or an external root (`java`, `org`, the
head of an import); anything outside the repository is external
(`<external>::java.util.List`, members `<external>::java.util.List.add`).

qualified_name: `<package>.<local>` (`com.x.app.Outer.Inner.run`,
`com.x.app.Outer.<init>`); a file's module symbol is named by its package.

Calls: `m()` and `this.m()` on the enclosing classes (`self`, through
superclasses and interfaces `inheritance`), `super.m()` (`super`), `A.m()`
(the rule that found `A`), methods on fields, locals and parameters whose
declared type is known (`local-type`), static imports (`import`), `new T()`
(the class at the rule that found `T`, and its constructor at `constructor`).
Overloads are picked by argument count; when several (or none) fit, every
overload is a target at `dispatch`. A call on an instance also reaches the
overrides of the method in the repository's subtypes of the instance's static
type, at `dispatch` (not abstract ones; static and private methods have none;
none at all past engine/static.MAX_DISPATCH candidates). A type parameter
stands for its first bound (`Object` when unbounded). Methods of `Object`
(`equals`, `hashCode`...) that the repository does not declare, and members
only an external supertype can declare, resolve to that external type.
"""

from __future__ import annotations

from codeimpact.indexer.lang.api import FileFacts
from codeimpact.indexer.lang.engine.edges import Edges
from codeimpact.indexer.lang.engine.hierarchy import descendants, subtypes
from codeimpact.indexer.lang.engine.rules import weakest
from codeimpact.indexer.lang.engine.static import (
    TYPE_KINDS,
    FileIndex,
    StaticProject,
)
from codeimpact.indexer.lang.java.junit import JUnit
from codeimpact.indexer.resolved import external_uid, strip_dup

# java.lang is imported implicitly; these are its public types (Java 21).
_JAVA_LANG = frozenset(
    """AbstractMethodError Appendable ArithmeticException ArrayIndexOutOfBoundsException
    ArrayStoreException AssertionError AutoCloseable Boolean BootstrapMethodError Byte Character
    CharSequence Class ClassCastException ClassCircularityError ClassFormatError ClassLoader
    ClassNotFoundException ClassValue CloneNotSupportedException Cloneable Comparable Deprecated
    Double Enum EnumConstantNotPresentException Error Exception ExceptionInInitializerError Float
    FunctionalInterface IllegalAccessError IllegalAccessException IllegalArgumentException
    IllegalCallerException IllegalMonitorStateException IllegalStateException
    IllegalThreadStateException IncompatibleClassChangeError IndexOutOfBoundsException
    InheritableThreadLocal InstantiationError InstantiationException Integer InternalError
    InterruptedException Iterable LayerInstantiationException LinkageError Long MatchException
    Math Module ModuleLayer NegativeArraySizeException NoClassDefFoundError NoSuchFieldError
    NoSuchFieldException NoSuchMethodError NoSuchMethodException NullPointerException Number
    NumberFormatException Object OutOfMemoryError Override Package Process ProcessBuilder
    ProcessHandle Readable Record ReflectiveOperationException Runnable Runtime RuntimeException
    RuntimePermission SafeVarargs ScopedValue SecurityException SecurityManager Short
    StackOverflowError StackTraceElement StackWalker StrictMath String StringBuffer StringBuilder
    StringIndexOutOfBoundsException StringTemplate SuppressWarnings System Thread ThreadDeath
    ThreadGroup ThreadLocal Throwable TypeNotPresentException UnknownError UnsatisfiedLinkError
    UnsupportedClassVersionError UnsupportedOperationException VerifyError VirtualMachineError
    Void WrongThreadException""".split()
)
_OBJECT_METHODS = frozenset(
    "equals hashCode toString getClass notify notifyAll wait clone finalize".split()
)
_EXTERNAL_ROOTS = frozenset(
    "java javax jdk sun com org net io android androidx kotlin scala jakarta lombok junit".split()
)
# Method names so widespread that "the only repository method with this name" says nothing.
_COMMON_METHODS = frozenset(
    """get set add put remove size isEmpty contains containsKey iterator next hasNext close run
    call apply accept test compareTo length append getName getValue getKey getId setName setValue
    toString equals hashCode start stop init build create execute process handle update delete
    insert find load save read write flush open clear reset copy clone valueOf values stream map
    filter forEach collect of parse format print println printf debug info warn error trace log
    getType getMessage getCause getClass wait notify submit invoke newInstance keySet entrySet
    addAll removeAll indexOf substring trim split replace toArray asList emptyList singletonList
    sort max min sum count orElse ifPresent isPresent join getInstance instance register
    unregister dispose destroy validate check assertEquals assertTrue assertFalse assertNull
    assertNotNull fail verify when then thenReturn""".split()
)


class JavaProject(JUnit, StaticProject):
    language = "java"
    common_methods = _COMMON_METHODS
    # The language's runtime, as class attributes so a language of the same model (C#: the
    # System namespace, System.Object) can say its own
    implicit_package = "java.lang"
    implicit_types = _JAVA_LANG
    external_roots = _EXTERNAL_ROOTS
    object_methods = _OBJECT_METHODS
    root_object = "java.lang.Object"
    root_enum = "java.lang.Enum"

    def __init__(self, files: dict[str, FileFacts], is_test_path, configs=None):
        super().__init__(files, is_test_path, configs)
        self.package_of: dict[str, str] = {}
        self.pkg_types: dict[str, dict[str, tuple[str, str]]] = {}
        self.pkg_files: dict[str, list[str]] = {}
        self.packages: set[str] = set()
        self.fqn: dict[str, tuple[str, str]] = {}
        for path, fi in self.files.items():
            pkg = fi.extra.get("package", "")
            self.package_of[path] = pkg
            self.pkg_files.setdefault(pkg, []).append(path)
            parts = pkg.split(".") if pkg else []
            for i in range(1, len(parts) + 1):
                self.packages.add(".".join(parts[:i]))
            types = self.pkg_types.setdefault(pkg, {})
            for s in fi.facts.symbols:
                if s.kind not in TYPE_KINDS or "#" in s.local:
                    continue
                if "." not in s.local:
                    types.setdefault(s.name, (path, s.local))
                if self._is_member_type(fi, s.local):
                    self.fqn.setdefault(f"{pkg}.{s.local}" if pkg else s.local, (path, s.local))
        for path, fi in self.files.items():
            for s in fi.facts.symbols:
                parent = fi.parent.get(s.local)
                if parent is None:
                    continue
                ps = fi.syms.get(parent)
                if ps is not None and ps.kind in TYPE_KINDS:
                    self.add_member((path, parent), s.name, (path, s.local))
        self.index_owners()
        self._subtypes: dict[tuple[str, str], list[tuple[str, str]]] | None = None
        self._static: dict[str, frozenset[int]] = {
            p: frozenset(fi.extra.get("static", ())) for p, fi in self.files.items()
        }

    @staticmethod
    def _is_member_type(fi: FileIndex, local: str) -> bool:
        """Top-level or nested in types only: local and anonymous classes have no canonical name."""
        s = local
        while s:
            sym = fi.syms.get(s)
            if sym is None or sym.kind not in TYPE_KINDS or sym.name.startswith("$"):
                return False
            s = fi.parent.get(s, "")
        return "$" not in local

    # ------------------------------------------------------------------ hooks
    def qualified(self, fi: FileIndex, local: str) -> str:
        pkg = self.package_of[fi.path]
        if not local:
            return pkg
        return f"{pkg}.{strip_dup(local)}" if pkg else strip_dup(local)

    def row_is_test(self, fi, s, file_is_test) -> bool:
        return file_is_test or (s.kind == "method" and s.is_test)

    def argc(self, fi: FileIndex, index: int):
        counts = fi.extra.get("argc", ())
        return counts[index] if index < len(counts) else None

    def arity_fits(self, target, argc) -> bool:
        if argc is None:
            return True
        params = self.sym(target).params
        n = len(params)
        if params and params[-1][0].startswith("*"):
            return argc >= n - 1
        return argc == n

    def enclosing_type(self, fi: FileIndex, scope: str) -> str | None:
        return fi.innermost(scope, TYPE_KINDS)

    def _imports(self, fi: FileIndex, static: bool):
        flags = self._static[fi.path]
        for i, imp in enumerate(fi.facts.imports):
            if (i in flags) == static:
                yield imp

    def lookup_head(self, fi, scope, name, line, mode, depth):
        if name in ("this", "super"):
            t = self.enclosing_type(fi, scope)
            if t is None:
                return None
            if name == "this":
                return ("inst", fi.path, t), "self"
            return ("super", fi.path, t), "super"
        if mode == "call":
            targets = self.call_head(fi, scope, name, line, None, depth)
            return (targets[0][0], targets[0][1]) if targets else None
        if mode == "value":
            r = self._value_name(fi, scope, name, line, depth)
            if r is not None:
                return r
        r = self.resolve_type(fi, scope, name, depth)
        if r is not None:
            return r
        if name in self.packages:
            return ("pkg", name), "import"
        if name in self.external_roots or any(
            imp.module.partition(".")[0] == name for imp in fi.facts.imports
        ):
            return ("xpkg", name), "import"
        return None

    def _value_name(self, fi, scope, name, line, depth):
        """A local, parameter or field named `name`, innermost scope first."""
        at = line  # the line counts in the innermost scope only
        for s in fi.outward(scope):
            entry = self.scoped_entry(fi, s, name, at)
            at = None
            if entry is not None:
                return self.local_value(fi, s, entry, depth)
            sym = fi.syms.get(s)
            if s and sym is not None and sym.kind in TYPE_KINDS:
                found = self.find_member((fi.path, s), name, "field")
                if found is not None and found.targets:
                    rule = "inheritance" if found.inherited else "self"
                    return self.value_of(("sym", *found.targets[0]), rule, depth + 1)
        for imp in self._imports(fi, static=True):
            if imp.name == name:
                owner = self.resolve_fqn(imp.module)
                if owner[0] == "xsym":
                    return ("xsym", f"{imp.module}.{name}"), "import"
                found = self.find_member((owner[1], owner[2]), name, "field")
                if found is not None and found.targets:
                    return self.value_of(("sym", *found.targets[0]), "import", depth + 1)
        return None

    def call_head(self, fi, scope, name, line, argc, depth):
        """`m(...)`: the enclosing classes (and what they inherit), then static imports."""
        if name == "?":  # a callee with no name (a value called): nothing to look up
            return None
        external = ""
        t = self.enclosing_type(fi, scope)
        while t is not None:
            found = self.find_member((fi.path, t), name, "method", argc)
            if found is not None and found.targets:
                reason = "inheritance" if found.inherited else "self"
                if found.ambiguous:
                    reason = "dispatch"
                return [(("sym", *x), reason, (fi.path, t)) for x in found.targets]
            if found is not None and found.external and not external:
                external = found.external
            t = self.enclosing_type(fi, fi.parent.get(t, ""))
        ext_star = []
        for imp in self._imports(fi, static=True):
            if imp.name not in (name, "*"):
                continue
            owner = self.resolve_fqn(imp.module)
            if owner[0] == "xsym":
                if imp.name == name:
                    return [(("xsym", f"{imp.module}.{name}"), "import", None)]
                ext_star.append(imp.module)
                continue
            found = self.find_member((owner[1], owner[2]), name, "method", argc)
            if found is not None and found.targets:
                reason = "dispatch" if found.ambiguous else "import"
                return [(("sym", *x), reason, None) for x in found.targets]
        if external:
            return [(("xsym", f"{external}.{name}"), "inheritance", None)]
        if len(ext_star) == 1:  # the only place left that can declare it
            return [(("xsym", f"{ext_star[0]}.{name}"), "import", None)]
        if name in self.object_methods and self.enclosing_type(fi, scope) is not None:
            return [(("xsym", f"{self.root_object}.{name}"), "inheritance", None)]
        return None

    def holds_value(self, fi, scope, name) -> bool:
        """Whether `name` is a local or parameter in scope: in a language whose functions are
        values (Kotlin, Swift, Dart), `name(...)` then calls what it holds, unknown here."""
        return any(self.scoped_entry(fi, s, name, None) for s in fi.outward(scope) if s)

    def member_targets(self, ent, reason, name, argc, depth):
        targets = super().member_targets(ent, reason, name, argc, depth)
        if targets is None and name == "<init>" and ent[0] == "super":
            # `super(...)` of a superclass without declared constructors: its implicit one
            for sup, kind, _line in self.super_keys((ent[1], ent[2])):
                if kind == "extends" and sup[0] != "x":
                    return [(("sym", *sup), "super", None)]
        if targets is None and argc == 0 and ent[0] == "inst":
            found = self.find_member((ent[1], ent[2]), name, "field")
            if found is not None and found.targets and self.is_accessor(("sym", *found.targets[0])):
                rule = weakest("inheritance", reason) if found.inherited else reason
                return [(("sym", *found.targets[0]), rule, None)]
        if targets is None and name in self.object_methods:
            if ent[0] in ("inst", "super") or self.kind(ent) in TYPE_KINDS:
                return [
                    (("xsym", f"{self.root_object}.{name}"), weakest("inheritance", reason), None)
                ]
        return targets

    def is_accessor(self, ent) -> bool:
        fi = self.files[ent[1]]
        return fi.parent.get(ent[2], "") in fi.extra.get("records", ())

    def construct(self, src, ent, reason, call, edges) -> None:
        """A type called like a function constructs it (Kotlin `Cart(r)`, Swift `Cart(r:)`):
        the type, and its constructors when written."""
        edges.call(src, f"{ent[1]}::{ent[2]}", reason, call.line)
        tkey = self.canonical((ent[1], ent[2]))
        for t in self.members.get(tkey, {}).get("<init>", ()) if tkey else ():
            edges.call(src, f"{t[0]}::{t[1]}", "constructor", call.line)

    def type_call(self, fi, src, ent, reason, call, edges, out):
        # only `super(...)` reaches here: the superclass's implicit constructor runs
        dst = f"{ent[1]}::{ent[2]}"
        edges.call(src, dst, reason, call.line)

    # ------------------------------------------------------------------ types
    def resolve_fqn(self, dotted: str):
        """A fully qualified type name: a repository type (nested ones too) or an external."""
        if dotted in self.fqn:
            return ("sym", *self.fqn[dotted])
        head, _, rest = dotted.rpartition(".")
        while head:
            if head in self.fqn:
                ent = ("sym", *self.fqn[head])
                for seg in rest.split("."):
                    found = self.find_member((ent[1], ent[2]), seg, "type")
                    if found is None or not found.targets:
                        return ("xsym", dotted)
                    ent = ("sym", *found.targets[0])
                return ent
            head, _, last = head.rpartition(".")
            rest = f"{last}.{rest}"
        return ("xsym", dotted)

    def resolve_type(self, fi, scope, chain, depth=0):
        key = ("type", fi.path, scope, chain)
        table = self.memo.table
        if key in table:
            return table[key]
        table[key] = None  # a cycle through inherited member types ends here
        r = self._resolve_type(fi, scope, chain)
        table[key] = r
        return r

    def _tparam(self, fi: FileIndex, scope: str, name: str) -> str | None:
        """The local that declares type parameter `name` in scope, if one does."""
        tparams = fi.extra.get("tparams", {})
        return next((s for s in fi.outward(scope) if name in tparams.get(s, ())), None)

    def _resolve_type(self, fi, scope, chain):
        head, _, rest = chain.partition(".")
        r = self._type_head(fi, scope, head)
        if r is None:
            if not rest or not (
                head in self.packages
                or head in self.external_roots
                or any(i.module.partition(".")[0] == head for i in fi.facts.imports)
            ):
                return None
            return self.resolve_fqn(chain), "import"
        ent, reason = r
        for seg in rest.split(".") if rest else ():
            if ent[0] == "xsym":
                ent = ("xsym", f"{ent[1]}.{seg}")
                continue
            found = self.find_member((ent[1], ent[2]), seg, "type")
            if found is None or not found.targets:
                return None
            ent = ("sym", *found.targets[0])
            if found.inherited:
                reason = weakest("inheritance", reason)
        return ent, reason

    def _type_head(self, fi, scope, name):
        owner = self._tparam(fi, scope, name)
        if owner is not None:  # a type parameter stands for its bound (Object when unbounded)
            bound = fi.extra.get("bounds", {}).get(owner, {}).get(name)
            if bound and bound != name:
                return self.resolve_type(fi, fi.parent.get(owner, ""), bound)
            return ("xsym", self.root_object), "local-type"
        for s in fi.outward(scope):  # member and local types of the enclosing scopes
            for local in fi.children.get(s, {}).get(name, ()):
                if fi.syms[local].kind in TYPE_KINDS:
                    return ("sym", fi.path, local), "scope"
            sym = fi.syms.get(s)
            if s and sym is not None and sym.kind in TYPE_KINDS:
                found = self.find_member((fi.path, s), name, "type", None, True)
                if found is not None and found.targets:
                    return ("sym", *found.targets[0]), "inheritance"
        for imp in self._imports(fi, static=False):
            if imp.name == name:
                return self.resolve_fqn(f"{imp.module}.{name}"), "import"
        pkg = self.package_of[fi.path]
        hit = self.pkg_types.get(pkg, {}).get(name)
        if hit is not None:
            return ("sym", *hit), "scope"
        for imp in fi.facts.imports:
            if imp.name != "*":
                continue
            hit = self.pkg_types.get(imp.module, {}).get(name)
            if hit is not None:
                return ("sym", *hit), "import"
            if imp.module in self.fqn:  # import a.b.Outer.* (static or not): member types
                owner = self.fqn[imp.module]
                found = self.find_member(owner, name, "type")
                if found is not None and found.targets:
                    return ("sym", *found.targets[0]), "import"
        hit = self.pkg_types.get(self.implicit_package, {}).get(name)
        if hit is not None:
            return ("sym", *hit), "import"
        if name in self.implicit_types:
            return ("xsym", f"{self.implicit_package}.{name}"), "import"
        return None

    def attr_pkg(self, ent, name, call, reason):
        sub = f"{ent[1]}.{name}"
        if sub in self.packages:
            return ("pkg", sub), reason
        hit = self.pkg_types.get(ent[1], {}).get(name)
        if hit is not None:
            return ("sym", *hit), reason
        return (("xsym" if name[:1].isupper() else "xpkg"), sub), reason

    def attr_xpkg(self, ent, name, call, reason):
        sub = f"{ent[1]}.{name}"
        return (("xsym" if name[:1].isupper() or call else "xpkg"), sub), reason

    def supertypes(self, tkey):
        fi = self.files[tkey[0]]
        out = []
        scope = fi.parent.get(tkey[1], "")
        for h in fi.facts.heritage:
            if h.scope == tkey[1]:
                r = self.resolve_type(fi, scope, h.base)
                if r is not None:
                    out.append((r[0], h.kind, h.line))
        kind = fi.syms[tkey[1]].kind
        if kind == "enum":  # values(), valueOf(), ordinal()...
            out.append((("xsym", self.root_enum), "extends", 0))
        return tuple(out)

    def heritage_rel(self, fi, h, ent):
        if h.kind == "implements":
            return "IMPLEMENTS"
        src_kind = fi.syms[h.scope].kind
        if src_kind != "interface" and self.kind(ent) == "interface":
            return "IMPLEMENTS"  # an anonymous class of an interface
        return "EXTENDS"

    # ------------------------------------------------------------------ dispatch
    def subtypes(self) -> dict:
        if self._subtypes is None:
            types = (
                (path, s.local)
                for path, fi in self.files.items()
                for s in fi.facts.symbols
                if s.kind in TYPE_KINDS
            )
            self._subtypes = subtypes(
                types, lambda t: [k for k in self._supers_of(t) if k[0] != "x"]
            )
        return self._subtypes

    def overrides(self, target, owner, receiver):
        sym = self.sym(target)
        mods = self.files[target[0]].extra.get("modifiers", {}).get(target[1], "").split()
        if owner is None or sym.name == "<init>" or "static" in mods or "private" in mods:
            return []
        modifiers = self.files  # the overrides that can run: not abstract ones
        subs = self.subtypes()
        n = len(sym.params)
        # the subtypes of the instance's static type: a List's add is no EnumSet's
        out = []
        for t in descendants(receiver, lambda k: subs.get(k, ())):
            for m in self.members.get(t, {}).get(sym.name, ()):
                ms = self.sym(m)
                m_mods = modifiers[m[0]].extra.get("modifiers", {}).get(m[1], "").split()
                if ms.kind == "method" and len(ms.params) == n and m != target:
                    if "abstract" not in m_mods:
                        out.append(m)
        return sorted(out)

    # ------------------------------------------------------------------ imports
    def extra_edges(self, fi, edges: Edges) -> None:
        self.junit_edges(fi, edges)  # a test calls the set-ups JUnit runs around it

    def import_edges(self, fi, edges: Edges) -> None:
        src = f"{fi.path}::"
        used = None
        flags = self._static[fi.path]
        for i, imp in enumerate(fi.facts.imports):
            dsts: list[str] = []
            if i in flags:
                owner = self.resolve_fqn(imp.module)
                if owner[0] == "xsym":
                    dotted = imp.module if imp.name == "*" else f"{imp.module}.{imp.name}"
                    dsts.append(external_uid(dotted))
                else:
                    members = self.members.get((owner[1], owner[2]), {}).get(imp.name, ())
                    dsts += [f"{p}::{loc}" for p, loc in members] or [f"{owner[1]}::{owner[2]}"]
            elif imp.name == "*":
                names = self.pkg_types.get(imp.module)
                if names is None and imp.module in self.fqn:
                    owner = self.fqn[imp.module]
                    names = {
                        n: ts[0]
                        for n, ts in self.members.get(owner, {}).items()
                        if self.sym(ts[0]).kind in TYPE_KINDS
                    }
                if names is None:
                    dsts.append(external_uid(imp.module))
                else:
                    # the types this file uses through the import, by name
                    used = used if used is not None else self._used_heads(fi)
                    dsts += [f"{p}::{loc}" for n, (p, loc) in sorted(names.items()) if n in used]
            else:
                ent = self.resolve_fqn(f"{imp.module}.{imp.name}")
                dsts.append(self.ent_uid(ent))
            for dst in dsts:
                if not dst.startswith(src):
                    edges.add("IMPORTS", src, dst, "import", imp.line)

    @staticmethod
    def _used_heads(fi: FileIndex) -> set[str]:
        f = fi.facts
        heads = {r.target.partition(".")[0] for r in f.references}
        heads |= {c.callee.partition(".")[0].rstrip("(){}[]") for c in f.calls}
        heads |= {h.base.partition(".")[0] for h in f.heritage}
        return heads

    def module_names(self) -> dict[str, str]:
        """path -> what its resolution depends on that no name written in it says.

        Its package (a moved or re-packaged file binds different names) and the digest of
        the type hierarchy (see StaticProject.hierarchy_digest).
        """
        digest = self.hierarchy_digest()
        return {p: f"{pkg}|{digest}" for p, pkg in self.package_of.items()}
