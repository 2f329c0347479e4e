"""The id a test runner accepts for a test symbol: one function per language.

The index knows test code (Symbol.is_test) by its file and its name; a runner
knows tests by its own ids. Each function here turns one test symbol into the
narrowest id its language's runner accepts that runs it:

- python (pytest): `path::Class::test` (nested classes `path::Outer::Inner::test`,
  parametrised functions as the bare function id), a test module's path;
- go: `go test -run '^TestX$' ./pkg`;
- rust: the test's path inside its crate, as `cargo test` lists and filters it;
- java: `Class#method` (Maven Surefire's `-Dtest`);
- typescript / javascript: the test file (jest, vitest, mocha take files);
- csharp, ruby, php, kotlin, swift, dart: test_ids_more.py.

Test code that is not itself a test (a helper, a fixture, `setUp`, a conftest)
gets the id of what runs it (its class, file or folder) with `exact=False`.
`select_run_ids` keeps such an id only when no exact test inside it is selected
(the tests that use a helper reach the change through resolved calls, so they are
listed), except when the runner itself hands the code to every test inside (a
conftest's fixtures, bound by parameter name: `always`); and where the runner's
ids are finer than files (pytest), it lists the tests inside instead of the
container when the index knows them, so a runner collects exactly what is listed.

Pure functions of the symbol's names and kinds; the query layer builds the
`TestSymbol` from the index (or from a diff's extracted side) and asks here.
"""

from __future__ import annotations

import configparser
import fnmatch
import posixpath
import shlex
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from codeimpact.indexer.resolved import strip_dup

try:  # Python 3.11+
    import tomllib
except ImportError:  # pragma: no cover - 3.10: pyproject.toml's settings are not read
    tomllib = None


@dataclass(frozen=True)
class TestSymbol:
    """A test symbol, as much of it as a runner's id depends on."""

    file: str  # repository-relative path
    local: str  # dotted local name in its file ("" for the module), `#2` suffixes kept
    kind: str
    qualified_name: str
    # kind of each enclosing definition, outermost first, by dotted local ("A", "A.B")
    scope_kinds: Mapping[str, str] = field(default_factory=dict)
    # per enclosing class local: the qualified names of its bases, transitively
    bases: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # the project's settings for its language's runner (PytestConventions); None: defaults
    conventions: object = None
    # qualified names of what its file's top-level code calls (a module-level skip)
    module_calls: frozenset[str] = frozenset()


@dataclass(frozen=True)
class RunId:
    """A runner's id for a test symbol.

    `key` orders ids by containment: an id whose key is a prefix of another's runs it
    too (a folder its files, a file its tests, a class its methods).
    """

    run_id: str
    key: tuple[str, ...]
    exact: bool  # the symbol is itself a test the runner runs (else: what runs it)
    scope: str = ""  # the file or folder (`.`: all) holding every test the id runs
    always: bool = False  # inexact, and every test inside may run the code (conftest)
    expand: bool = False  # inexact: list the exact tests inside instead, when known
    # a folder standing for a helper (or conftest) in it: when the index knows no test in
    # it, the nearest folder above that holds some stands instead (a folder with no test
    # collects nothing: `tests/apps/` of apps the tests load by name)
    folder: bool = False


def folder_id(folder: str, always: bool = False) -> RunId:
    """A folder as the runners that take paths name it (pytest, jest, vitest, mocha)."""
    return RunId(folder, _path_key(folder), False, folder, always=always, expand=True, folder=True)


def _parent(r: RunId) -> RunId | None:
    """The folder above a folder id (None above the top)."""
    if r.scope in ("", "."):
        return None
    return folder_id(posixpath.dirname(r.scope) or ".", r.always)


def _parts(local: str) -> list[str]:
    return strip_dup(local).split(".") if local else []


def _path_key(path: str) -> tuple[str, ...]:
    return tuple(p for p in path.split("/") if p and p != ".")


# ----------------------------------------------------------------------------- python


@dataclass(frozen=True)
class PytestConventions:
    """What pytest collects (its `python_files`, `python_classes`, `python_functions`)."""

    files: tuple[str, ...] = ("test_*.py", "*_test.py")  # glob patterns
    classes: tuple[str, ...] = ("Test",)  # prefixes or glob patterns
    functions: tuple[str, ...] = ("test",)

    def collects_file(self, path: str) -> bool:
        name = posixpath.basename(path)
        return name.endswith(".py") and any(
            fnmatch.fnmatchcase(path if "/" in p else name, p) for p in self.files
        )

    def collects_class(self, name: str) -> bool:
        return _prefix_or_glob(name, self.classes)

    def collects_function(self, name: str) -> bool:
        return _prefix_or_glob(name, self.functions)


def _prefix_or_glob(name: str, patterns: tuple[str, ...]) -> bool:
    return any(
        name.startswith(p) or (any(c in p for c in "*?[") and fnmatch.fnmatchcase(name, p))
        for p in patterns
    )


_PYTEST_KEYS = {"python_files": "files", "python_classes": "classes",
                "python_functions": "functions"}  # fmt: skip


