"""The Python call-resolution corpus: annotated fixture files, parsed, with each
assertion's caller found by the language's rules.

A case is one file holding a small multi-file project (format: `tests/corpus/README.md`)::

    # about: calling a decorated name runs the wrapper the decorator returned
    # path: pkg/__init__.py
    # path: pkg/main.py
    from pkg.deco import log


    @log
    #^ calls: pkg.deco.log
    def work():
        pass


    work()
    # <- calls: pkg.deco.log.wrapper

Header lines (before the first ``# path:``): ``about``, ``run`` (the module whose import
runs the case, or ``pytest``; default the last file's module), ``externals: scored``.
An assertion line ``# ^ calls: A, B`` (or ``# <- calls:`` for the column of the ``#``)
says that the call at that column of the nearest line above that is not an assertion
calls A and B: qualified names (``pkg.mod.C.m``; ``#2`` for a redefinition as in uids;
external ones as imported, ``builtins.len``), ``-`` for nothing. ``(static)`` after the
names marks a call the case's run does not execute (a branch not taken).

The caller of a site is the innermost definition whose body or header holds it:
lambdas and comprehensions fold into their definition; a decorator (and its
arguments), a parameter's default or annotation, a return annotation and a class's
bases belong to the scope around the definition; a function's name and parameter
names (pytest fixture requests) belong to the function.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

from truth.imports import module_name
from truth.symtab import file_table

PATH_MARKER = re.compile(r"^# path: (\S+)\s*$")
HEADER = re.compile(r"^# (about|run|externals): ?(.*)$")
ASSERTION = re.compile(r"^(\s*)#\s*(\^|<-)\s*(calls):\s*(.*?)\s*$")
STATIC = "(static)"


class CorpusError(ValueError):
    """A case file that does not follow the format."""


@dataclass(frozen=True)
class Assertion:
    path: str
    line: int  # 1-based line of the site in its file
    col: int  # 0-based column of the site
    callees: tuple[str, ...]  # empty: calls nothing
    static: bool  # not executed by the case's run
    text_line: int  # the assertion's own line in its file (for messages)


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


def parse_case(text: str, name: str, construct: str) -> Case:
    lines = text.splitlines()
    header: dict[str, list[str]] = {"about": [], "run": [], "externals": []}
    files: dict[str, list[str]] = {}
    current: list[str] | None = None
    for n, line in enumerate(lines, 1):
        m = PATH_MARKER.match(line)
        if m:
            path = m.group(1)
            if path in files or path.startswith(("/", "..")) or not path.endswith(".py"):
                raise CorpusError(f"{name}:{n}: bad or repeated path {path!r}")
            current = files[path] = []
            continue
        if current is None:
            h = HEADER.match(line)
            if h:
                header[h.group(1)].append(h.group(2).strip())
            elif line.strip() and not line.startswith("#"):
                raise CorpusError(f"{name}:{n}: code before the first '# path:' line")
            continue
        current.append(line)
    if not files:
        raise CorpusError(f"{name}: no '# path:' line")
    texts = {p: "\n".join(body).rstrip("\n") + "\n" for p, body in files.items()}
    last = list(files)[-1]
    run = (header["run"] or [_module_of(last, files)])[0]
    case = Case(
        name,
        construct,
        " ".join(header["about"]),
        run,
        (header["externals"] or [""])[0] == "scored",
        texts,
    )
    for path, body in files.items():
        case.assertions.extend(_assertions(name, path, body))
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


def _assertions(name: str, path: str, body: list[str]) -> list[Assertion]:
    out = []
    site = 0  # 1-based line of the last line that is not an assertion
    for n, line in enumerate(body, 1):
        m = ASSERTION.match(line)
        if not m:
            site = n
            continue
        if site == 0:
            raise CorpusError(f"{name}: {path}:{n}: an assertion with no line above it")
        col = line.index("^") if m.group(2) == "^" else len(m.group(1))
        source = body[site - 1]
        if col >= len(source) or source[col].isspace():
            raise CorpusError(f"{name}: {path}:{n}: the caret points at no code on line {site}")
        names = m.group(4)
        static = names.endswith(STATIC)
        if static:
            names = names[: -len(STATIC)].strip()
        callees = () if names == "-" else tuple(x.strip() for x in names.split(","))
        if not all(re.fullmatch(r"[\w.#<>]+", c) for c in callees):
            raise CorpusError(f"{name}: {path}:{n}: bad callee list {m.group(4)!r}")
        callees = tuple(c.replace("<builtin>.", "builtins.") for c in callees)
        out.append(Assertion(path, site, col, callees, static, n))
    return out


def load_corpus(folder: Path) -> list[Case]:
    """Every case under folder (``<construct>/<case>.py``), in name order."""
    cases = []
    for p in sorted(folder.glob("*/*.py")):
        construct = p.parent.name
        cases.append(parse_case(p.read_text(), f"{construct}/{p.stem}", construct))
    return cases


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
