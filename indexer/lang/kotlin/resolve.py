"""Kotlin name resolution: Java's model (lang/java/resolve.py) with Kotlin's rules.

Packages and imports are Java's (`kotlin.*` and `kotlin.collections.*` implicit for their
common names, external). `Foo(...)` constructs: the class, and its constructor when one is
written (`constructor`). A plain `f(...)` is the enclosing class's method, else a top-level
function of the package or imported by name, else the only one of that name in the
repository. An extension function (`fun Cart.total()`) is found as a member of its
receiver type. Objects are types whose members are called on their name.
"""

from __future__ import annotations

from codeimpact.indexer.lang.api import FileFacts
from codeimpact.indexer.lang.java.resolve import JavaProject

_KOTLIN = frozenset(
    """Any Unit Nothing String Int Long Short Byte Double Float Boolean Char Array List
    MutableList Map MutableMap Set MutableSet Pair Triple Exception RuntimeException
    IllegalArgumentException IllegalStateException Throwable Comparable Iterable Sequence
    Regex StringBuilder Lazy Result""".split()
)
_STDLIB_FUNCTIONS = frozenset(
    """println print require check error TODO listOf mutableListOf setOf mutableSetOf mapOf
    mutableMapOf arrayOf emptyList emptyMap emptySet lazy run let also apply with takeIf
    repeat maxOf minOf requireNotNull checkNotNull buildList buildString hashMapOf
    arrayListOf hashSetOf linkedMapOf sortedMapOf intArrayOf floatArrayOf longArrayOf
    booleanArrayOf mapOfNotNull listOfNotNull sequenceOf generateSequence""".split()
)
_COMMON_METHODS = frozenset(
    """get set add remove size isEmpty contains map filter forEach first last let also apply
    run toString equals hashCode invoke save find update delete create build""".split()
)


class KotlinProject(JavaProject):
    language = "kotlin"
    common_methods = _COMMON_METHODS
    implicit_package = "kotlin"
    implicit_types = _KOTLIN
    external_roots = frozenset("kotlin kotlinx java javax android androidx org com io".split())
    object_methods = frozenset({"toString", "equals", "hashCode"})
    root_object = "kotlin.Any"
    root_enum = "kotlin.Enum"

    def __init__(self, files: dict[str, FileFacts], is_test_path, configs=None):
        super().__init__(files, is_test_path, configs)
        self.functions: dict[str, list[tuple[str, str]]] = {}
        for path, fi in self.files.items():
            for s in fi.facts.symbols:
                if s.kind != "function" or "." in s.local:
                    continue
                receiver = fi.extra.get("extends", {}).get(s.local)
                if receiver:  # an extension: a member of its receiver type
                    r = self.resolve_type(fi, "", receiver)
                    if r is not None and r[0][0] == "sym":
                        self.add_member((r[0][1], r[0][2]), s.name, (path, s.local))
                    continue
                self.functions.setdefault(s.name, []).append((path, s.local))
        self.index_owners()

    def lookup_head(self, fi, scope, name, line, mode, depth):
        r = super().lookup_head(fi, scope, name, line, mode, depth)
        if r is None and mode == "value":  # `val x = f(1)`: the binding names the function
            found = self._function(fi, name)
            if found:
                return found[0][0], found[0][1]
        return r

    def call_head(self, fi, scope, name, line, argc, depth):
        targets = super().call_head(fi, scope, name, line, argc, depth)
        if targets and any(t[0][0] != "xsym" for t in targets):
            return targets
        # nothing in the repository's classes (an external supertype "may declare" it): a
        # class to construct (imported or kotlin's too), a top-level function, the standard
        # library, a function imported by name come first
        if not name.isidentifier() or name in ("constructor", "init"):
            return None  # no name to look up (`?`), or a declaration read as a call
        if self.holds_value(fi, scope, name):
            return None  # a parameter or local holding a function: what it holds is not known
        r = self.resolve_type(fi, scope, name)
        if r is not None and r[0][0] == "sym":
            return [(r[0], r[1], None)]
        found = self._function(fi, name)
        if found:
            return found
        if r is not None and name[:1].isupper():  # an outside type, constructed
            return [(r[0], r[1], None)]
        imported = next((i for i in fi.facts.imports if i.name == name), None)
        if imported is not None:
            return [(("xsym", f"{imported.module}.{name}"), "import", None)]
        return targets

    def _function(self, fi, name):
        defs = self.functions.get(name, ())
        pkg = self.package_of[fi.path]
        same = [d for d in defs if self.package_of[d[0]] == pkg]
        imported = [
            d for d in defs for i in fi.facts.imports
            if i.name == name and self.package_of[d[0]] == i.module
        ]  # fmt: skip
        if same:
            return [(("sym", *same[0]), "scope", None)]
        if imported or len(defs) == 1:
            return [(("sym", *(imported or defs)[0]), "import", None)]
        if name in _STDLIB_FUNCTIONS:
            return [(("builtin", name), "scope", None)]
        return None

    def type_call(self, fi, src, ent, reason, call, edges, out) -> None:
        """`Cart(repo)`: the class, and its constructors when written."""
        self.construct(src, ent, reason, call, edges)
