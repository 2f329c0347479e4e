"""The language contract: the facts a language's extraction produces and its spec.

Facts are what extraction finds in one file, before cross-file resolution. They
depend only on a file's bytes (never on its path), so they can be cached by
content hash. Scopes are named by the dotted local name of the enclosing
definition ("" is the module, "Flask.run" a method, "f#2" a redefinition).
Expressions are dotted chains as written (`self.app.run`, `os.path.join`,
`super().save`, `Foo().run`).

A language is one package under indexer/lang/ exporting a LanguageSpec (its
`SPEC`, or `SPECS` for a family of grammars): the grammar, the file extensions,
the pure extraction function, the test-path rule, the project files its
resolver reads, and its resolver.
"""

from __future__ import annotations

import marshal
from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import cache, partial
from operator import itemgetter
from typing import TYPE_CHECKING, NamedTuple, Protocol

from codeimpact.native.record import Compared, Hashed
from codeimpact.native.runner import native_syntax

if TYPE_CHECKING:
    from codeimpact.indexer.resolved import ResolvedFile


class SymbolFact(NamedTuple):
    local: str  # dotted local name; "" for the module symbol
    kind: str
    name: str
    start_line: int  # 1-based, inclusive
    end_line: int
    start_byte: int
    end_byte: int
    signature: str
    exported: bool
    is_test: bool  # by the language's naming convention (test_*, Test*)
    params: tuple  # ((name, annotation chain or ""), ...) for functions and methods
    decorators: tuple  # decorator chains, e.g. ("staticmethod",)


class ImportFact(NamedTuple):
    scope: str
    module: str  # dotted module as written, without the leading dots
    level: int  # leading dots of a relative import
    name: str  # the imported name of `from m import name`; "" for `import m`; "*"
    alias: str  # the name bound, when `as` is used
    line: int


class CallFact(NamedTuple):
    scope: str
    callee: str  # dotted chain; `name()` suffix marks a call result (`super()`, `Foo()`)
    line: int
    kind: str  # "call" or "decorator"
    args: tuple  # ((position or keyword, chain), ...) for arguments that are plain names
    # ((position or keyword, text), ...) for literal arguments whose text names something: a
    # string holding a name or dotted name (quotes dropped: `usefixtures("db")`,
    # `import_module("a.b")`), a constant (`autouse=True`). Apart from `args`, which resolve
    # as expressions: a string's name is only text until a rule reads it (fixtures.py).
    literals: tuple = ()


class HeritageFact(NamedTuple):
    scope: str  # the class
    base: str
    line: int
    kind: str  # "extends" or "implements"


class ReferenceFact(NamedTuple):
    scope: str
    target: str
    line: int
    kind: str  # "annotation" or "value"


class BindingFact(NamedTuple):
    scope: str
    name: str  # "x" or "self.x"
    value: str  # chain
    is_call: bool  # x = value(...) rather than x = value
    line: int


class ReturnFact(NamedTuple):
    scope: str
    value: str
    is_call: bool
    line: int


def _fields_but(kind: type, *gone: str) -> Callable[[tuple], tuple]:
    return itemgetter(*[i for i, name in enumerate(kind._fields) if name not in gone])


# a fact's fields but where it stands (its line; a definition's lines and bytes), as a plain
# tuple made in C: what two versions of a file compare once their text moved (the change
# plan: indexer/plan.py, lang/python/plan.py; a namedtuple's `_replace` per fact, and a
# repr, were most of an edit's planning)
UNPLACED: dict[type, Callable[[tuple], tuple]] = {
    SymbolFact: _fields_but(SymbolFact, "start_line", "end_line", "start_byte", "end_byte"),
    **{kind: _fields_but(kind, "line") for kind in (ImportFact, CallFact, HeritageFact,
                                                     ReferenceFact, BindingFact, ReturnFact)},
}  # fmt: skip
# FileFacts' lists of facts but the symbols, in order, with their facts' UNPLACED
FACT_LISTS = {"imports": UNPLACED[ImportFact], "calls": UNPLACED[CallFact],
              "heritage": UNPLACED[HeritageFact], "references": UNPLACED[ReferenceFact],
              "bindings": UNPLACED[BindingFact], "returns": UNPLACED[ReturnFact]}  # fmt: skip


