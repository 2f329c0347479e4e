"""The Python call-resolution corpus: annotated fixtures (the language tests' format,
`tests/lang/harness.py`), parsed, with each assertion's caller found by the language's rules.

A case is one fixture file under ``tests/lang/python/corpus/<construct>/``; the corpus's
own header lines (comments before the first ``# path:``, which the harness skips):
``about`` (what the case tests), ``run`` (the module whose import runs the case, or
``pytest``; default the last file's module), ``externals: scored`` (external callees are
asserted and scored). A ``calls:`` target ending ``[static]`` is a call the case's run
does not execute. See ``tests/lang/python/corpus/README.md``.

The caller of a site is the innermost definition whose body or header holds it:
lambdas and comprehensions fold into their definition; a decorator (and its
arguments), a parameter's default or annotation, a return annotation and a class's
bases belong to the scope around the definition; a function's name and parameter
names (pytest fixture requests) belong to the function.
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from truth.imports import module_name
from truth.symtab import file_table

TESTS = Path(__file__).resolve().parents[2] / "tests"
if str(TESTS) not in sys.path:  # the fixture format's one parser: tests/lang/harness.py
    sys.path.insert(0, str(TESTS))
from lang import harness  # noqa: E402

HEADER = re.compile(r"^# (about|run|externals): ?(.*)$")
CALLEE = re.compile(r"[\w.#<>]+")


class CorpusError(ValueError):
    """A case file that does not follow the format."""


@dataclass(frozen=True)
class Assertion:
    path: str
    line: int  # 1-based line of the site in its file
    col: int  # 0-based column of the site
    callees: tuple[str, ...]  # empty: calls nothing
    static: bool  # not executed by the case's run
    text_line: int  # the assertion's own line in the fixture (for messages)


@dataclass
class Case:
    name: str  # <construct>/<file stem>
    construct: str
    about: str
    run: str  # a module name, or "pytest"
    externals_scored: bool
    files: dict[str, str]
    assertions: list[Assertion] = field(default_factory=list)

    def write(self, root: Path) -> Path:
        for rel, text in self.files.items():
            p = root / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
        return root


def parse_case(source: Path, construct: str) -> Case:
    """A corpus case from its fixture file (`harness.parse` reads files and assertions)."""
    name = f"{construct}/{source.stem}"
    try:
        fx = harness.parse(source)
    except ValueError as e:
        raise CorpusError(str(e)) from None
    header: dict[str, list[str]] = {"about": [], "run": [], "externals": []}
    for line in source.read_text().splitlines():
        if harness.MARKER.match(line):
            break
        h = HEADER.match(line)
        if h:
            header[h.group(1)].append(h.group(2).strip())
    paths = list(fx.files)
    if len(set(paths)) != len(paths) or any(
        p.startswith(("/", "..")) or not p.endswith(".py") for p in paths
    ):
        raise CorpusError(f"{name}: bad path in {paths}")
    run = (header["run"] or [_module_of(paths[-1], fx.files)])[0]
    case = Case(
        name,
        construct,
        " ".join(header["about"]),
        run,
        (header["externals"] or [""])[0] == "scored",
        fx.files,
    )
    sites: dict[tuple, list[str]] = {}
    first: dict[tuple, int] = {}
    for a in fx.assertions:
        if a.relation != "calls" or a.negated:
            raise CorpusError(f"{name}:{a.fixture_line}: the corpus asserts calls only")
        source_line = fx.files[a.path].splitlines()[a.line - 1]
        if a.column >= len(source_line) or source_line[a.column].isspace():
            raise CorpusError(f"{name}:{a.fixture_line}: the caret points at no code")
        key = (a.path, a.line, a.column, a.static)
        first.setdefault(key, a.fixture_line)
        callees = sites.setdefault(key, [])
        if a.target != "-":
            if not CALLEE.fullmatch(a.target):
                raise CorpusError(f"{name}:{a.fixture_line}: bad callee {a.target!r}")
            callees.append(a.target.replace("<builtin>.", "builtins."))
    for (path, line, col, static), callees in sites.items():
        text_line = first[(path, line, col, static)]
        case.assertions.append(Assertion(path, line, col, tuple(callees), static, text_line))
    return case


def _module_of(path: str, files) -> str:
    """A module name from the case's own files (packages are folders with __init__.py)."""
    parts = Path(path).with_suffix("").parts
    names = [parts[-1]]
    for i in range(len(parts) - 1, 0, -1):
        if "/".join(parts[:i]) + "/__init__.py" not in files:
            break
        names.append(parts[i - 1])
    if names[0] == "__init__":
        names = names[1:]
    return ".".join(reversed(names))


