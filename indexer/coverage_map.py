"""Coverage contexts -> test symbols, executed lines -> function symbols (pure functions).

A context names a test by pytest node id or by dotted name (`coverage_data`); it is
matched to a function or method symbol of the index:
- a node id's file is taken as repository-relative, else as relative to a pytest
  rootdir below or above the repository root (the one indexed file it can be);
  `Class::test` is the uid `file::Class.test`; a method the class inherits
  (`TestSub::test_x` running `TestBase.test_x`) is found through the class's bases;
- a dotted name is the qualified name of a test, or ends with it, or it ends with
  the qualified name (test modules are imported under more or fewer packages than
  the index names them); it must designate one symbol.
Each matched test carries the id its runner accepts (`file::Class::test`).

An executed line belongs to the innermost function or method whose *body* holds
it. The header of a definition (decorators, `def` line, a signature's default
values) runs when the enclosing scope defines the function, not when the function
is called, so it belongs to the enclosing scope. Where bodies start is the
language's to say (`LanguageSpec.function_bodies`); a file it cannot parse falls
back to the symbol's lines less its first one. Lines outside every function (module and class
level: imports, definitions) name no function and are left out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from codeimpact.indexer.coverage_data import ParsedContext
from codeimpact.indexer.lang.api import FunctionBody
from codeimpact.indexer.resolved import SymbolRow, strip_dup

CALLABLE_KINDS = ("function", "method")


@dataclass(frozen=True)
class MatchedTest:
    uid: str
    run_id: str
    file: str


def run_id_of(file: str, local: str) -> str:
    """pytest's id for a test of dotted local name `local`: `file::Class::test` (a `#2`
    redefinition suffix dropped)."""
    return "::".join([file, *strip_dup(local).split(".")])


class TestMatcher:
    """Matches coverage contexts to the index's function and method symbols."""

    def __init__(
        self, symbols: list[SymbolRow], files: set[str], bases: dict[str, list[str]]
    ) -> None:
        self.files = files
        self.bases = bases  # class uid -> its base classes' uids, in declaration order
        self.by_uid = {s.uid: s for s in symbols}
        self.by_name: dict[str, list[SymbolRow]] = {}
        for s in symbols:
            if s.kind in CALLABLE_KINDS:
                self.by_name.setdefault(s.name, []).append(s)
        self._paths: dict[str, str | None] = {}

    def match(self, ctx: ParsedContext) -> MatchedTest | None:
        if ctx.kind == "pytest":
            return self._node_id(ctx)
        return self._dotted(ctx.names)

    # ------------------------------------------------------------ pytest node ids
    def repo_file(self, path: str) -> str | None:
        """The indexed file a node id's path names (see the module docstring)."""
        if path in self._paths:
            return self._paths[path]
        norm = path.replace("\\", "/")
        while norm.startswith("./"):
            norm = norm[2:]
        found: str | None = norm if norm in self.files else None
        if found is None:
            candidates = [f for f in self.files if f.endswith("/" + norm) or norm.endswith("/" + f)]
            found = candidates[0] if len(candidates) == 1 else None
        self._paths[path] = found
        return found

    def _node_id(self, ctx: ParsedContext) -> MatchedTest | None:
        file = self.repo_file(ctx.path)
        if file is None:
            return None
        names = list(ctx.names)
        uid = f"{file}::{'.'.join(names)}"
        sym = self.by_uid.get(uid)
        if sym is None and len(names) > 1:
            sym = self._inherited(f"{file}::{'.'.join(names[:-1])}", names[-1])
        if sym is None or sym.kind not in CALLABLE_KINDS:
            return None
        return MatchedTest(sym.uid, run_id_of(file, ".".join(names)), sym.file)

    def _inherited(self, class_uid: str, name: str) -> SymbolRow | None:
        """The method `name` a class inherits: its bases searched breadth-first."""
        seen = {class_uid}
        queue = list(self.bases.get(class_uid, ()))
        while queue:
            base = queue.pop(0)
            if base in seen:
                continue
            seen.add(base)
            sym = self.by_uid.get(f"{base}.{name}")
            if sym is not None:
                return sym
            queue.extend(self.bases.get(base, ()))
        return None

    # ------------------------------------------------------------ dotted names
    def _dotted(self, parts: tuple[str, ...]) -> MatchedTest | None:
        name = ".".join(parts)
        candidates = [
            s
            for s in self.by_name.get(parts[-1], ())
            if s.qualified_name == name
            or s.qualified_name.endswith("." + name)
            or name.endswith("." + s.qualified_name)
        ]
        exact = [s for s in candidates if s.qualified_name == name]
        if len(exact) == 1:
            candidates = exact
        elif len(candidates) > 1:
            candidates = [s for s in candidates if s.is_test]
        if len(candidates) != 1:
            return None  # unknown, or ambiguous: not guessed
        sym = candidates[0]
        return MatchedTest(sym.uid, run_id_of(sym.file, sym.uid.partition("::")[2]), sym.file)


