"""C# name resolution: Java's model (lang/java/resolve.py) with C#'s scoping rules.

A namespace is a package (every file declaring it shares its scope, wherever it lies);
`using N;` imports N on demand; code in `namespace A.B` also sees the types of `A`; the
`System` namespace is implicit for its common types (`Console`, `String`, `Exception`...),
whose members are external (`<external>::System.Console.WriteLine`). A partial class is
one class: each of its parts (in any file of the namespace) has the members of all.
Properties are read like fields. Everything else (receivers typed by declarations, `this`
and `base`, overloads by argument count, constructors `<init>`, dispatch to overrides in
subtypes, IMPLEMENTS for interfaces) is the typed engine's through Java's hooks.
"""

from __future__ import annotations

from codeimpact.indexer.lang.api import FileFacts
from codeimpact.indexer.lang.java.partial import PartialTypes
from codeimpact.indexer.lang.java.resolve import JavaProject

_SYSTEM = frozenset(
    """Object String Console Math Exception ArgumentException ArgumentNullException
    InvalidOperationException NotImplementedException NotSupportedException Int32 Int64
    Boolean Double Decimal DateTime TimeSpan Guid Convert Environment Array Type Attribute
    IDisposable IComparable IEquatable Nullable Func Action Task Lazy Random Enum Tuple
    StringComparison Uri Version EventArgs EventHandler GC Activator Buffer BitConverter
    Char Byte Single UInt32 UInt64 Index Range Span Memory ReadOnlySpan""".split()
)
_OBJECT_METHODS = frozenset(
    "Equals GetHashCode ToString GetType MemberwiseClone ReferenceEquals Finalize".split()
)
_EXTERNAL_ROOTS = frozenset(
    "System Microsoft Xunit NUnit Newtonsoft Moq FluentAssertions Serilog Azure Google".split()
)
_COMMON_METHODS = frozenset(
    """Add Remove Get Set Contains Clear Count ToString Equals GetHashCode Dispose Run Start
    Stop Execute Handle Invoke Create Build Update Delete Save Load Read Write Close Open
    Parse TryParse Format Append Insert Find Select Where First FirstOrDefault Any All
    ToList ToArray Log LogInformation LogError LogWarning WriteLine Write Assert Equal
    True False NotNull Null Throws""".split()
)


class CSharpProject(PartialTypes, JavaProject):
    language = "csharp"
    common_methods = _COMMON_METHODS
    implicit_package = "System"
    implicit_types = _SYSTEM
    external_roots = _EXTERNAL_ROOTS
    object_methods = _OBJECT_METHODS
    root_object = "System.Object"
    root_enum = "System.Enum"

    def __init__(self, files: dict[str, FileFacts], is_test_path, configs=None):
        super().__init__(files, is_test_path, configs)
        self.merge_parts()
        # extension methods are members of the type they extend: `cart.Total()`
        self.extensions: set[tuple[str, str]] = set()
        for path, fi in self.files.items():
            for local, typ in fi.extra.get("extends", {}).items():
                r = self.resolve_type(fi, fi.parent.get(local, ""), typ)
                if r is not None and r[0][0] == "sym":
                    key = self.canonical((r[0][1], r[0][2]))
                    names = self.members.setdefault(key, {})  # (add_member would count the
                    names.setdefault(fi.syms[local].name, []).append((path, local))  # method twice)
                    self.extensions.add((path, local))
        self.index_owners()

    def arity_fits(self, target, argc) -> bool:
        """An extension method called on its receiver takes one argument fewer."""
        fits = super().arity_fits(target, argc)
        if not fits and argc is not None and target in self.extensions:
            return super().arity_fits(target, argc + 1)
        return fits

    def is_part(self, fi, s) -> bool:
        return "partial" in fi.extra.get("modifiers", {}).get(s.local, "").split()

    def _type_head(self, fi, scope, name):
        r = super()._type_head(fi, scope, name)
        if r is not None:
            return r
        for imp in fi.facts.imports:  # `using Repo = Acme.Models.IRepo;` names the type Repo
            if imp.alias == name and imp.name not in ("", "*"):
                return self.resolve_fqn(f"{imp.module}.{imp.name}"), "import"
        pkg = self.package_of[fi.path]
        while "." in pkg:  # `namespace A.B` sees the types of A
            pkg = pkg.rpartition(".")[0]
            hit = self.pkg_types.get(pkg, {}).get(name)
            if hit is not None:
                return ("sym", *hit), "scope"
        # a type no repository namespace has, with one external namespace in use (`using
        # Xunit;` -> Xunit.Assert): the only place left that can declare it
        external = [
            i.module
            for i in fi.facts.imports
            if i.name == "*" and i.module not in self.packages and i.module != "System"
        ]
        if name[:1].isupper() and external and name not in self._repo_type_names():
            # several: one of them declares it, which one is not known (`<external>::Marshal`)
            return ("xsym", f"{external[0]}.{name}" if len(external) == 1 else name), "import"
        return None

    def _repo_type_names(self) -> frozenset[str]:
        hit = self.memo.table.get("repo type names")
        if hit is None:
            hit = frozenset(n for types in self.pkg_types.values() for n in types)
            self.memo.table["repo type names"] = hit
        return hit
