"""Dart name resolution: Java's model (lang/java/resolve.py) with Dart's rules.

A library (a file and the files it lists as `part`s) is a package: its files see each
other's top-level names. `import 'x.dart'` makes the names of x and of what x exports visible
(`show` names only those; `as p` only as `p.name`); a part has its library's imports
(libraries.py turns URIs into files with pubspec.yaml). `dart:core` is implicit.

Calls: `m()` is a local function, else a method of the enclosing classes (inherited ones
too), else a type (`Cart()` constructs it, and its unnamed constructor when written), else a
top-level function of the library or an imported one; `Cart.empty()` is a named (or factory)
constructor, a member of Cart; `p.f()` a name of the libraries imported as p. A List of
repository values has them as elements (`first`, `last`, `single`, for-in); its other members
are dart:core's. `final xs = load();` is what the called method or function returns. An extension's
methods are members of the type it extends (found on any receiver of that type). Mixins
(`with`), `implements` and a mixin's `on` types are IMPLEMENTS; their members are inherited.
A name found nowhere: dart:core's functions (print, identical) are builtin, test/group/expect
belong to package:test (or flutter_test) when the file imports it, and a file importing one
library from outside the repository sends the rest there (`import`).

qualified_name: the library's dotted name (libraries.dotted: `shop.src.cart`) and the local.
"""

from __future__ import annotations

import dataclasses

from codeimpact.indexer.lang.api import FileFacts, ImportFact
from codeimpact.indexer.lang.dart.libraries import Libraries, external_name
from codeimpact.indexer.lang.engine.edges import Edges
from codeimpact.indexer.lang.engine.rules import weakest
from codeimpact.indexer.lang.engine.static import CALLABLE_KINDS, TYPE_KINDS
from codeimpact.indexer.lang.java.resolve import JavaProject
from codeimpact.indexer.resolved import external_uid, strip_dup

_CORE = frozenset(
    """Object String int double num bool List Map Set Iterable Iterator Future Stream
    FutureOr Duration DateTime Exception Error StringBuffer RegExp Uri Function Symbol Type
    Null Never Comparable MapEntry Record Enum StackTrace ArgumentError StateError
    FormatException UnimplementedError UnsupportedError RangeError Pattern Match Sink
    BigInt Runes Invocation Expando WeakReference dynamic""".split()
)
_CORE_FUNCTIONS = frozenset("print identical identityHashCode unawaited".split())
_TEST_LIBRARIES = ("package:test/", "package:flutter_test/", "package:test_api/")
_TEST_FUNCTIONS = frozenset(
    """test group expect setUp tearDown setUpAll tearDownAll testWidgets expectLater
    addTearDown fail markTestSkipped""".split()
)
_COMMON_METHODS = frozenset(
    """add remove map where forEach toList toString contains isEmpty length first last
    then listen dispose build call get set close init update save load clear""".split()
)


def _key(library: str) -> str:
    """A library's package key: its path, marked so no Dart name is ever read as one."""
    return f"<{library}>"


