"""The Python project's tables, kept beside the generation and patched per file.

A project over every Python file of an index builds, from each file's summary
(`PythonProject._summarise`: module, methods, classes, read summary), the tables its
lookups use: the module of each path, the file of each module, the methods by name, the
subclasses of each class, the read summaries and the names the project reads from them
(`read_names`, `member_reads`: recomputed only when a patch changes a read summary or a
`__get__`; the read summaries are decoded only then). The clean `bases` results of the
files not summarised again are read from their previous summaries (resolve.py). Built
from every summary they cost an edit of Django ~50K dictionary
operations and a decode of all 2,800 summaries; kept as the group's shared summary
(`shared-python.bin`, indexer/state.py) they are decoded whole and patched for the files
summarised again, in place, to exactly what a build from every summary gives (list
order included: it is the order of the project's paths, then of each file's summary).

They stand only for the same paths in the same order: a module name depends on the set
of packages, so an added or removed file builds them anew.

The methods by name (18K names, two thirds of Django's bytes) are kept as buckets
(engine/buckets.py) that an edit decodes for the names it asks: ~6.5 ms of each edit.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping

from codeimpact.indexer.lang.api import native_core
from codeimpact.indexer.lang.engine import buckets
from codeimpact.indexer.marshalled import Marshalled
from codeimpact.native.record import Compared

# bump when what the tables hold, or how a summary gives it, changes (2: a read summary
# lists its class-body aliases, reads.py read_summary; 3: its imports in class bodies too;
# 4: the methods by name in buckets; 5: no seeds, read from the previous summaries instead;
# 6: the read summaries marshalled apart, and the names read from them; 7: the subclasses too;
# 8: no (module, package) of each path: made from the previous run's module names, ModulesOf)
VERSION = 8

Pair = tuple[str, str]  # (path, local)


class Tables(Compared):
    paths: list[str]  # the project's paths, in its order (.pyi after their sources)
    module_of: Mapping[str, tuple[str, str]]  # path -> (module, package): a dict, or ModulesOf
    module_file: dict[str, str]  # module -> its file (the first path giving it)
    methods_by_name: MutableMapping[str, list[Pair]]  # a dict, or buckets as decoded
    # base -> the classes naming it as a base (an edit of Django's A or B reads none: kept
    # marshalled until read, its decode was ~9M instructions of each edit)
    subclasses: MutableMapping[Pair, list[Pair]]  # a dict, or Marshalled
    # path -> its read summary (`read_summary`), when not empty (a dict, or Marshalled: an
    # edit whose names stand never reads them)
    reads: MutableMapping[str, tuple]
    # (the read names without the entry table's hooks, the member reads), from the read
    # summaries (reads.py read_names, member_reads); None: to be computed (resolve.py)
    names: tuple[frozenset[str], frozenset[str]] | None
    __slots__ = (
        "paths",
        "module_of",
        "module_file",
        "methods_by_name",
        "subclasses",
        "reads",
        "names",
    )

    def __init__(
        self,
        paths: list[str],
        module_of: dict[str, tuple[str, str]],
        module_file: dict[str, str],
        methods_by_name: MutableMapping[str, list[Pair]],
        subclasses: MutableMapping[Pair, list[Pair]],
        reads: MutableMapping[str, tuple],
        names: tuple[frozenset[str], frozenset[str]] | None = None,
    ) -> None:
        self.paths = paths
        self.module_of = module_of
        self.module_file = module_file
        self.methods_by_name = methods_by_name
        self.subclasses = subclasses
        self.reads = reads
        self.names = names

    def encode(self) -> tuple:
        return (VERSION, self.paths, self.module_file,
                buckets.split(self.methods_by_name), Marshalled.bytes_of(self.subclasses),
                Marshalled.bytes_of(self.reads), self.names)  # fmt: skip

    @classmethod
    def decode(cls, value: object, modules: dict[str, str]) -> Tables | None:
        """The tables `encode` gave, with `modules` (path -> module name, as the project's
        `module_names()` gave them to the same run) for the modules of the paths."""
        if not isinstance(value, tuple) or len(value) != 7 or value[0] != VERSION:
            return None
        v = value
        return cls(v[1], ModulesOf(modules), v[2], buckets.Buckets(v[3]), Marshalled(v[4]),
                   Marshalled(v[5]), v[6])  # fmt: skip

    @classmethod
    def build(cls, paths: list[str], module_of: dict[str, tuple[str, str]],
              module_file: dict[str, str], summaries: Mapping[str, tuple]) -> Tables:  # fmt: skip
        """From every file's summary, in the order of `paths` (in C where the extension
        reads the summaries: native/core_tables.c; the same tables)."""
        t = cls(paths, module_of, module_file, {}, {}, {})
        build = getattr(native_core(), "tables_build", None)
        if build is not None and type(paths) is list:
            if build(paths, summaries, t.methods_by_name, t.subclasses, t.reads):
                return t
            t = cls(paths, module_of, module_file, {}, {}, {})  # (another shape: as before)
        methods, subclasses = t.methods_by_name, t.subclasses
        for path in paths:
            _, file_methods, classes, reads = summaries[path]
            for name, local in file_methods:
                methods.setdefault(name, []).append((path, local))
            for local, bases, *_ in classes:
                for base in bases:
                    subclasses.setdefault(base, []).append((path, local))
            if reads[0] or reads[1] or reads[2]:
                t.reads[path] = reads
        return t

    def patch(self, path: str, old: tuple, new: tuple, rank: Mapping[str, int]) -> None:
        """Bring `path`'s entries from its summary `old` to `new` (`rank`: path -> its
        position in `paths`)."""
        _put(self.methods_by_name, path, _by_key((name, local) for name, local in old[1]),
             _by_key((name, local) for name, local in new[1]), rank)  # fmt: skip
        _put(self.subclasses, path, _by_key(_bases_of(old[2])), _by_key(_bases_of(new[2])),
             rank)  # fmt: skip
        if old[3] != new[3]:
            self.names = None
            self.reads.pop(path, None)
            if new[3][0] or new[3][1] or new[3][2]:
                self.reads[path] = new[3]
        elif any(n == "__get__" for n, _ in (*old[1], *new[1])):
            self.names = None  # (which classes define `__get__`: the read names' getters)


def _bases_of(classes) -> list[tuple[Pair, str]]:
    return [(base, local) for local, bases, *_ in classes for base in bases]


def _by_key(pairs) -> dict:
    """key -> the file's locals under it, in the summary's order."""
    out: dict = {}
    for key, local in pairs:
        out.setdefault(key, []).append(local)
    return out


def _put(table: dict, path: str, old: dict, new: dict, rank: Mapping[str, int]) -> None:
    """Replace `path`'s entries under each key of `old` and `new` by `new`'s, where a build
    in path order puts them: after the entries of every path before it."""
    mine = rank[path]
    for key in old.keys() | new.keys():
        entries = [e for e in table.get(key, ()) if e[0] != path]
        at = len(entries)
        for i, e in enumerate(entries):
            if rank[e[0]] > mine:
                at = i
                break
        entries[at:at] = [(path, local) for local in new.get(key, ())]
        if entries:
            table[key] = entries
        else:
            table.pop(key, None)


def standing(value: object, paths: list[str], modules: object) -> Tables | None:
    """The previous run's tables (`value`: their decoded shared summary; `modules`: the
    module names the previous run gave, path -> module) when they are for exactly these
    paths in this order; None otherwise."""
    if not isinstance(modules, dict) or list(modules) != paths:
        return None
    tables = Tables.decode(value, modules)
    if tables is None or tables.paths != paths:
        return None
    return tables


def module_entry(path: str, module: str) -> tuple[str, str]:
    """(module, package) of a file of that module: a package's own module for its
    `__init__`, else the module's parent."""
    if path.rpartition("/")[2] in ("__init__.py", "__init__.pyi"):
        return module, module
    return module, module.rpartition(".")[0]


class ModulesOf(Mapping[str, tuple[str, str]]):
    """path -> (module, package) from the module names of the previous run, each made when
    first asked: decoding them for every path was ~4M instructions of a Django edit, which
    indexes a few files."""

    __slots__ = ("names", "_made")

    def __init__(self, names: dict[str, str]) -> None:
        self.names = names  # path -> module
        self._made: dict[str, tuple[str, str]] = {}

    def __getitem__(self, path: str) -> tuple[str, str]:
        hit = self._made.get(path)
        if hit is None:
            hit = self._made[path] = module_entry(path, self.names[path])
        return hit

    def __contains__(self, path: object) -> bool:
        return path in self.names

    def __iter__(self):
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)