class FlowRules(NamedTuple):
    """A language's rules for the change plan's flow binders (indexer/plan.py flow_binders,
    binder_names): by which names its resolver reaches a value of another file."""

    # facts -> function scope -> the plain names it binds itself (its own containers)
    function_locals: Callable[[FileFacts], dict[str, set[str]]]
    container_of: Callable[[str], str]  # a binding's name -> the name its value is reached by
    value_parameters: Callable[[SymbolFact], set[str]]  # the parameters a caller's value fills
    passes_on: Callable[[str], bool]  # whether value flow follows a parameter passed to a callee
    # (facts, local -> SymbolFact or None: made when needed) -> binders of the registries on
    # an instance
    registry_binders: Callable[[FileFacts, dict | None], list[tuple[tuple[str, ...], str]]]
    registry_store: Callable[[CallFact], str | None]  # the attribute a call stores into
    # the last dotted names of the callees registry_store may answer for (None: any): the
    # lookup keys test only those calls (binder_names: every call of a full build)
    registry_adders: tuple[str, ...] | None = None


# 3: CallFact.literals (from_bytes builds the tuples without their defaults: older blobs would
#    lack the field)
# 4: calls and references nested as marshal bytes of their own, decoded on first read
FACTS_FORMAT = 4


_KINDS = (SymbolFact, ImportFact, CallFact, HeritageFact, ReferenceFact, BindingFact, ReturnFact)
_lists: tuple | None = None  # (_list_makers)
# Per fact type (_KINDS' order), the fields whose strs and ints `shared_values` makes one
# object per value across files: those whose values files repeat (names, chains, parameters,
# decorators, line numbers). Not the scopes and locals, which a file's marshal references
# already share, nor the signatures, mostly one of their kind: looked up for little.
# Not the calls and references either: decoded for a file's own resolution and let go.
_SHARED_FIELDS = (
    ("name", "start_line", "end_line", "start_byte", "end_byte", "params", "decorators"),
    ("module", "name", "alias", "line"),
    (),
    ("base", "line"),
    (),
    ("name", "value", "line"),
    ("value", "line"),
)
# What `shared_values` shares while it runs: (the list makers sharing into its table, the
# dicts of `shared_table`), or None. A context variable, not a module global: each thread
# (and each asyncio task) of an embedding process that builds a project has its own, so two
# builds running side by side neither share a table nor end each other's sharing.
_SHARING: ContextVar[tuple[tuple, dict[str, dict], tuple, object] | None] = ContextVar(
    "codeimpact_shared_values", default=None
)


def _list_makers() -> tuple:
    """Per fact type (_KINDS' order), decoded tuples -> the list of that type's tuples: in C
    (native/core_rows.c typed_list: every fact of a build is decoded so, a file's calls twice;
    Django's from_bytes 0.082 -> 0.062 s, its calls and references 0.075 -> 0.053 s), else by tuple.__new__ mapped, which skips
    the generated keyword-argument __new__ (an extension built before typed_list)."""
    global _lists
    if _lists is None:
        from codeimpact.native import _core  # (loaded where first used: no-op runs never are)

        typed = getattr(_core, "typed_list", None)
        if typed is None:
            _lists = tuple(partial(_mapped, partial(tuple.__new__, k)) for k in _KINDS)
        else:
            _lists = tuple(partial(typed, k) for k in _KINDS)
            # the fields read as slots (native/core_fields.c: a named tuple's field is a
            # descriptor CPython 3.11 does not specialise; ~3.7% of resolving Django), once
            # typed_list checks the facts it makes hold every field
            fields = getattr(_core, "tuple_fields", None)
            for k in _KINDS if fields is not None else ():
                fields(k)
    return _lists