# ---------------------------------------------------------------- lines -> functions
class BodySpan(NamedTuple):
    """Where one function's body is, and where its definition starts (decorators first)."""

    first: int  # first line of the body
    last: int
    uid: str
    header: int  # first line of the definition: a call enters its code object there
    silent: bool = False  # FunctionBody.silent: no line of the body is ever recorded


def body_spans(defs: list[FunctionBody] | None, functions: list) -> list[BodySpan]:
    """The body of each function symbol of one file (SymbolRow-like: uid, name,
    start_line, end_line), from the file's function bodies (`LanguageSpec.function_bodies`;
    None: unknown)."""
    by_name: dict[str, list[FunctionBody]] = {}
    for d in defs or ():
        by_name.setdefault(d.name, []).append(d)
    spans = []
    for s in functions:
        match = next(
            (
                d
                for d in by_name.get(s.name, ())
                if s.start_line in (d.first, d.def_line) and d.end == s.end_line
            ),
            None,
        )
        if match is not None:
            spans.append(BodySpan(match.body_first, match.end, s.uid, match.first, match.silent))
        elif s.end_line > s.start_line:
            spans.append(BodySpan(s.start_line + 1, s.end_line, s.uid, s.start_line))
        else:
            spans.append(BodySpan(s.start_line, s.end_line, s.uid, s.start_line))
    return spans


def silent_bodies(spans: list[BodySpan]) -> list[BodySpan]:
    """The functions whose body records no line when it runs (a docstring only): only
    the entry into their code object, an arc from -<its first line>, tells a call."""
    return [sp for sp in spans if sp.silent]


def callers_of_silent(
    span: BodySpan, contexts: list[str], arcs_of: Callable[[list[str]], set[tuple[int, int]]]
) -> set[str]:
    """Which of `contexts` (each touched the function's header lines) called it, rather
    than only defined it. A call enters the code object (an arc from -h, h a header line);
    defining it runs the header between lines of the enclosing scope (an arc between a
    header line and a line outside it). Asked of the whole group first, then halves of it
    where a definer hides: a few queries when, as usual, the definers are few."""
    header = range(span.header, span.first + 1)

    def outside(n: int) -> bool:
        return abs(n) not in header

    arcs = arcs_of(contexts)
    mine = [(a, b) for a, b in arcs if abs(a) in header or abs(b) in header]
    if not any(a < 0 and -a in header for a, _ in mine):
        return set()
    if len(contexts) == 1 or not any(
        a > 0 and b > 0 and (outside(a) != outside(b)) for a, b in mine
    ):
        return set(contexts)
    half = len(contexts) // 2
    return callers_of_silent(span, contexts[:half], arcs_of) | callers_of_silent(
        span, contexts[half:], arcs_of
    )


def line_owners(spans: list[BodySpan], n_lines: int) -> list[str | None]:
    """owners[line] = uid of the innermost function body holding the line (None: none)."""
    owners: list[str | None] = [None] * (n_lines + 2)
    # outer bodies first, so an inner body paints over its part of the outer one
    for first, last, uid, *_ in sorted(spans, key=lambda s: (s[0], -s[1])):
        for line in range(max(first, 1), min(last, n_lines) + 1):
            owners[line] = uid
    return owners
