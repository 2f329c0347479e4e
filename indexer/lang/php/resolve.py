"""PHP name resolution: Java's model (lang/java/resolve.py) with PHP's rules.

A namespace is a package (every file declaring it shares it); `use A\\B\\C` imports C (as
its alias when one is given); a name with no `use` is looked up in the file's namespace.
Classes, interfaces, traits and enums are types; a class's `use Trait` is IMPLEMENTS and
the trait's methods are found on the class. `new A(...)` runs `__construct` (through the
parent class when A writes none: `constructor` / `inheritance`), `$this->m()`,
`self::m()`, `static::m()` are the class's (`self`), `parent::m()` its parent's (`super`),
`$x->m()` follows the declared or assigned type of `$x` (`local-type`). A function call
`f()` is the namespace's `f`, else a global `f` of the repository, else one of PHP's own
functions (builtin). PHP's own classes (`Exception`, `DateTime`...) are external.
"""

from __future__ import annotations

from codeimpact.indexer.lang.api import FileFacts
from codeimpact.indexer.lang.java.resolve import JavaProject

_CORE = frozenset(
    """Exception Error TypeError ValueError RuntimeException LogicException
    InvalidArgumentException DomainException Throwable DateTime DateTimeImmutable
    DateTimeInterface DateInterval ArrayObject ArrayIterator Iterator IteratorAggregate
    Traversable Countable ArrayAccess Stringable JsonSerializable Closure Generator stdClass
    PDO PDOStatement SplObjectStorage WeakMap UnexpectedValueException OutOfBoundsException
    OutOfRangeException LengthException OverflowException RangeException UnderflowException
    BadFunctionCallException BadMethodCallException JsonException ErrorException
    ReflectionClass ReflectionMethod ReflectionProperty SplFileInfo SplQueue""".split()
)
_COMMON_METHODS = frozenset(
    """get set has add remove delete save update create find all first count toArray
    handle run execute process make build render send validate boot register""".split()
)


class PhpProject(JavaProject):
    language = "php"
    common_methods = _COMMON_METHODS
    implicit_package = "php"
    implicit_types = _CORE
    external_roots = frozenset()
    object_methods = frozenset()
    root_object = "php.stdClass"
    root_enum = "php.UnitEnum"

    def __init__(self, files: dict[str, FileFacts], is_test_path, configs=None):
        super().__init__(files, is_test_path, configs)
        for names in self.members.values():  # `new A` runs `__construct`
            if "__construct" in names:
                names.setdefault("<init>", list(names["__construct"]))
        self.functions: dict[tuple[str, str], list[tuple[str, str]]] = {}
        for path, fi in self.files.items():
            for s in fi.facts.symbols:
                if s.kind == "function" and "." not in s.local:
                    key = (self.package_of[path], s.name)
                    self.functions.setdefault(key, []).append((path, s.local))
        self.index_owners()

    def call_head(self, fi, scope, name, line, argc, depth):
        """`f(...)`: a function (PHP never calls a method by its bare name: `$this->m()`,
        `self::m()` and `static::m()` are how a class calls its own)."""
        targets = None
        pkg = self.package_of[fi.path]
        for key, reason in (((pkg, name), "scope"), (("", name), "import")):
            defs = self.functions.get(key)
            if defs:
                own = [d for d in defs if d[0] == fi.path] or defs
                return [(("sym", *own[0]), "scope" if own[0][0] == fi.path else reason, None)]
        if "." not in name and name.islower():
            return [(("builtin", name), "scope", None)]  # strlen, array_map: PHP's own
        return targets