@contextmanager
def shared_values() -> Iterator[None]:
    """Facts decoded meanwhile (`FileFacts.from_bytes`) hold one object per str or int value
    of the fields `_SHARED_FIELDS` names, across files. marshal makes a blob's strings and ints
    anew, sharing them within a blob only: Django's resolver project held 387K strings of 139K
    values and 175K ints of 36K (~15 of its 131 MB), and every page of them a resolver reads
    is copied by the resolve worker forked beside the host (refcounts). The table of values
    goes at the end (the values stay with the facts holding them), so a long-lived process
    keeps no strings of facts it let go."""
    makers = _list_makers()
    core = native_core()
    typed, values = getattr(core, "typed_list", None), getattr(core, "SharedValues", None)
    if values is None or _SHARING.get() is not None:  # (no sharing in C; or already sharing)
        yield
        return
    table = values()  # (strs by a cheap hash of their characters, ints by value)
    masks = [sum(1 << k._fields.index(f) for f in fields)
             for k, fields in zip(_KINDS, _SHARED_FIELDS)]  # fmt: skip
    lists = tuple(partial(_shared, typed, k, m, table) if m else make
                  for k, m, make in zip(_KINDS, masks, makers))  # fmt: skip
    token = _SHARING.set((lists, {}, _blob_spec(masks), table))
    try:
        yield
    finally:
        _SHARING.reset(token)


def shared_table(name: str) -> dict | None:
    """A dict of its own for `name` while `shared_values` runs (else None): what a resolver
    makes of equal facts of several files made once (python/index.py: a parameter list's
    parameters by name)."""
    sharing = _SHARING.get()
    return None if sharing is None else sharing[1].setdefault(name, {})


# The items of a facts blob's tuple (FileFacts.to_bytes) that are lists of facts: their kind's
# index in _KINDS (the calls and references are nested blobs of their own)
_BLOB_LISTS = (None, None, None, None, 0, 1, None, 3, None, 5, 6, None, None)


def _blob_spec(masks: list[int] | None = None) -> tuple:
    """native/core_decode.c facts_loads' spec of a file's blob: per item of its tuple, None
    or (the list's fact type, the fields shared (a bit mask), its number of fields)."""
    return tuple(None if k is None else (_KINDS[k], masks[k] if masks else 0, len(_KINDS[k]._fields))
                 for k in _BLOB_LISTS)  # fmt: skip


@cache
def _decoder() -> tuple[Callable | None, tuple]:
    """(native/core_decode.c facts_loads or None for an older build, the spec of a blob
    without sharing). Once the lists are typed (_list_makers: tuple_fields)."""
    _list_makers()
    return getattr(native_core(), "facts_loads", None), _blob_spec()


def _shared(typed: Callable, kind: type, mask: int, table: object, items) -> list:
    return typed(kind, items, mask, table)


_native = None  # (native_core)


def native_core():
    """codeimpact.native._core, loaded where first used (no-op runs never load it) and kept:
    an import statement per call (the lookup keys' functions, every file of a full build)
    costs more than the work of some."""
    global _native
    if _native is None:
        from codeimpact.native import _core

        _native = _core
    return _native


def count_lines(source: bytes) -> int:
    """The lines of a file's bytes: its newlines, and one more for a last line without one.
    The scan counts every file read, its extractor again: native/_core.c line_count looks at
    the bytes a vector at a time (bytes.count a byte at a time: ~20 ms per pass over
    Django's sources, ~13x line_count's time)."""
    return (_line_count or _bind_line_count())(source)


def _bind_line_count() -> Callable[[bytes], int]:
    global _line_count
    _line_count = getattr(native_core(), "line_count", None) or _count_lines  # (an older build)
    return _line_count


def _count_lines(source: bytes) -> int:
    return source.count(b"\n") + (0 if source.endswith(b"\n") or not source else 1)


_line_count: Callable[[bytes], int] | None = None


def _mapped(make: Callable, items) -> list:
    return list(map(make, items))


def _plain(items: list) -> list:
    return [tuple(x) for x in items]


# native/core_facts_blob.c facts_dumps' forms of the items of to_bytes' tuple: a value (v), a
# list of facts (l), a list of facts as a blob of its own (n: the calls, the references)
_BLOB_FORMS = b"vvvvllnlnllvv"


