"""CProject's name tables, kept with the generation so that an edit patches them.

The tables (which files define a name at top level, declare it, share it by external
linkage, define a type or a method by it; each file's resolved includes and prototypes)
are built from every file of the tree. Building them from the kernel's 55,000 summaries
was most of a one-file edit's 13 s of resolution. A full build writes them beside the
state (`shared-cfamily.bin`, resolution.shared_summaries); an incremental run over the same files
takes them, drops what the re-summarised files gave before (their previous summaries say
what) and adds what they give now, each entry at its place in path order: the tables are
then the ones a build from every file makes (incremental == full). When files came or went
(an include resolves against the file set), the tables are built from every file again.

Every list keeps the order a build in path order makes: a file's entries are together, in
source order, and files follow in path order.

The big tables are written as buckets (buckets.py): the next run decodes what its lookups
reach. What every run reads whole is kept apart and small: the paths, the source files
other files include (`includers`), the C++ files and their namespaces.
"""

from __future__ import annotations

import bisect
import marshal
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from codeimpact.indexer.lang.cfamily.cpp_names import CLASS_KINDS
from codeimpact.indexer.lang.engine import buckets
from codeimpact.indexer.lang.engine.static import TYPE_KINDS
from codeimpact.indexer.resolved import strip_dup

FORMAT = 4  # 2: qualified names asked by C++ lookups; 3: buckets; 4: (buckets, index)
HEADER_SUFFIXES = (".h", ".hpp", ".hh", ".hxx", ".h++", ".inl", ".ipp", ".tpp")
# what external linkage makes visible across files
LINKED_KINDS = frozenset({"function", "variable"})

Definition = tuple[str, str, str, bool]  # (local, name, kind, exported)


def classify(defs: Iterable[Definition]):
    """(top, namespaces, methods, types, linked) of a file's definitions: top-level name ->
    its locals, the namespaces it opens, and (name, local) of its class methods, its types
    and its definitions with external linkage, each in source order."""
    defs = list(defs)
    kind_of = {local: kind for local, _name, kind, _exported in defs}
    top: dict[str, list[str]] = {}
    namespaces: list[str] = []
    methods: list[tuple[str, str]] = []
    types: list[tuple[str, str]] = []
    linked: list[tuple[str, str]] = []
    for local, name, kind, exported in defs:
        if kind == "namespace":
            namespaces.append(strip_dup(local))
        parent = local.rpartition(".")[0]
        parent_kind = kind_of.get(parent) if parent else None
        if parent_kind in CLASS_KINDS:  # a member (entered into `members` when asked)
            if kind == "method":
                methods.append((name, local))
            continue
        if parent and parent_kind != "enum":
            continue  # a nested function's own names
        top.setdefault(name, []).append(local)
        if kind in TYPE_KINDS:
            types.append((name, local))
        elif kind in LINKED_KINDS and exported and not parent:
            linked.append((name, local))
    return top, namespaces, methods, types, linked


def _path_of(item) -> str:
    return item if isinstance(item, str) else item[0]


def _put(table: dict[str, list], name: str, item, path: str) -> None:
    """Put `item` (of file `path`) into `table[name]` at its place in path order (after the
    file's own entries there)."""
    items = table.get(name)
    if items is None:
        table[name] = [item]
        return
    if _path_of(items[-1]) <= path:
        items.append(item)
    else:
        items.insert(bisect.bisect_right(items, path, key=_path_of), item)
    table[name] = items  # (a bucket sees a change by assignment only)


def _drop(table: dict[str, list], name: str, path: str) -> None:
    items = table.get(name)
    if items is None:
        return
    kept = [x for x in items if _path_of(x) != path]
    if kept:
        table[name] = kept
    else:
        del table[name]


