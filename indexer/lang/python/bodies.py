"""Where each Python function's body starts: what observed coverage maps lines with.

coverage.py records executed lines; a line belongs to a function only when it runs
because the function was called. The `def` line, the decorators and the default
values run when the enclosing scope defines the function, so the body is from its
first statement to the definition's last line. Read with Python's own `ast`, as
coverage.py reads the same files.
"""

from __future__ import annotations

import ast
import warnings

from codeimpact.indexer.lang.api import FunctionBody


def function_bodies(source: bytes) -> list[FunctionBody] | None:
    """Every function definition of a Python source, or None when it does not parse."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escapes and the like: not our business
            tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    out = []
    for node in _statements(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([d.lineno for d in node.decorator_list] + [node.lineno])
            end = node.end_lineno or node.lineno
            silent = all(
                isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant) for st in node.body
            )  # a docstring, `...`: the compiler keeps no line of them to trace
            out.append(
                FunctionBody(node.name, first, node.lineno, node.body[0].lineno, end, silent)
            )
    return out


def _statements(tree: ast.Module):
    """Every statement, at any nesting (a `def` is a statement: no expression is visited)."""
    stack: list = list(tree.body)
    while stack:
        node = stack.pop()
        yield node
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            stack.extend(getattr(node, name, None) or ())