@cache
def _facts_dumps() -> Callable[[tuple, bytes], bytes | None] | None:
    """The extension's `facts_dumps`: to_bytes' blob written from the lists of facts, byte
    for byte marshal's of their plain tuples without making them (~2/3 of to_bytes' CPU);
    None for an older build."""
    return getattr(native_core(), "facts_dumps", None)


@cache
def _plain_tuples() -> Callable[[list], list]:
    """The facts of a list as the plain tuples marshal writes: the native extension's
    `plain_tuples` when the native path runs (the same objects, without the comprehension's
    bytecode per fact: ~0.07 cpu-s of a Django extraction), else the comprehension."""
    ext = native_syntax()
    return getattr(ext, "plain_tuples", _plain) if ext is not None else _plain


@dataclass
class FileFacts:
    language: str
    status: str = "ok"  # ok | partial | skipped:<reason>
    lines: int = 0
    symbols: list[SymbolFact] = field(default_factory=list)
    imports: list[ImportFact] = field(default_factory=list)
    calls: list[CallFact] = field(default_factory=list)
    heritage: list[HeritageFact] = field(default_factory=list)
    references: list[ReferenceFact] = field(default_factory=list)
    bindings: list[BindingFact] = field(default_factory=list)
    returns: list[ReturnFact] = field(default_factory=list)
    error: str = ""  # detail for a partial or skipped file
    # Language-specific facts (plain marshal-able values: str, int, tuple, list, dict), e.g. a
    # Go/Java package clause, TS re-exports, Rust `mod` declarations. Keys are the language's own.
    extra: dict = field(default_factory=dict)

    def to_bytes(self) -> bytes:
        dumps = _facts_dumps()
        if dumps is not None:
            blob = dumps(
                (
                    FACTS_FORMAT,
                    self.language,
                    self.status,
                    self.lines,
                    self.symbols,
                    self.imports,
                    _CALLS.held(self),
                    self.heritage,
                    _REFERENCES.held(self),
                    self.bindings,
                    self.returns,
                    self.error,
                    self.extra,
                ),
                _BLOB_FORMS,
            )
            if blob is not None:
                return blob
        plain = _plain_tuples()
        return marshal.dumps(
            (
                FACTS_FORMAT,
                self.language,
                self.status,
                self.lines,
                plain(self.symbols),
                plain(self.imports),
                _CALLS.encoded(self, plain),
                plain(self.heritage),
                _REFERENCES.encoded(self, plain),
                plain(self.bindings),
                plain(self.returns),
                self.error,
                self.extra,
            )
        )

    @classmethod
    def from_bytes(cls, data: bytes) -> FileFacts:
        """The facts of a blob; its calls and references are decoded when first read.
        In one pass where the extension's `facts_loads` reads the blob (the lists typed,
        the shared values looked up before they are made), else by marshal then per list."""
        sharing = _SHARING.get()
        loads, spec = _decoder()
        t = None
        if loads is not None:
            t = loads(data, sharing[2], sharing[3]) if sharing else loads(data, spec, None)
        if t is None:  # (an older build, or a blob facts_loads does not read)
            t = marshal.loads(data)
            if t[0] == FACTS_FORMAT:
                sym, imp, _call, her, _ref, bind, ret = sharing[0] if sharing else _list_makers()
                t = (
                    *t[:4],
                    sym(t[4]),
                    imp(t[5]),
                    t[6],
                    her(t[7]),
                    t[8],
                    bind(t[9]),
                    ret(t[10]),
                    *t[11:],
                )
        if t[0] != FACTS_FORMAT:
            raise ValueError("facts format changed")
        f = cls.__new__(cls)
        f.__dict__.update(
            language=t[1],
            status=t[2],
            lines=t[3],
            symbols=t[4],
            imports=t[5],
            _calls=None,
            _calls_blob=t[6],
            heritage=t[7],
            _references=None,
            _references_blob=t[8],
            bindings=t[9],
            returns=t[10],
            error=t[11],
            extra=t[12],
        )
        return f

    def decoded(self) -> bool:
        """Whether the calls are decoded (always, for facts not read from a blob)."""
        return self.__dict__["_calls"] is not None

    def plain_calls(self) -> list:
        """The calls, as the plain tuples of the blob while they are not decoded: read once
        (python/index.py `index_calls`, which makes CallFacts of the few its tables keep),
        not kept, so no CallFact is made and freed for each call site read."""
        return _CALLS.plain(self)

    def unload(self) -> None:
        """Forget the decoded calls and references of facts read from a blob: read again, they
        are decoded again. Only a file's own resolution and its call tables (python/index.py
        `index_calls`, made once) read them. Kept decoded, they were ~45% of the objects a
        resolve host holds when it forks its workers, and every page of them a resolver reads
        is copied (refcounts): twice the memory for nothing."""
        _CALLS.unload(self)
        _REFERENCES.unload(self)


