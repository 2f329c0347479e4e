"""Swift name resolution: Java's model (lang/java/resolve.py) with Swift's rules.

The files of a module share one scope (every package is ""); `import X` names another
module (external). An `extension T` is a part of T (java/partial.py): its methods are T's.
`T(...)` constructs: the type, and its `init` when one is written (`constructor`). A plain
`f(...)` is the enclosing type's method, else a type, else a top-level function, else the
standard library's (builtin: `print`, `min`...). A protocol is an interface: conforming
types IMPLEMENT it and a call through it dispatches to them.
"""

from __future__ import annotations

from codeimpact.indexer.lang.api import FileFacts
from codeimpact.indexer.lang.java.partial import PartialTypes
from codeimpact.indexer.lang.java.resolve import JavaProject

_SWIFT = frozenset(
    """String Int Double Float Bool Character Array Dictionary Set Optional Error Equatable
    Hashable Comparable Codable Encodable Decodable Identifiable CustomStringConvertible
    Sequence Collection Result Never Any AnyObject Data Date URL NSObject""".split()
)
_STDLIB = frozenset(
    """print debugPrint min max abs precondition preconditionFailure assert assertionFailure
    fatalError zip stride type dump repeatElement""".split()
)


class SwiftProject(PartialTypes, JavaProject):
    language = "swift"
    implicit_package = "Swift"
    implicit_types = _SWIFT
    external_roots = frozenset({"Foundation", "UIKit", "SwiftUI", "Combine", "XCTest"})
    object_methods = frozenset()
    root_object = "Swift.AnyObject"
    root_enum = "Swift.Enum"

    def __init__(self, files: dict[str, FileFacts], is_test_path, configs=None):
        super().__init__(files, is_test_path, configs)
        self.merge_parts()
        self.functions: dict[str, list[tuple[str, str]]] = {}
        for path, fi in self.files.items():
            for s in fi.facts.symbols:
                if s.kind == "function" and "." not in s.local:
                    self.functions.setdefault(s.name, []).append((path, s.local))

    def _unique_name(self, call, targets, last, src, edges) -> bool:
        if call.callee.startswith("super."):
            return False  # `super.m()` with no superclass method we know: not any `m`
        return super()._unique_name(call, targets, last, src, edges)

    def is_part(self, fi, s) -> bool:
        return s.kind in ("class", "struct", "enum", "interface") and "." not in s.local

    def call_head(self, fi, scope, name, line, argc, depth):
        targets = super().call_head(fi, scope, name, line, argc, depth)
        if targets and any(t[0][0] != "xsym" for t in targets):
            return targets
        if self.holds_value(fi, scope, name):
            return None  # a closure in a parameter or local (completionHandler(...)): not known
        r = self.resolve_type(fi, scope, name)
        if r is not None and r[0][0] == "sym":
            return [(r[0], r[1], None)]
        defs = self.functions.get(name, ())
        own = [d for d in defs if d[0] == fi.path]
        if own or len(defs) == 1:
            return [(("sym", *(own or defs)[0]), "scope", None)]
        if name in _STDLIB:
            return [(("builtin", name), "scope", None)]
        if name[:1].isupper():  # a type from outside constructed, not a supertype's method
            if r is not None:
                return [(r[0], r[1], None)]
            mods = [i.module for i in fi.facts.imports]
            return [(("xsym", f"{mods[0]}.{name}"), "import", None)] if len(mods) == 1 else None
        return targets

    def type_call(self, fi, src, ent, reason, call, edges, out) -> None:
        """`Cart(repo: r)`: the type, and its initialisers when written."""
        self.construct(src, ent, reason, call, edges)
