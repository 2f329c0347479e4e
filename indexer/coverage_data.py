"""coverage.py data with per-test contexts, read through coverage.py's own data API.

Two ways of recording which test ran a line give two kinds of context:
- pytest-cov's `--cov-context=test`: the test's node id and phase,
  `tests/test_x.py::TestC::test_y[1]|run` (also `|setup` and `|teardown`, which
  run the test's fixtures: they count for the test);
- coverage.py's `dynamic_context = test_function`: the dotted name of the test
  function, `test_x.TestC.test_y` (module as imported, then the qualified name).
The empty context is code run outside any test (imports at collection time); it
names no test and is left out. A static context (`coverage run --context=ci`, or
`[run] context = ci`) prefixes every dynamic one, `ci|tests/t.py::test_y|run`, and alone
labels the code run outside any test: the label is dropped, and a run with labels only
(no dynamic context) records nothing per test.

The data file is never parsed by hand: `CoverageData` reads it (and refuses files
of another schema), `measured_contexts()` and `contexts_by_lineno()` answer.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from codeimpact.graph.errors import BadInput

RECIPE = (
    "run pytest with --cov=PKG --cov-context=test (pytest-cov), or coverage.py with "
    "`dynamic_context = test_function` in .coveragerc"
)
PYTEST_PHASES = ("run", "setup", "teardown")


@dataclass(frozen=True)
class ParsedContext:
    """What one coverage context says about the test that was running."""

    kind: str  # "pytest" or "test_function"
    path: str  # pytest: the node id's file (relative to pytest's rootdir); else ""
    names: tuple[str, ...]  # pytest: classes and function; test_function: the dotted parts


def parse_context(context: str) -> ParsedContext | None:
    """The test a context names, or None (the empty context, or not a test's name)."""
    text = context.strip()
    if not text or is_static_label(text):
        return None
    if "::" in text:
        head, bar, phase = text.rpartition("|")
        if bar and phase in PYTEST_PHASES:
            text = head
        path, _, rest = text.partition("::")
        path = path.rpartition("|")[2]  # after a static context's label
        # parametrised items (`test_y[1-a]`) run the one function `test_y`; the ids in
        # brackets may hold anything, `::` included
        names = rest.split("[", 1)[0].split("::")
        if not path or not all(names):
            return None
        return ParsedContext("pytest", path, tuple(names))
    parts = tuple(text.rpartition("|")[2].split("."))
    if not all(p.isidentifier() for p in parts):
        return None
    return ParsedContext("test_function", "", parts)


def is_static_label(context: str) -> bool:
    """A static context alone: one word, neither a node id nor a dotted test name
    (coverage.py's `test_function` contexts always hold the module: `test_x.test_y`)."""
    return "::" not in context and "." not in context and "|" not in context


class CoverageRun:
    """An opened coverage data file: its contexts and, per measured file, its lines."""

    def __init__(self, path: Path):
        self.path = path
        try:
            from coverage import CoverageData
            from coverage.exceptions import CoverageException
        except ImportError as e:  # a dependency of codeimpact: only a broken install lacks it
            raise BadInput(f"coverage.py is not installed ({e}): pip install coverage") from e
        if not path.exists():
            raise BadInput(f"no coverage data at {path}: {RECIPE}, then import its data file")
        if not path.is_file():
            raise BadInput(f"{path} is not a coverage data file (it is a folder)")
        self.mtime = os.stat(path).st_mtime
        self._data = CoverageData(basename=str(path))
        try:
            self._data.read()
            self.contexts = sorted(self._data.measured_contexts())
            self.files = sorted(self._data.measured_files())
        except CoverageException as e:
            raise BadInput(
                f"{path} is not coverage.py data this codeimpact can read "
                f"({str(e).splitlines()[0]}): {RECIPE}"
            ) from e
        except Exception as e:  # sqlite3.DatabaseError and the like, from a damaged file
            raise BadInput(
                f"{path} is not readable coverage.py data ({type(e).__name__}: {e}): {RECIPE}"
            ) from e
        if not self.files:
            raise BadInput(f"{path} holds no measured files: {RECIPE}")
        named = [c.strip() for c in self.contexts if c.strip()]
        if not named:
            raise BadInput(f"{path} records no per-test contexts: {RECIPE}")
        if all(is_static_label(c) for c in named):
            labels = ", ".join(repr(c) for c in named[:3])
            raise BadInput(
                f"{path} records only static contexts ({labels}), which label the whole run "
                f"(`coverage run --context=LABEL`), not each test: {RECIPE}"
            )

    @property
    def has_arcs(self) -> bool:
        """Branch data (`--cov-branch`, `branch = true`): arcs, calls' entries included."""
        return self._data.has_arcs()

    def arcs(self, measured_file: str, contexts: list[str]) -> set[tuple[int, int]]:
        """The arcs any of `contexts` recorded in the file (arc data only); a negative
        start is the entry into the code object whose first line it names: a call."""
        from coverage.exceptions import CoverageException

        pattern = "^(?:" + "|".join(re.escape(c) for c in contexts) + ")$"
        try:
            self._data.set_query_contexts([pattern])
            return set(self._data.arcs(measured_file) or ())
        except CoverageException as e:
            raise BadInput(f"{self.path}: cannot read the arcs of {measured_file}: {e}") from e
        finally:
            self._data.set_query_contexts(None)

    def lines(self, measured_file: str) -> dict[int, list[str]]:
        """Line -> the contexts that executed it (line numbers as the run measured them)."""
        from coverage.exceptions import CoverageException

        try:
            return self._data.contexts_by_lineno(measured_file)
        except CoverageException as e:
            raise BadInput(f"{self.path}: cannot read the lines of {measured_file}: {e}") from e