class _Packed:
    """A FileFacts list kept as the marshal bytes it was read from until it is first read
    (FileFacts.from_bytes). Set, it holds the list set."""

    def __init__(self, name: str, kind: int) -> None:
        self._slot, self._blob, self._kind = "_" + name, f"_{name}_blob", kind  # (_KINDS')
        self._spec = (_KINDS[kind], 0, len(_KINDS[kind]._fields))  # (facts_loads')

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        d = obj.__dict__
        items = d[self._slot]
        if items is None:
            loads = _decoder()[0]
            blob = d[self._blob]
            items = None if loads is None else loads(blob, self._spec, None)
            if items is None:
                items = _list_makers()[self._kind](marshal.loads(blob))
            d[self._slot] = items
        return items

    def __set__(self, obj, items: list) -> None:
        d = obj.__dict__
        d[self._slot] = items
        d[self._blob] = None

    def held(self, obj) -> list | bytes:
        """The list, or the bytes read while it is not decoded (`encoded` without encoding)."""
        d = obj.__dict__
        items = d[self._slot]
        return d[self._blob] if items is None else items

    def encoded(self, obj, plain: Callable[[list], list]) -> bytes:
        """The list as its blob holds it: the bytes read, while they are not decoded."""
        d = obj.__dict__
        items = d[self._slot]
        return d[self._blob] if items is None else marshal.dumps(plain(items))

    def unload(self, obj) -> None:
        d = obj.__dict__
        if d[self._blob] is not None:
            d[self._slot] = None

    def plain(self, obj) -> list:
        """The list as the blob holds it (plain tuples), decoded and not kept, while it is
        not decoded; else the list."""
        d = obj.__dict__
        items = d[self._slot]
        return marshal.loads(d[self._blob]) if items is None else items


# (set on the dataclass once made: a descriptor in the class body would be taken for the
# fields' default)
FileFacts.calls = _CALLS = _Packed("calls", _KINDS.index(CallFact))  # type: ignore[assignment]
FileFacts.references = _REFERENCES = _Packed("references", _KINDS.index(ReferenceFact))  # type: ignore[assignment]


class ResolverProject(Protocol):
    """A language's resolution over the facts of every file of its resolver group.

    Pure: what `resolve_file` returns depends only on the facts (and config files) the
    project was made from, never on the order files are resolved in; the incremental
    planner relies on it (incremental == full). The optional hooks a planner uses:
    `module_names()` (path -> the module name resolution depends on beyond names written in
    the file), `summaries()` and `hierarchy_changes(before)` (what a `Prior` carries),
    `release(path)` (forget a resolved file's call facts)."""

    paths: list[str]

    def resolve_file(self, path: str) -> ResolvedFile: ...