def load_corpus(folder: Path) -> list[Case]:
    """Every case under folder (``<construct>/<case>.py``), in name order."""
    return [parse_case(p, p.parent.name) for p in sorted(folder.glob("*/*.py"))]


# --------------------------------------------------------------------------- callers


def _span(node: ast.AST) -> tuple[tuple[int, int], tuple[int, int]]:
    return (node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset)


def _outer_parts(node) -> list[ast.AST]:
    """The parts of a definition's header that run in the scope around it."""
    if isinstance(node, ast.ClassDef):
        return [*node.bases, *(k.value for k in node.keywords)]
    a = node.args
    parts = [*a.defaults, *(d for d in a.kw_defaults if d is not None)]
    every = [*a.posonlyargs, *a.args, a.vararg, *a.kwonlyargs, a.kwarg]
    parts += [x.annotation for x in every if x is not None and x.annotation is not None]
    if node.returns is not None:
        parts.append(node.returns)
    return parts


@dataclass(frozen=True)
class _Scope:
    local: str  # uid-style local name ("C.m#2")
    start: tuple[int, int]
    end: tuple[int, int]
    outer: tuple[tuple[tuple[int, int], tuple[int, int]], ...]


def _scopes(root: Path, path: str) -> list[_Scope]:
    text = (root / path).read_text()
    tree = ast.parse(text)
    table = file_table(root, path)
    by_start = table.by_start if table else {}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            start = min([d.lineno for d in node.decorator_list] + [node.lineno])
            d = by_start.get((start, node.name))
            if d is None:
                continue
            local = d.uid.split("::", 1)[1]
            s, e = _span(node)  # a def's span starts at `def`/`class`, after its decorators
            out.append(_Scope(local, s, e, tuple(_span(p) for p in _outer_parts(node))))
    return out


class Callers:
    """The caller of a site, named as an annotation names it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._scopes: dict[str, list[_Scope]] = {}

    def module(self, path: str) -> str:
        return module_name(self.root, path)

    def name(self, path: str, local: str) -> str:
        mod = self.module(path)
        return f"{mod}.{local}" if local else mod

    def caller(self, path: str, line: int, col: int) -> str:
        if path not in self._scopes:
            self._scopes[path] = _scopes(self.root, path)
        pos = (line, col)
        best = None
        for s in self._scopes[path]:
            if not (s.start <= pos < s.end):
                continue
            if any(a <= pos < b for a, b in s.outer):
                continue
            if best is None or s.start > best.start:
                best = s
        return self.name(path, best.local if best else "")

    def uid_name(self, uid: str) -> str:
        """A graph or truth uid as an annotation names it."""
        path, _, local = uid.partition("::")
        if path == "<external>":
            return local
        return self.name(path, local)


def expected_edges(case: Case, callers: Callers) -> dict[tuple[str, str], list[Assertion]]:
    """(caller, callee) -> the assertions that state it, in file order."""
    out: dict[tuple[str, str], list[Assertion]] = {}
    for a in case.assertions:
        caller = callers.caller(a.path, a.line, a.col)
        for callee in a.callees:
            out.setdefault((caller, callee), []).append(a)
    return out