@dataclass
class NameTables:
    includes: dict[str, list[tuple[str | None, str, int]]] = field(default_factory=dict)
    protos: dict[str, tuple[str, ...]] = field(default_factory=dict)
    protos_by_name: dict[str, list[str]] = field(default_factory=dict)
    defs_by_name: dict[str, list[str]] = field(default_factory=dict)
    linked: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    global_types: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    # as the files' definitions give them (C++'s out-of-class definitions join afterwards)
    methods_by_name: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    namespaces_of: dict[str, tuple[str, ...]] = field(default_factory=dict)
    cpp_paths: list[str] = field(default_factory=list)
    # dotted name -> every definition so named, in path order (CProject.qualified_defs):
    # None until a C++ lookup asks (a tree of C alone never does; the kernel's dozen C++
    # files do, and building it from 55,000 summaries was 7 s of a kernel edit)
    qualified: dict[str, list[tuple[str, str]]] | None = None
    # source files (not headers) -> the files that include them, in path order
    includers: dict[str, list[str]] = field(default_factory=dict)
    # every file, in path order, as the tables were built (None: their `includes`' keys)
    paths: list[str] | None = None

    def add(self, path: str, language: str, includes: list, protos: tuple[str, ...],
            defs: Iterable[Definition], ordered: bool = False) -> dict[str, list[str]]:  # fmt: skip
        """Enter a file (after every file before it in path order, unless `ordered`); returns
        its top-level names -> locals."""
        if language == "cpp":
            if ordered:
                bisect.insort(self.cpp_paths, path)
            else:
                self.cpp_paths.append(path)
        self.includes[path] = includes
        self.protos[path] = protos
        for h, _w, _l in includes:
            if h is not None and not h.endswith(HEADER_SUFFIXES):
                found = self.includers.setdefault(h, [])
                if ordered:
                    bisect.insort(found, path)
                else:
                    found.append(path)
        defs = list(defs)
        top, namespaces, methods, types, linked = classify(defs)
        if namespaces:
            self.namespaces_of[path] = tuple(namespaces)
        # name -> the files defining it at top level: a lookup tests the few candidates
        # against the includer's closure (kernel files reach a thousand headers)
        entries = (
            (self.protos_by_name, ((name, path) for name in protos)),
            (self.methods_by_name, ((name, (path, local)) for name, local in methods)),
            (self.global_types, ((name, (path, local)) for name, local in types)),
            (self.linked, ((name, (path, local)) for name, local in linked)),
            (self.defs_by_name, ((name, path) for name in top)),
        )
        if self.qualified is not None:
            entries += (
                (self.qualified,
                 ((strip_dup(local), (path, local)) for local, _n, _k, _e in defs)),
            )  # fmt: skip
        for table, items in entries:
            if ordered:
                for name, item in items:
                    _put(table, name, item, path)
            else:  # a build in path order: every file after those before it (the hot path)
                for name, item in items:
                    table.setdefault(name, []).append(item)
        return top

    def drop(self, path: str, protos: Iterable[str], names: Iterable[str],
             locals_: Iterable[str] = ()) -> None:  # fmt: skip
        """Take a file out: `protos`, `names` and `locals_` (of its definitions) as it gave
        them."""
        for h, _w, _l in self.includes.pop(path, ()):
            found = self.includers.get(h)
            if found is not None and path in found:
                kept = [p for p in found if p != path]
                if kept:
                    self.includers[h] = kept
                else:
                    del self.includers[h]
        self.protos.pop(path, None)
        self.namespaces_of.pop(path, None)
        if path in self.cpp_paths:
            self.cpp_paths.remove(path)
        for name in set(protos):
            _drop(self.protos_by_name, name, path)
        for name in set(names):
            for table in (self.defs_by_name, self.linked, self.global_types,
                          self.methods_by_name):  # fmt: skip
                _drop(table, name, path)
        if self.qualified is not None:
            for dotted in {strip_dup(local) for local in locals_}:
                _drop(self.qualified, dotted, path)

    def encode(self) -> tuple:
        """A marshal-able tuple: the small parts whole, each big table in buckets."""
        paths = self.paths if self.paths is not None else sorted(self.includes)
        q = None if self.qualified is None else buckets.split(self.qualified)
        big = tuple(buckets.split(t) for t in self._big())
        return (FORMAT, paths, self.includers, self.namespaces_of, self.cpp_paths, *big, q)

    def pieces(self) -> Iterator[bytes]:
        """`encode()`'s value marshalled, piece by piece (buckets.pieces): a full build
        stages the kernel's tables (200 MB) without holding them whole, and twice."""
        paths = self.paths if self.paths is not None else sorted(self.includes)
        head = (FORMAT, paths, self.includers, self.namespaces_of, self.cpp_paths)
        yield buckets.tuple_head(13) + b"".join(marshal.dumps(x, 2) for x in head)
        for table in self._big():
            yield from buckets.pieces(table)
        if self.qualified is None:
            yield marshal.dumps(None, 2)
        else:
            yield from buckets.pieces(self.qualified)

    def _big(self) -> tuple:
        return (self.includes, self.protos, self.protos_by_name, self.defs_by_name,
                self.linked, self.global_types, self.methods_by_name)  # fmt: skip

    @classmethod
    def decode(cls, value) -> NameTables | None:
        """The tables of an `encode`d tuple, each big table decoded bucket by bucket as
        lookups reach it (and patched in place)."""
        if not isinstance(value, tuple) or len(value) != 13 or value[0] != FORMAT:
            return None
        _f, paths, includers, namespaces_of, cpp_paths, *big, qualified = value
        tables = [buckets.Buckets(b) for b in big]
        q = None if qualified is None else buckets.Buckets(qualified)
        return cls(*tables, namespaces_of, cpp_paths, q, includers, paths)