class Language(Protocol):
    """What indexing needs to know of a language: the contract a language package meets
    (its LanguageSpec). Both versions are part of the runner identity: bump
    `extract_version` when extraction writes other facts, `resolve_version` when resolution
    makes other edges from the same facts."""

    name: str  # stored in File.language and Symbol.language
    grammar: str  # the tree-sitter-language-pack grammar
    extensions: tuple[str, ...]
    extract_version: int  # EXTRACT_VERSION
    resolve_version: int  # RESOLVE_VERSION
    config_files: tuple[str, ...]  # project files the resolver reads (tsconfig.json, go.mod)
    language_of: Callable[[bytes], str] | None  # File.language by content (a C++ `.h`)
    package: str  # the language's package: its query files and hooks (identity digests)

    def extract(self, source: bytes) -> FileFacts: ...

    def is_test_path(self, path: str) -> bool: ...

    def make_project(
        self, files: Mapping[str, FileFacts], configs: dict[str, str] | None = None,
        prior: Prior | None = None,
    ) -> ResolverProject: ...  # fmt: skip


class FunctionBody(NamedTuple):
    """Where a function definition's body is: the lines that run when it is called (the
    header, decorators and default values run when the enclosing scope defines it)."""

    name: str
    first: int  # first line of the definition, decorators included
    def_line: int
    body_first: int  # first line of the body (the def line for a one-line def)
    end: int
    # the body runs no line a tracer sees (a docstring only): only the call's entry into
    # the function's code object tells it ran
    silent: bool = False