class DartProject(JavaProject):
    language = "dart"
    common_methods = _COMMON_METHODS
    implicit_package = "dart.core"
    implicit_types = _CORE
    external_roots = frozenset()
    object_methods = frozenset({"toString", "noSuchMethod"})
    root_object = "dart.core.Object"
    root_enum = "dart.core.Enum"

    def __init__(self, files: dict[str, FileFacts], is_test_path, configs=None):
        self.libs = Libraries({p: f.extra for p, f in files.items()}, configs or {})
        self.raw = files
        self.toplevel: dict[str, dict[str, tuple[str, str]]] = {}  # library -> name -> def
        for path in sorted(files):
            names = self.toplevel.setdefault(self.libs.library_of(path), {})
            for s in files[path].symbols:
                if s.local and "." not in s.local and s.kind not in TYPE_KINDS:
                    names.setdefault(s.name, (path, s.local))
        self.prefixes: dict[str, dict[str, list[str]]] = {}  # path -> prefix -> libraries
        self.outside: dict[str, list[str]] = {}  # path -> libraries outside, imported unprefixed
        self.star: dict[str, list[str]] = {}  # path -> libraries whose names it sees
        rewritten = {p: self._rewrite(p, f) for p, f in files.items()}
        super().__init__(rewritten, is_test_path, configs)
        self.packages = set()  # a Dart name never spells a library's path
        for path, fi in self.files.items():  # extension methods are their type's members
            for ext, on in fi.extra.get("on", {}).items():
                r = self.resolve_type(fi, fi.parent.get(ext, ""), on)
                if r is None or r[0][0] != "sym":
                    continue
                for s in fi.facts.symbols:
                    if fi.parent.get(s.local) == ext and s.kind in ("method", "property"):
                        self.add_member((r[0][1], r[0][2]), s.name, (path, s.local))
        self.index_owners()

    # ------------------------------------------------------------------ imports
    def _rewrite(self, path: str, facts: FileFacts) -> FileFacts:
        """The facts with the library as package and each import as the libraries it makes
        visible (a part takes its library's imports)."""
        lib = self.libs.library_of(path)
        imports: list[ImportFact] = []
        prefixes: dict[str, list[str]] = {}
        outside: list[str] = []
        star: list[str] = []
        for imp in self.raw[lib].imports:
            t = self.libs.target(lib, imp.module)
            if t not in self.libs.paths:
                name = external_name(imp.module)
                (prefixes.setdefault(imp.alias, []) if imp.alias else outside).append(name)
                continue
            if imp.alias:
                prefixes.setdefault(imp.alias, []).append(self.libs.library_of(t))
                continue
            for vis, shown in self.libs.visible(self.libs.library_of(t)):
                if imp.name == "*":
                    if shown is None:
                        imports.append(ImportFact("", _key(vis), 0, "*", "", imp.line))
                        star.append(vis)
                    else:
                        imports += [ImportFact("", _key(vis), 0, n, "", imp.line) for n in shown]
                elif (shown is None or imp.name in shown) and self._defines(vis, imp.name):
                    imports.append(ImportFact("", _key(vis), 0, imp.name, "", imp.line))
        self.prefixes[path], self.outside[path], self.star[path] = prefixes, outside, star
        extra = {**facts.extra, "package": _key(lib)}
        return dataclasses.replace(facts, imports=imports, extra=extra)

    def _defines(self, library: str, name: str) -> bool:
        if name in self.toplevel.get(library, {}):
            return True
        return any(
            s.name == name and s.local == name
            for p, f in self.raw.items()
            if self.libs.library_of(p) == library
            for s in f.symbols
        )

    def import_edges(self, fi, edges: Edges) -> None:
        """A file IMPORTS the libraries its imports and exports name (their module symbols,
        or the external library), and a library its parts."""
        src = f"{fi.path}::"
        facts = self.raw[fi.path]
        uris = [(i.module, i.line) for i in facts.imports]
        uris += [(u, line) for u, _shown, line in facts.extra.get("exports", ())]
        uris += list(facts.extra.get("parts", ()))
        seen = set()
        for uri, line in uris:
            t = self.libs.target(fi.path, uri)
            dst = f"{t}::" if t in self.libs.paths else external_uid(external_name(uri))
            if dst != src and dst not in seen:
                seen.add(dst)
                edges.add("IMPORTS", src, dst, "import", line)

    # ------------------------------------------------------------------ names
    def qualified(self, fi, local: str) -> str:
        lib = self.libs.library_of(fi.path) if local else fi.path
        name = self.libs.dotted(lib)
        return f"{name}.{strip_dup(local)}" if local else name

    def row_is_test(self, fi, s, file_is_test) -> bool:
        return file_is_test or s.is_test

    def _top(self, fi, name: str):
        """A top-level definition named `name` the file sees: its library's, an import's."""
        own = self.toplevel.get(self.libs.library_of(fi.path), {}).get(name)
        if own is not None:
            return ("sym", *own), "scope"
        for lib in self.star.get(fi.path, ()):
            hit = self.toplevel.get(lib, {}).get(name)
            if hit is not None and not name.startswith("_"):
                return ("sym", *hit), "import"
        for imp in self.files[fi.path].facts.imports:
            if imp.name == name:
                hit = self.toplevel.get(imp.module[1:-1], {}).get(name)
                if hit is not None:
                    return ("sym", *hit), "import"
        return None

    def lookup_head(self, fi, scope, name, line, mode, depth):
        libs = self.prefixes.get(fi.path, {}).get(name)
        if libs is not None and mode != "type":
            return ("pkg", f"{fi.path}\n{name}"), "import"
        r = super().lookup_head(fi, scope, name, line, mode, depth)
        if r is None and mode == "value":
            top = self._top(fi, name)
            if top is not None:
                return self.value_of(top[0], top[1], depth + 1) if self.kind(top[0]) in (
                    "variable", "property") else top  # fmt: skip
            # `final xs = load();`: the binding names the method or function it calls
            targets = self.call_head(fi, scope, name, line, None, depth)
            if targets and self.kind(targets[0][0]) in CALLABLE_KINDS:
                return targets[0][0], targets[0][1]
        return r

    def _resolve_type(self, fi, scope, chain):
        head, _, rest = chain.partition(".")
        if rest and "." not in rest and head in self.prefixes.get(fi.path, {}):
            return self.attr_pkg(("pkg", f"{fi.path}\n{head}"), rest, False, "import")
        r = super()._resolve_type(fi, scope, chain)
        if r is not None and r[0][0] == "xsym" and r[0][1].startswith("<"):
            return None  # a name `show`n from a repository library that declares no such type
        outside = self.outside.get(fi.path, ())
        if r is None and not rest and head[:1].isupper() and len(outside) == 1:
            return ("xsym", f"{outside[0]}.{head}"), "import"  # the one place left to look
        return r

    def attr_pkg(self, ent, name, call, reason):
        """`p.name` for an import prefix p: the libraries imported as p (and their exports)."""
        path, _, prefix = ent[1].partition("\n")
        outside = []
        for lib in self.prefixes.get(path, {}).get(prefix, ()):
            if lib not in self.libs.paths:
                outside.append(lib)
                continue
            for vis, shown in self.libs.visible(lib):
                if shown is not None and name not in shown:
                    continue
                hit = self.pkg_types.get(_key(vis), {}).get(name) or self.toplevel.get(
                    vis, {}).get(name)  # fmt: skip
                if hit is not None:
                    return ("sym", *hit), reason
        if len(outside) == 1:
            return ("xsym", f"{outside[0]}.{name}"), reason
        return None

    def call_head(self, fi, scope, name, line, argc, depth):
        for s in fi.outward(scope):  # a local function of an enclosing function
            sym = fi.syms.get(s)
            if s and sym is not None and sym.kind in TYPE_KINDS:
                break
            for local in fi.children.get(s, {}).get(name, ()) if s else ():
                if fi.syms[local].kind == "function" and not fi.syms[local].is_test:
                    return [(("sym", fi.path, local), "scope", None)]
        targets = super().call_head(fi, scope, name, line, argc, depth)
        if targets and any(t[0][0] != "xsym" for t in targets):
            return targets
        if self.holds_value(fi, scope, name):
            return targets  # a local or parameter holding a function: its value is not known
        r = self.resolve_type(fi, scope, name)
        if r is not None and r[0][0] in ("sym", "xsym"):
            return [(r[0], r[1], None)]  # a construction (of dart:core's types too)
        top = self._top(fi, name)
        if top is not None:
            return [(top[0], top[1], None)]
        if targets:
            return targets
        if name in _CORE_FUNCTIONS:
            return [(("builtin", name), "scope", None)]
        lib = self.libs.library_of(fi.path)
        if name in _TEST_FUNCTIONS:
            uri = next((i.module for i in self.raw[lib].imports
                        if i.module.startswith(_TEST_LIBRARIES)), None)  # fmt: skip
            if uri is not None:
                return [(("xsym", f"{external_name(uri)}.{name}"), "import", None)]
        outside = self.outside.get(fi.path, ())
        if len(outside) == 1 and not name.startswith("_"):
            return [(("xsym", f"{outside[0]}.{name}"), "import", None)]
        return None

    def attr(self, ent, name, call, reason, depth):
        """A List, Iterable or Set of repository values: `first`, `last`, `single` are an
        element; anything else is the container's (dart:core)."""
        if ent[0] == "slice":
            if name in ("first", "last", "single") and not call:
                return ent[1], weakest("local-type", reason)
            return ("xsym", f"dart.core.List.{name}"), reason
        return super().attr(ent, name, call, reason, depth)

    def member_targets(self, ent, reason, name, argc, depth):
        if ent[0] == "slice":
            return [(("xsym", f"dart.core.List.{name}"), reason, None)]
        return super().member_targets(ent, reason, name, argc, depth)

    def type_call(self, fi, src, ent, reason, call, edges, out) -> None:
        """`Cart(...)`: the class, and its unnamed constructor when written."""
        self.construct(src, ent, reason, call, edges)

    def supertypes(self, tkey):
        out = super().supertypes(tkey)
        fi = self.files[tkey[0]]
        on = fi.extra.get("on", {}).get(tkey[1])
        if on:  # `this` in an extension is a value of the type it extends
            r = self.resolve_type(fi, fi.parent.get(tkey[1], ""), on)
            if r is not None:
                out = (*out, (r[0], "extends", 0))
        return out

    def module_names(self) -> dict[str, str]:
        """path -> its library and the libraries it sees: another file's exports, parts and
        pubspec.yaml decide what its names mean."""
        digest = self.hierarchy_digest()
        out = {}
        for path in self.files:
            seen = sorted({i.module for i in self.files[path].facts.imports})
            prefixed = sorted(f"{p}={','.join(v)}" for p, v in self.prefixes[path].items())
            out[path] = "|".join([self.package_of[path], *seen, *prefixed, digest])
        return out