def read_pytest_conventions(repo: Path) -> PytestConventions:
    """The project's pytest settings, from the first configuration file pytest would take
    at the repository's top (pytest.ini, .pytest.ini, pyproject.toml's
    [tool.pytest.ini_options], tox.ini's [pytest], setup.cfg's [tool:pytest]); pytest's
    defaults where none sets them. An unreadable file counts as absent."""
    found: dict[str, str | list] | None = None
    for name, section in (("pytest.ini", "pytest"), (".pytest.ini", "pytest"),
                          ("pyproject.toml", None), ("tox.ini", "pytest"),
                          ("setup.cfg", "tool:pytest")):  # fmt: skip
        path = repo / name
        if not path.is_file() or (section is None and tomllib is None):
            continue
        try:
            if section is None:
                data = tomllib.loads(path.read_text(encoding="utf-8"))
                found = data.get("tool", {}).get("pytest", {}).get("ini_options")
            else:
                parser = configparser.ConfigParser(interpolation=None)
                parser.read_string(path.read_text(encoding="utf-8"))
                found = dict(parser[section]) if parser.has_section(section) else None
        except (OSError, ValueError, configparser.Error):  # TOMLDecodeError is a ValueError
            found = None
        if found is not None or name == "pytest.ini":  # pytest.ini wins even when empty
            break
    values = {}
    for key, attr in _PYTEST_KEYS.items():
        raw = (found or {}).get(key)
        items = raw.split() if isinstance(raw, str) else raw
        if isinstance(items, list) and items and all(isinstance(x, str) for x in items):
            values[attr] = tuple(items)
    return PytestConventions(**values)


def _conventions(t: TestSymbol) -> PytestConventions:
    c = t.conventions
    return c if isinstance(c, PytestConventions) else PytestConventions()


def _is_unittest_case(bases: Iterable[str]) -> bool:
    """A unittest.TestCase subclass (Django's, Twisted's and others' cases are ones too)."""
    return any(
        b.startswith("unittest.") or b.rpartition(".")[2].endswith("TestCase") for b in bases
    )


# A module calling these at its top level may skip whole at collection (an optional
# dependency missing): pytest then has no node id inside it, and an explicit one is an
# error that stops the run before any test ("found no collectors"); its path is not.
PYTEST_MODULE_SKIPS = frozenset({"pytest.importorskip", "pytest.skip"})


def pytest_id(t: TestSymbol) -> RunId:
    """pytest's node id: `path::Class::test` for a test, else what collects the code."""
    folder = posixpath.dirname(t.file) or "."
    conventions = _conventions(t)
    if conventions.collects_file(t.file) and not t.module_calls.isdisjoint(PYTEST_MODULE_SKIPS):
        return RunId(t.file, _path_key(t.file), True, t.file)
    if not conventions.collects_file(t.file):
        # conftest.py (its fixtures and hooks serve every test below its folder, bound by
        # name) or a helper module the tests import: the folder's tests are what run it
        conftest = posixpath.basename(t.file) == "conftest.py"
        return folder_id(folder, always=conftest)
    file_key = _path_key(t.file)
    parts = _parts(t.local)
    ids: list[str] = []  # node names pytest collects, outermost first
    parent, parent_case, case = "module", False, False
    for depth, name in enumerate(parts):
        local = ".".join(t.local.split(".")[: depth + 1])
        kind = t.kind if depth == len(parts) - 1 else t.scope_kinds.get(local, "")
        if kind == "class":
            # a class in the module or in a collected class (pytest collects nested ones);
            # a unittest case whatever its name, and its test* methods whatever pytest's
            case = _is_unittest_case(t.bases.get(local, ()))
            collected = case or conventions.collects_class(name)
        elif kind in ("function", "method"):
            # a test function of the module, or a test method of a collected class
            collected = (
                name.startswith("test") if parent_case else conventions.collects_function(name)
            )
        else:
            collected = False
        if not collected or parent not in ("module", "class"):
            break
        ids.append(name)
        parent, parent_case = kind, kind == "class" and case
    exact = len(ids) == len(parts) and bool(parts) and t.kind in ("function", "method")
    return RunId("::".join([t.file, *ids]), file_key + tuple(ids), exact, t.file, expand=True)


# ----------------------------------------------------------------------------- go

_GO_TEST_PREFIXES = ("Test", "Benchmark", "Fuzz", "Example")


def go_test_id(t: TestSymbol) -> RunId:
    """`go test -run '^TestX$' ./pkg` for a test function; the package's `go test` else."""
    folder = posixpath.dirname(t.file)
    pkg = f"./{folder}" if folder else "."
    parts = _parts(t.local)
    name = parts[-1] if parts else ""
    is_test = (
        t.file.endswith("_test.go")
        and t.kind == "function"
        and len(parts) == 1
        and name.startswith(_GO_TEST_PREFIXES)
    )
    if not is_test:
        return RunId(f"go test {shlex.quote(pkg)}", (folder,), False, folder or ".")
    if name.startswith("Benchmark"):
        command = f"go test -run '^$' -bench '^{name}$' {shlex.quote(pkg)}"
    else:
        command = f"go test -run '^{name}$' {shlex.quote(pkg)}"
    return RunId(command, (folder, name), True, t.file)


