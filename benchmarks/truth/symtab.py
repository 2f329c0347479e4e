"""The definitions of a Python tree, named the way codeimpact names symbols, from `ast`.

The trace's ground truth must not depend on the indexer it judges, so the names are
made here from the language itself, following the uid convention of DESIGN.md:
``<path>::<dotted local name>`` (``src/app.py::Flask.run``, a nested function
``dec.wrapper``), the module itself ``<path>::``, and ``#2``, ``#3`` for a name
defined again under the same parent (numbered in source order; the children of
``f#2`` are ``f#2.inner``). A definition's lines run from its first decorator to its
last line, as ``co_firstlineno`` does. Kinds: ``module``, ``class``, ``method`` (a
def directly in a class body, also under ``if``/``try`` there), ``function``.
Lambdas and comprehensions are not definitions: they fold into the definition whose
body holds them.
"""

from __future__ import annotations

import ast
import os
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

SKIP_DIRS = frozenset({".git", ".codeimpact", ".venv", "venv", "node_modules", "__pycache__"})


@dataclass(frozen=True)
class Definition:
    uid: str
    kind: str  # module | class | method | function
    file: str
    name: str
    start: int  # first decorator line, else the def/class line
    end: int
    decorators: tuple[str, ...] = ()  # source text of each decorator (without "@")
    line: int = 0  # the line of the def/class keyword (after the decorators)
    params: tuple[str, ...] = ()  # a function's parameter names


@dataclass
class FileTable:
    """The definitions of one file, found by (first line, name) or by a line they hold."""

    path: str
    module: Definition
    defs: list[Definition] = field(default_factory=list)
    by_start: dict[tuple[int, str], Definition] = field(default_factory=dict)

    def in_decorators(self, line: int) -> Definition | None:
        """The definition whose decorator lines (or their arguments) hold `line`."""
        return next((d for d in self.defs if d.start <= line < d.line), None)

    def innermost(self, line: int, name: str | None = None) -> Definition | None:
        """The innermost definition holding `line` (named `name`, if given)."""
        best = None
        for d in self.defs:
            if d.start <= line <= d.end and (name is None or d.name == name):
                if best is None or d.start >= best.start:
                    best = d
        return best


def _params(args: ast.arguments) -> tuple[str, ...]:
    every = [*args.posonlyargs, *args.args, args.vararg, *args.kwonlyargs, args.kwarg]
    return tuple(a.arg for a in every if a is not None)


def _walk(body, parent_uid: str, parent_is_class: bool, path: str, src: str, out: list) -> None:
    seen: dict[str, int] = defaultdict(int)

    def visit(nodes) -> None:
        for node in nodes:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                local = f"{parent_uid}.{node.name}" if parent_uid else node.name
                seen[local] += 1
                uid_local = local if seen[local] == 1 else f"{local}#{seen[local]}"
                is_class = isinstance(node, ast.ClassDef)
                kind = "class" if is_class else ("method" if parent_is_class else "function")
                start = min([d.lineno for d in node.decorator_list] + [node.lineno])
                decorators = tuple(
                    ast.get_source_segment(src, d) or "" for d in node.decorator_list
                )
                out.append(
                    Definition(
                        f"{path}::{uid_local}",
                        kind,
                        path,
                        node.name,
                        start,
                        node.end_lineno or node.lineno,
                        decorators,
                        node.lineno,
                        () if is_class else _params(node.args),
                    )
                )
                _walk(node.body, uid_local, is_class, path, src, out)
            else:
                # statements that hold statements (if/try/with/for/while/match) keep the scope
                for name in ("body", "orelse", "finalbody", "handlers", "cases"):
                    child = getattr(node, name, None)
                    if isinstance(child, list) and child and isinstance(child[0], ast.AST):
                        visit(child)

    visit(body)


def file_table(root: Path, path: str) -> FileTable | None:
    """The definitions of `root/path`; None when Python cannot parse it."""
    try:
        src = (root / path).read_text(encoding="utf-8")
        tree = ast.parse(src, filename=path)
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return None
    n_lines = src.count("\n") + 1
    module = Definition(f"{path}::", "module", path, "", 1, n_lines)
    defs: list[Definition] = []
    _walk(tree.body, "", False, path, src, defs)
    table = FileTable(path, module, defs)
    for d in defs:
        table.by_start.setdefault((d.start, d.name), d)
    return table


def python_files(root: Path) -> list[str]:
    """Every .py file under root (relative, '/'-separated), hidden and venv folders aside."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        for fn in sorted(filenames):
            if fn.endswith(".py"):
                out.append(Path(dirpath, fn).relative_to(root).as_posix())
    return out