class LanguageSpec(Hashed):
    """A language (the `Language` contract), as its package declares it."""

    name: str  # our name, stored in File.language and Symbol.language
    grammar: str  # tree-sitter-language-pack grammar name
    extensions: tuple[str, ...]
    extract_version: int  # bump when extraction output changes (part of the runner identity)
    resolve_version: int  # bump when resolution output changes (part of the runner identity)
    extract: Callable[[bytes], FileFacts]  # pure: bytes -> facts, never raises on bad syntax
    is_test_path: Callable[[str], bool]
    # The cross-file resolver: a function returning its ResolverProject class, called
    #   Class(files: dict[path, FileFacts], is_test_path, configs: dict[path, text][, prior]).
    # A function that imports it, not the class, so that a process imports only the
    # resolvers of the languages it resolves (all twelve cost ~90 ms CPU to import); code,
    # not a "module:Class" string, so a renamed module or class fails where it is named and
    # import-linter sees the import.
    resolver: Callable[[], type[ResolverProject]]
    # Basenames of project files the resolver reads (tsconfig.json, go.mod, ...); discovery
    # hands their text to the resolver as `configs` (path -> text), so resolution stays pure.
    config_files: tuple[str, ...]
    # The language of one of its files by the file's bytes, where the extension does not
    # decide (a `.h` holding C++ is `cpp`): File.language; None: the spec's own name. It
    # returns a language of the same resolver group.
    language_of: Callable[[bytes], str] | None
    # Languages with the same group share one resolver project (TS files import JS files);
    # "" means the language's own name.
    resolver_group: str
    package: str  # the language's package (codeimpact.indexer.lang.<name>)
    # (value names, edge names) an edit may rebind, given the facts before and after (None:
    # no rule for this edit); without it the change plan counts every definition's name
    # (indexer/plan.py says why that suffices)
    changed_names: Callable[[FileFacts, FileFacts], tuple[set[str], set[str]] | None] | None
    # facts -> (names the file's lookups read that none of its expressions writes, names other
    # files read of it that no definition of it is named): Python's pytest fixtures, which a
    # test requests by a parameter's name or a string and a conftest.py binds by a name of
    # its own (`fixture(name=...)`, autouse); the change plan counts them. Its second
    # argument, when not None: the names the file's expressions spell (plan.py `used_names`),
    # which lets a language skip what none of them names
    implicit_names: Callable[[FileFacts, Collection[str] | None], tuple[set[str], set[str]]] | None
    # source -> every function definition's body (None when it does not parse); for
    # languages whose observed coverage can be imported (`graph coverage import`: Python)
    function_bodies: Callable[[bytes], list[FunctionBody] | None] | None
    # facts -> the facts without what depends on byte offsets besides the symbols' own offsets
    # (a local keyed by where it starts), for the early cut-off (indexer/cutoff.py); None:
    # nothing does
    without_offsets: Callable[[FileFacts], FileFacts] | None
    # what the change plan follows values through in this language's facts (FlowRules);
    # None: the registry's default (indexer/lang/__init__.py flow_rules: Python's)
    flow_rules: FlowRules | None
    # whether a name no enclosing function binds resolves in its own file only (its module
    # and class scopes, a star import, the builtins: Python), not in other files of a
    # package (Go, C): the change plan's flow binders then read no name the file never binds
    file_scoped_names: bool
    __slots__ = (
        "name",
        "grammar",
        "extensions",
        "extract_version",
        "resolve_version",
        "extract",
        "is_test_path",
        "resolver",
        "config_files",
        "language_of",
        "resolver_group",
        "package",
        "changed_names",
        "implicit_names",
        "function_bodies",
        "without_offsets",
        "flow_rules",
        "file_scoped_names",
    )

    def __init__(
        self,
        name: str,
        grammar: str,
        extensions: tuple[str, ...],
        extract_version: int,
        resolve_version: int,
        extract: Callable[[bytes], FileFacts],
        is_test_path: Callable[[str], bool],
        resolver: Callable[[], type[ResolverProject]],
        config_files: tuple[str, ...] = (),
        language_of: Callable[[bytes], str] | None = None,
        resolver_group: str = "",
        package: str = "",
        changed_names: Callable[[FileFacts, FileFacts], tuple[set[str], set[str]] | None]
        | None = None,
        implicit_names: Callable[[FileFacts, Collection[str] | None], tuple[set[str], set[str]]]
        | None = None,
        function_bodies: Callable[[bytes], list[FunctionBody] | None] | None = None,
        without_offsets: Callable[[FileFacts], FileFacts] | None = None,
        flow_rules: FlowRules | None = None,
        file_scoped_names: bool = False,
    ) -> None:
        self.name = name
        self.grammar = grammar
        self.extensions = extensions
        self.extract_version = extract_version
        self.resolve_version = resolve_version
        self.extract = extract
        self.is_test_path = is_test_path
        self.resolver = resolver
        self.config_files = config_files
        self.language_of = language_of
        self.resolver_group = resolver_group
        self.package = package
        self.changed_names = changed_names
        self.implicit_names = implicit_names
        self.function_bodies = function_bodies
        self.without_offsets = without_offsets
        self.flow_rules = flow_rules
        self.file_scoped_names = file_scoped_names

    @property
    def group(self) -> str:
        return self.resolver_group or self.name

    def make_project(
        self,
        files: Mapping[str, FileFacts],
        configs: dict[str, str] | None = None,
        prior: Prior | None = None,
    ) -> ResolverProject:
        """The resolver project over `files`; `prior` reaches resolvers that summarise files
        (SUPPORTS_PRIOR), the others build everything from the facts."""
        cls = self.resolver()
        if prior is not None and getattr(cls, "SUPPORTS_PRIOR", False):
            return cls(files, self.is_test_path, configs or {}, prior)
        return cls(files, self.is_test_path, configs or {})


class Prior(Compared):
    """What a resolver summarised per file in the previous run (its `summaries()`).

    Files in `dirty` (those an incremental run re-resolves) are summarised again; the
    others' summaries stand, for the same reason their edges do (indexer/plan.py).
    """

    summaries: dict[str, object]
    dirty: set[str]
    # language -> path -> module name, as the previous run's `module_names()` said (a
    # resolver may keep them when nothing they depend on changed)
    modules: dict[str, dict[str, str] | None] | None
    # resolver group -> what its project kept beside the files' summaries
    # (`shared_summary()`), decoded anew at each call (the project patches it in place)
    shared: Callable[[str], object | None] | None
    __slots__ = ("summaries", "dirty", "modules", "shared")

    def __init__(
        self,
        summaries: dict[str, object],
        dirty: set[str],
        modules: dict[str, dict[str, str] | None] | None = None,
        shared: Callable[[str], object | None] | None = None,
    ) -> None:
        self.summaries = summaries
        self.dirty = dirty
        self.modules = modules
        self.shared = shared