# ----------------------------------------------------------------------------- rust


def cargo_test_path(t: TestSymbol) -> RunId:
    """The test's path inside its crate (`a::tests::it_works`), as `cargo test` lists it
    and takes it as a filter: the qualified name without the crate (or test target)."""
    segments = t.qualified_name.split("::")
    path = "::".join(segments[1:]) or segments[0]
    exact = t.kind == "function" and len(segments) > 1
    return RunId(path, tuple(segments), exact, t.file)


# ----------------------------------------------------------------------------- java


def junit_id(t: TestSymbol) -> RunId:
    """`Class#method` (nested classes `Outer$Inner#method`), as Surefire's -Dtest takes it."""
    parts = _parts(t.local)
    if t.kind == "method" and len(parts) >= 2:
        cls = "$".join(parts[:-1])
        return RunId(f"{cls}#{parts[-1]}", (t.file, *parts), True, t.file)
    classes = [
        p
        for depth, p in enumerate(parts)
        if (t.kind if depth == len(parts) - 1 else t.scope_kinds.get(".".join(parts[: depth + 1])))
        in ("class", "interface", "enum")
    ]
    cls = "$".join(classes) or posixpath.splitext(posixpath.basename(t.file))[0]
    return RunId(cls, (t.file, *classes), False, t.file)


# ----------------------------------------------------------------------------- typescript

_SPEC_MARKERS = (".test.", ".spec.")


def jest_file_id(t: TestSymbol) -> RunId:
    """The test file (jest, vitest and mocha run files); a helper's folder."""
    name = posixpath.basename(t.file)
    if any(m in name for m in _SPEC_MARKERS) or "__tests__" in t.file.split("/"):
        return RunId(t.file, _path_key(t.file), True, t.file)
    return folder_id(posixpath.dirname(t.file) or ".")


RUN_ID_BY_LANGUAGE: dict[str, Callable[[TestSymbol], RunId]] = {
    "python": pytest_id,
    "go": go_test_id,
    "rust": cargo_test_path,
    "java": junit_id,
    "typescript": jest_file_id,
    "tsx": jest_file_id,
    "javascript": jest_file_id,
}


# C#, Ruby, PHP, Kotlin, Swift and Dart: their module builds on RunId and TestSymbol above
from codeimpact.indexer import test_ids_more  # noqa: E402

RUN_ID_BY_LANGUAGE.update(test_ids_more.RUN_IDS)


def run_id_of(language: str | None, t: TestSymbol) -> RunId:
    """The runner's id of a test symbol of `language` (the file itself when unknown)."""
    fn = RUN_ID_BY_LANGUAGE.get(language or "")
    if fn is None:
        return RunId(t.file, _path_key(t.file), False, t.file)
    return fn(t)


def _expanded(
    r: RunId, inside: Callable[[RunId], list[RunId]] | None, holding: set[tuple[str, ...]]
) -> list[RunId] | None:
    """The exact tests an expandable id stands for ([]: keep it as it is). A folder with
    none gives way to the folder above, unless a selected test is in that one (it stands
    for the helper, as a selected test in its own folder does); None: drop it."""
    if inside is None or not r.expand:
        return []
    at: RunId | None = r
    while at is not None:
        found = [x for x in inside(at) if x.exact and x.key[: len(at.key)] == at.key]
        if found or not at.folder:
            return found
        if r.always:
            return None  # a conftest serves only the tests below its folder
        at = _parent(at)
        if at is not None and at.key in holding:
            return None
    return None


def select_run_ids(
    ids: Iterable[RunId], inside: Callable[[RunId], list[RunId]] | None = None
) -> list[str]:
    """The ids to hand a runner: each test once, sorted, none run twice.

    An inexact id (what runs a helper) is kept only when no exact test inside it is
    selected, or when it is `always`; one that says `expand` is replaced by the exact
    tests `inside` finds in it (kept as it is when there are none; a `folder` with none
    gives way to the nearest folder above with some, and is dropped when there is none
    up to the top: it would collect nothing); an id inside another kept id is dropped
    (the outer one runs it).
    """
    ids = list(ids)
    # every prefix of an exact key: the containers that hold a selected test
    holding = {r.key[:n] for r in ids if r.exact for n in range(len(r.key) + 1)}
    kept: dict[tuple[str, ...], str] = {}
    for r in ids:
        if r.exact:
            kept.setdefault(r.key, r.run_id)
        elif r.always or r.key not in holding:
            found = _expanded(r, inside, holding)
            if found is None:
                continue  # no test in it or above: nothing a runner would collect
            for x in found or [r]:
                kept.setdefault(x.key, x.run_id)
    out = {
        run_id for key, run_id in kept.items() if not any(key[:n] in kept for n in range(len(key)))
    }
    return sorted(out)
