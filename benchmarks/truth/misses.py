"""Why an executed call edge is missing from the graph: a heuristic construct label.

Read from the callee's definition (its name, decorators, nesting) and the caller's
source lines at the call sites. The labels follow the constructs of issue 25 (and
26's "breaks in the call path"); they rank where the misses come from, they do not
prove it: a line with two calls is read as the call the callee's name appears in.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from truth.mapping import is_test_path
from truth.symtab import Definition, FileTable, file_table

WITH = frozenset({"__enter__", "__exit__", "__aenter__", "__aexit__"})
ITERATION = frozenset({"__iter__", "__next__", "__aiter__", "__anext__", "__reversed__"})
DESCRIPTOR = frozenset({"__get__", "__set__", "__delete__", "__set_name__"})
CONSTRUCTOR = frozenset({"__init__", "__new__", "__post_init__"})
FIXTURE_VALUE = "pytest fixture value as receiver (a test's parameter)"
PROPERTY_DECORATOR = re.compile(r"(^|\.)(property|cached_property|setter|getter|deleter)$")

# the labels, in the order a report lists them when counts tie
LABELS = (
    "through external code",
    "pytest fixture (test not linked to its fixture)",
    "entered from outside (no project caller)",
    "constructor",
    "with statement (__enter__/__exit__)",
    "iteration (__iter__/__next__)",
    "instance called (__call__)",
    "descriptor (__get__/__set__)",
    "operator / protocol dunder",
    "property / cached_property",
    "decorator applied",  # the call is in a decorator expression or its arguments
    "decorator wrapper or closure (nested function as a value)",
    "wrapper calls the decorated function",
    "super()",
    "called through a value (parameter, attribute, container, alias)",
    "method on self/cls",
    "method on an attribute of self",
    "pytest fixture value as receiver (a test's parameter)",
    "method on a receiver of unknown type",
    "plain name (import or scope)",
    "other",
)


class SourceIndex:
    """Definitions and source lines of a tree, read on demand."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._tables: dict[str, FileTable | None] = {}
        self._defs: dict[str, Definition] = {}
        self._lines = cache(self._read_lines)

    def table(self, path: str) -> FileTable | None:
        if path not in self._tables:
            table = self._tables[path] = file_table(self.root, path)
            if table is not None:
                self._defs[table.module.uid] = table.module
                self._defs.update((d.uid, d) for d in table.defs)
        return self._tables[path]

    def definition(self, uid: str) -> Definition | None:
        path = uid.split("::", 1)[0]
        self.table(path)
        return self._defs.get(uid)

    def _read_lines(self, path: str) -> tuple[str, ...]:
        try:
            return tuple((self.root / path).read_text(encoding="utf-8").splitlines())
        except (OSError, UnicodeDecodeError):
            return ()

    def line(self, path: str, n: int) -> str:
        lines = self._lines(path)
        return lines[n - 1] if 0 < n <= len(lines) else ""


def _is_nested_function(d: Definition) -> bool:
    local = d.uid.split("::", 1)[1]
    return d.kind == "function" and "." in local


def _is_property(d: Definition) -> bool:
    return any(PROPERTY_DECORATOR.search(dec.split("(")[0].strip()) for dec in d.decorators)


def classify(
    src: SourceIndex, caller_uid: str, callee_uid: str, kind: str, via: str | None, lines
) -> str:
    """The construct label of one executed edge the graph does not have."""
    if via is not None:
        return "through external code"
    callee = src.definition(callee_uid)
    caller = src.definition(caller_uid)
    if callee is None or caller is None:
        return "other"
    name = callee.name
    texts = [src.line(caller.file, n) for n in lines]
    text = " ".join(t.strip() for t in texts)
    if kind == "construct":
        return "constructor"
    if name in CONSTRUCTOR:
        return "super()" if re.search(r"\bsuper\s*\(", text) else "constructor"
    if name in WITH:
        return "with statement (__enter__/__exit__)"
    if name in ITERATION:
        return "iteration (__iter__/__next__)"
    if name == "__call__":
        return "instance called (__call__)"
    if name in DESCRIPTOR:
        return "descriptor (__get__/__set__)"
    if name.startswith("__") and name.endswith("__") and name not in text:
        return "operator / protocol dunder"
    if _is_property(callee):
        return "property / cached_property"
    table = src.table(caller.file)
    if table is not None and lines and all(table.in_decorators(n) for n in lines):
        return "decorator applied"
    if _is_nested_function(callee) and f"{name}(" not in text.replace(" (", "("):
        return "decorator wrapper or closure (nested function as a value)"
    if _is_nested_function(caller) and callee.decorators and f"{name}(" not in text:
        return "wrapper calls the decorated function"
    if re.search(rf"\bsuper\s*\([^)]*\)\s*\.\s*{re.escape(name)}\b", text):
        return "super()"
    m = re.search(rf"([\w\]\)\.]*)\.\s*{re.escape(name)}\s*\(", text)
    if m:
        receiver = m.group(1)
        if receiver in ("self", "cls"):
            return "method on self/cls"
        if receiver in caller.params and is_test_path(caller.file):
            return FIXTURE_VALUE
        if receiver.startswith(("self.", "cls.")):
            return "method on an attribute of self"
        return "method on a receiver of unknown type"
    if re.search(rf"(?<![\w.]){re.escape(name)}\s*\(", text):
        return "plain name (import or scope)"
    return "called through a value (parameter, attribute, container, alias)"
