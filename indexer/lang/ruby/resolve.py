"""Ruby name resolution: Java's model (lang/java/resolve.py) with Ruby's rules.

Constants live in one namespace (every file's package is ""): a class or module defined in
any file is found by its name, nested ones through their enclosing constants (`A::B`), and
a class reopened in several files is one class with the methods of every part. Mixins
(`include M`) are IMPLEMENTS and their methods are found on the class; `Foo.new(...)` is a
construction: the class, and its `initialize` when one is written (`constructor`). A bare
`m(...)` in a method is the enclosing class's method (`self`, through superclasses and
mixins), else a top-level `def m` of any file (`import`). Receivers are typed by `x =
Foo.new` and by declared results where the engine knows them; a call on a receiver of
unknown type is unresolved unless the method name is unique in the repository
(`unique-name`). Ruby's core classes and Kernel methods (`puts`, `raise`) are external.

IMPORTS: `require_relative "x"` -> the file x.rb beside the requiring file; `require "x"`
-> the x.rb under a `lib/` folder of the repository (or its root), else the gem
(`<external>::x`).
"""

from __future__ import annotations

import posixpath

from codeimpact.indexer.lang.api import FileFacts
from codeimpact.indexer.lang.engine.edges import Edges
from codeimpact.indexer.lang.java.partial import PartialTypes
from codeimpact.indexer.lang.java.resolve import JavaProject
from codeimpact.indexer.resolved import external_uid

_CORE = frozenset(
    """Object BasicObject Kernel String Symbol Integer Float Numeric Array Hash Range Regexp
    Proc Method Struct Comparable Enumerable Enumerator File Dir IO Time Set Math Process
    Thread Mutex Exception StandardError RuntimeError ArgumentError TypeError NameError
    NoMethodError KeyError IndexError NotImplementedError IOError JSON ObjectSpace GC""".split()
)
_KERNEL = frozenset(
    """puts print p pp require require_relative raise format sprintf printf loop lambda proc
    attr_accessor attr_reader attr_writer private public protected module_function freeze
    dup clone send public_send respond_to? is_a? kind_of? instance_of? nil? tap then
    instance_variable_get instance_variable_set define_method yield block_given? catch throw
    sleep rand srand exit abort at_exit warn gets binding caller to_s inspect hash eql?
    equal? frozen? class instance_variables methods""".split()
)
_COMMON_METHODS = frozenset(
    """call each map select reject find to_s to_h to_a to_json size length count first last
    push pop shift add delete include? empty? any? all? save update destroy create new build
    run start stop get set read write close open render perform process handle split join
    strip chomp gsub sub to_sym to_i to_f inspect dup clone merge keys values fetch key? sort
    sort_by uniq compact flatten each_with_index each_pair send respond_to? is_a? kind_of?
    nil? freeze name downcase upcase start_with? end_with? match replace concat insert slice
    format puts print message""".split()
)


class RubyProject(PartialTypes, JavaProject):
    language = "ruby"
    common_methods = _COMMON_METHODS
    implicit_package = "ruby"
    implicit_types = _CORE
    external_roots = frozenset()
    object_methods = _KERNEL
    root_object = "ruby.Object"
    root_enum = "ruby.Object"

    def __init__(self, files: dict[str, FileFacts], is_test_path, configs=None):
        super().__init__(files, is_test_path, configs)
        self.merge_parts()
        for names in self.members.values():  # `Foo.new` runs `initialize`
            if "initialize" in names:
                names.setdefault("<init>", list(names["initialize"]))
        self.functions: dict[str, list[tuple[str, str]]] = {}
        for path, fi in self.files.items():
            for s in fi.facts.symbols:
                if s.kind == "function" and "." not in s.local:
                    self.functions.setdefault(s.name, []).append((path, s.local))
        self.index_owners()

    def _type_head(self, fi, scope, name):
        if name.startswith("::"):  # a top-level constant: the repository's, else Ruby's
            hit = self.pkg_types.get(self.package_of[fi.path], {}).get(name[2:])
            return (("sym", *hit), "scope") if hit is not None else (("xsym", name[2:]), "import")
        r = super()._type_head(fi, scope, name)
        if r is not None:
            return r
        for s in fi.outward(scope):  # a constant of an enclosing module, in any of its parts
            sym = fi.syms.get(s)
            if s and sym is not None and sym.kind in ("class", "module"):
                found = self.find_member(self.canonical((fi.path, s)), name, "type")
                if found is not None and found.targets:
                    return ("sym", *found.targets[0]), "scope"
        return None

    def _unique_name(self, call, targets, last, src, edges: Edges) -> bool:
        if call.callee.startswith("super."):
            return False  # `super` with no superclass method we know: not any method of the name
        return super()._unique_name(call, targets, last, src, edges)

    def is_part(self, fi, s) -> bool:
        return s.kind in ("class", "module")

    def call_head(self, fi, scope, name, line, argc, depth):
        targets = super().call_head(fi, scope, name, line, argc, depth)
        if targets:
            return targets
        defs = self.functions.get(name, ())
        own = [d for d in defs if d[0] == fi.path]
        if own or len(defs) == 1:
            target = (own or defs)[0]
            return [(("sym", *target), "scope" if own else "import", None)]
        return targets

    def import_edges(self, fi, edges: Edges) -> None:
        src = f"{fi.path}::"
        for imp in fi.facts.imports:
            target = self._required(fi.path, imp.module, imp.level)
            dst = f"{target}::" if target is not None else external_uid(imp.module)
            if dst != src:
                edges.add("IMPORTS", src, dst, "import", imp.line)

    def _required(self, path: str, written: str, relative: int) -> str | None:
        name = written if written.endswith(".rb") else f"{written}.rb"
        if relative:
            p = posixpath.normpath(posixpath.join(posixpath.dirname(path), name))
            return p if p in self.files else None
        roots = sorted({p[: p.index("lib/") + 4] for p in self.files if "lib/" in p} | {""})
        for root in roots:
            if root + name in self.files:
                return root + name
        return None
