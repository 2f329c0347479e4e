"""The resolution of one language's files: the part every language shares.

A language's resolver is a `Project` subclass over the facts of its resolver group. The
engine drives `resolve_file` the same way for every language: one row and one CONTAINS
edge per definition, the file's own edges (imports, heritage, references: the language's
`file_edges`), then each call site (the language's `resolve_call`), and one edge per
(relation, source, target) in the end. The language says what a name means; the engine
says what the answer becomes. Shared policies live here too: the unique-name fallback and
the edges of dispatch and value flow, with the one memo (memo.py) and the one rule table
(rules.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from codeimpact.indexer.lang.api import CallFact, SymbolFact
from codeimpact.indexer.lang.engine.edges import Edges
from codeimpact.indexer.lang.engine.entrypoints import EntryTable
from codeimpact.indexer.lang.engine.memo import Memo
from codeimpact.indexer.lang.engine.rules import weakest
from codeimpact.indexer.resolved import ResolvedFile, SymbolRow, dedupe_edges, row_of

# A name this short says too little to guess a method by it.
UNIQUE_MIN_LENGTH = 4


def unique_definition(by_name: dict[str, list], name: str, common: frozenset[str]):
    """The one definition named `name` (`by_name`: name -> definitions), or None: the
    `unique-name` fallback for a method called on a receiver of unknown type. Never for a
    short name or one that the language's builtin and common library types also have
    (`common`): the receiver is more likely one of those. Languages add their own vetoes
    (a Python property, a Java constructor) before and after."""
    if len(name) < UNIQUE_MIN_LENGTH or name in common:
        return None
    defs = by_name.get(name)
    if defs is None or len(defs) != 1:
        return None
    return defs[0]


class Project:
    """Resolution over the facts of every file of one resolver group (lang/api.py's
    ResolverProject). Subclasses index the facts (`files`: path -> a file index with
    `.path` and `.facts`) and implement the hooks below."""

    language = ""  # Symbol.language of the rows (TypeScript's group takes each file's own)
    # method names that the language's builtin and common library types have too: an
    # unknown receiver is more likely one of those (never guessed at `unique-name`)
    common_methods: frozenset[str] = frozenset()
    # how libraries call back into the repository (engine/entrypoints.py): none by default
    entry_table: EntryTable = EntryTable()

    def __init__(self, is_test_path) -> None:
        self.is_test_path = is_test_path
        self.memo = Memo()
        self.files: dict = {}
        # method name -> [(path, local)] of every method so named, for `unique-name`
        self.methods_by_name: dict[str, list[tuple[str, str]]] = {}

    @staticmethod
    def uid(path: str, local: str) -> str:
        return f"{path}::{local}"

    # ------------------------------------------------------------------ hooks
    def qualified(self, fi, local: str) -> str:
        """The language-level name of a definition (`flask.app.Flask.run`)."""
        raise NotImplementedError

    def module_symbol_name(self, fi) -> str:
        """The `name` of a file's module symbol."""
        raise NotImplementedError

    def row_is_test(self, fi, s: SymbolFact, file_is_test: bool) -> bool:
        return file_is_test

    def row_language(self, fi) -> str:
        return self.language

    def container_uid(self, fi, s: SymbolFact) -> str:
        """The uid CONTAINS runs from to a definition: its lexical parent by default."""
        return self.uid(fi.path, s.local.rpartition(".")[0])

    def file_edges(self, fi, edges: Edges) -> None:
        """The file's edges other than CONTAINS and calls: imports, heritage, references."""

    def calls(self, fi) -> Iterator[tuple[int, CallFact]]:
        """The call sites to resolve, with their index among the file's call facts."""
        return enumerate(fi.facts.calls)

    def resolve_call(self, fi, index: int, call: CallFact, edges: Edges,
                     out: ResolvedFile) -> None:  # fmt: skip
        """The edges of one call site, or its entry in `out.unresolved` (or
        `out.calls_builtin` for a call into the language's runtime)."""
        raise NotImplementedError

    # ------------------------------------------------------------------ the driver
    def symbol_row(self, fi, s: SymbolFact, file_is_test: bool) -> SymbolRow:
        return row_of(s, fi.path, s.name or self.module_symbol_name(fi),
                      self.qualified(fi, s.local), self.row_is_test(fi, s, file_is_test),
                      self.row_language(fi))  # fmt: skip

    def file_index(self, path: str):
        return self.files[path]

    def resolve_file(self, path: str) -> ResolvedFile:
        """The rows of the file's definitions and the edges the file owns (those whose
        source is one of its definitions, and a few the language assigns to it)."""
        fi = self.file_index(path)
        out = ResolvedFile(path)
        edges = Edges()
        self.definitions(fi, out.symbols, edges, self.is_test_path(path))
        self.file_edges(fi, edges)
        self.resolve_calls(fi, edges, out)
        out.edges = dedupe_edges(edges)
        return out

    def definitions(self, fi, rows: list[SymbolRow], edges: Edges, file_is_test: bool) -> None:
        """A row for each definition of the file, and its CONTAINS edge from its container
        (a language may write its hooks into one loop: Python's playback.py)."""
        path = fi.path
        for s in fi.facts.symbols:
            rows.append(self.symbol_row(fi, s, file_is_test))
            if s.local:
                edges.add("CONTAINS", self.container_uid(fi, s), f"{path}::{s.local}", "scope",
                          s.start_line)  # fmt: skip

    def resolve_calls(self, fi, edges: Edges, out: ResolvedFile) -> None:
        """Every call site of the file (`calls`), in order (a language may answer some sites
        itself before `resolve_call`: Python plays back repeated ones)."""
        for index, call in self.calls(fi):
            out.calls_total += 1
            self.resolve_call(fi, index, call, edges, out)

    # ------------------------------------------------------------------ shared edges
    def unique_name_call(self, edges: Edges, src: str, name: str, line: int) -> bool:
        """A call `x.name(...)` on a receiver of unknown type: a `unique-name` edge to the only
        method so named in the repository (`unique_definition`), unless the language's
        `unique_veto` refuses it. Whether an edge was made."""
        found = unique_definition(self.methods_by_name, name, self.common_methods)
        if found is None or self.unique_veto(found):
            return False
        edges.call(src, self.unique_target(found), "unique-name", line)
        return True

    def unique_veto(self, found: tuple[str, str]) -> bool:
        """The language refuses the one method found (its own evidence against a guess)."""
        return False

    def unique_target(self, found: tuple[str, str]) -> str:
        """The uid a call of the one method found reaches: the method itself, unless the
        language knows better (Python: what a decorated method's decorators returned)."""
        return self.uid(*found)

    def value_references(self, edges: Edges, src: str, targets: Iterable[str], line: int,
                         reason: str = "value-flow") -> None:  # fmt: skip
        """A definition passed as an argument is referenced by the caller (the callee may
        call it): one REFERENCES edge per target other than the caller itself."""
        for dst in targets:
            if dst != src:
                edges.add("REFERENCES", src, dst, reason, line)

    def passed_definitions(self, fi, call: CallFact, src: str, edges: Edges,
                           kinds: frozenset[str]) -> None:  # fmt: skip
        """Each argument that names a definition of one of `kinds` (a function passed by
        name) is referenced by the caller: `value_references`. The arguments' chains are
        evaluated by the project's `eval_chain(fi, scope, chain, line)`."""
        for _key, chain in call.args:
            r = self.eval_chain(fi, call.scope, chain, call.line)
            if r is None or r[0][0] != "sym":
                continue
            s = self.files[r[0][1]].syms.get(r[0][2])
            if s is not None and s.kind in kinds:
                self.value_references(edges, src, (self.uid(r[0][1], r[0][2]),), call.line)

    def library_arguments(self, fi, call: CallFact, callee: str, src: str, edges: Edges,
                          kinds: frozenset[str], reason: str) -> None:  # fmt: skip
        """A call of the library callable `callee` (its dotted name): each argument the
        language's entry-point table names that is a definition of one of `kinds` (a function
        passed by name: Go's `t.Run(name, f)`) is called by the caller, rule `entry-point`.
        Rows naming members of an object need the language's own values (Python's)."""
        for row in self.entry_table.argument_rows(callee):
            chain = row.argument(call.args)
            r = (
                self.eval_chain(fi, call.scope, chain, call.line)
                if chain and not row.members
                else None
            )
            if r is None or r[0][0] != "sym":
                continue
            s = self.files[r[0][1]].syms.get(r[0][2])
            dst = self.uid(r[0][1], r[0][2])
            if s is not None and s.kind in kinds and dst != src:
                edges.call(src, dst, weakest(reason, "entry-point"), call.line)
