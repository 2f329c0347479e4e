"""What a C file gives the project's global tables, kept with the index between runs.

CProject's name tables (which files define a name at top level, which declare it, the
functions and variables external linkage shares, the types, the members of structs, the
includes) are built from every file of the tree. An edit of one kernel file re-resolves one
file, but building those tables from every file's facts took 28 s of CPU and 5 GB. A file's
summary holds exactly what the tables read of it (its language, its written includes, its
prototypes, and per definition its local, name, kind and linkage), so the next run builds
the tables from the summaries of the files it does not re-resolve and decodes the facts of
only those whose definitions a lookup reaches. A summary is a pure function of the file's
facts: one that stands (the file's bytes did not change) is the one a full build makes, so
incremental == full. C++ files are always built from their facts (their out-of-class
definitions join classes by lookups, which a summary cannot hold).

Plain tuples (marshal-able, as `Prior` carries them):
(language, includes, protos, locals, names, kinds, exported): `names[i]` is None when it is the
last part of `locals[i]` (nearly always), `kinds` the distinct kinds and one byte per
definition indexing them, `exported` one byte per definition.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from codeimpact.indexer.lang.api import Prior
from codeimpact.indexer.lang.engine.static import FileIndex

FIELDS = 7


def summarise(fi: FileIndex) -> tuple:
    """The summary of an indexed file (its definitions with a local: the module row has none)."""
    syms = [s for s in fi.facts.symbols if s.local]
    return (
        fi.facts.language,
        tuple(tuple(i) for i in fi.extra.get("includes", ())),
        tuple(fi.extra.get("protos", ())),
        tuple(s.local for s in syms),
        tuple(None if s.name == s.local.rpartition(".")[2] else s.name for s in syms),
        _kind_column([s.kind for s in syms]),
        bytes(bool(s.exported) for s in syms),
    )


def _kind_column(kinds: list[str]) -> tuple[tuple[str, ...], bytes]:
    """(the distinct kinds, each definition's index into them): a few bytes, not a string
    per definition."""
    table: dict[str, int] = {}
    codes = bytes(table.setdefault(k, len(table)) for k in kinds)
    return tuple(table), codes


def definitions(summary: tuple) -> Iterator[tuple[str, str, str, bool]]:
    """(local, name, kind, exported) of each definition, in source order."""
    _lang, _incs, _protos, locals_, names, (table, codes), exported = summary
    for local, name, code, exp in zip(locals_, names, codes, exported, strict=True):
        yield local, local.rpartition(".")[2] if name is None else name, table[code], bool(exp)


def kinds(summary: tuple) -> dict[str, str]:
    """local -> kind of the summarised file's definitions."""
    table, codes = summary[5]
    return {local: table[c] for local, c in zip(summary[3], codes, strict=True)}


def standing(paths, prior: Prior | None) -> Mapping[str, tuple]:
    """path -> the previous run's summary, for the C files the run does not re-resolve
    (each decoded and checked when first asked: an edit that patches the name tables
    reads the summaries of the few files its lookups reach)."""
    return {} if prior is None else _Standing(prior)


class _Standing(Mapping[str, tuple]):
    def __init__(self, prior: Prior):
        self._prior = prior
        self._seen: dict[str, tuple | None] = {}

    def get(self, p, default=None):
        if p in self._seen:
            s = self._seen[p]
        else:
            s = self._prior.summaries.get(p)
            if not (
                p not in self._prior.dirty
                and isinstance(s, tuple)
                and len(s) == FIELDS
                and s[0] == "c"  # C++: built from its facts every run (see the docstring)
            ):
                s = None
            self._seen[p] = s
        return default if s is None else s

    def __getitem__(self, p):
        s = self.get(p)
        if s is None:
            raise KeyError(p)
        return s

    def __iter__(self):
        return (p for p in self._prior.summaries if self.get(p) is not None)

    def __len__(self) -> int:
        return sum(1 for _ in self)


class Summaries(Mapping[str, tuple]):
    """path -> summary, made when asked (a full build's 55,000 at once would be held at
    its peak): the standing ones, else from the file's index."""

    def __init__(self, paths: list[str], kept: dict[str, tuple], files: Mapping[str, FileIndex]):
        self._paths = paths
        self._kept = kept
        self._files = files

    def __getitem__(self, path: str) -> tuple:
        s = self._kept.get(path)
        return s if s is not None else summarise(self._files[path])

    def head(self, path: str) -> tuple[str, tuple, tuple]:
        """(language, includes, protos) of the file (protos a tuple either way: module names
        hash their repr)."""
        s = self._kept.get(path)
        if s is not None:
            return s[0], s[1], s[2]
        fi = self._files[path]
        return fi.facts.language, fi.extra.get("includes", ()), tuple(fi.extra.get("protos", ()))

    def definitions(self, path: str) -> list[tuple[str, str, str, bool]]:
        """(local, name, kind, exported) of the file's definitions, in source order: from
        its summary, else from its index (not summarised again just for this)."""
        s = self._kept.get(path)
        if s is not None:
            return list(definitions(s))
        return [(x.local, x.name, x.kind, x.exported) for x in self._files[path].facts.symbols
                if x.local]  # fmt: skip

    def __iter__(self):
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)
