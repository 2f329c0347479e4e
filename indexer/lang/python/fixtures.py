"""pytest fixtures as the language they are (a mixin of PythonProject).

A fixture is known by the name pytest binds it to: `@pytest.fixture(name="db")`'s literal, or
the function's name. A test (or a fixture) requests fixtures by its parameters' names,
`request.getfixturevalue("db")` with a literal, and a test also by
`@pytest.mark.usefixtures("db")` (on it, on its class, or a `pytestmark` of its class or
module) and by every `autouse=True` fixture of its class, its module and the `conftest.py`
files above. A requested name binds by pytest's rules: a fixture method of the test's class,
then a fixture of the test module's top level (defined or imported there), then the
conftest.py files of the folders above, nearest first; a fixture requesting its own name (an
override) starts past itself. The test depends on the fixture (a CALLS edge, rule `fixture`)
and a requesting parameter holds what the fixture gives: what it returns, or for a
generator fixture what it yields (`runner` from `return CliRunner()` makes `runner.invoke`
CliRunner.invoke; `yield ctx` in `with app.app_context() as ctx` the AppContext).

A parameter that a parametrize mark binds holds the mark's value (a class, a function, an
instance constructed in the mark) when the values agree; `request.param` in a fixture with
`params=` likewise; such a parameter is no fixture request. A parameter of a test helper holds
what its callers in the file pass it (`common_test(app)`), when they all pass one value.

Not covered: fixtures of plugins (`pytest_plugins`, installed packages: external).
"""

from __future__ import annotations

from codeimpact.indexer.lang.api import SymbolFact
from codeimpact.indexer.lang.engine.edges import Edges
from codeimpact.indexer.lang.engine.memo import memoized
from codeimpact.indexer.lang.engine.receivers import returned_value
from codeimpact.indexer.lang.engine.rules import weakest
from codeimpact.indexer.lang.engine.values import ALTS, alternatives
from codeimpact.indexer.lang.python.index import FileIndex, split_top
from codeimpact.indexer.lang.python.pytest_names import (
    fixture_names,
    is_fixture,
    literal_arguments,
)
from codeimpact.indexer.resolved import UNBOUND_FIXTURE, Unresolved
from codeimpact.native.record import Compared

_FUNCTION_KINDS = ("function", "method")
# the fixtures pytest itself provides (docs: "Fixtures reference"): never a plugin's call-back
PYTEST_FIXTURES = frozenset(
    """cache capsys capsysbinary capfd capfdbinary caplog
    doctest_namespace monkeypatch pytestconfig record_property record_testsuite_property
    record_xml_attribute recwarn request testdir pytester tmp_path tmp_path_factory tmpdir
    tmpdir_factory subtests""".split()
)  # noqa: SIM905 - a word list
_GENERATORS = frozenset(("Iterator", "Generator", "Iterable", "AsyncIterator", "AsyncGenerator"))
_VALUE_KINDS = frozenset(("inst", "sym", "seq", "map", "tup"))
_UNKNOWN = frozenset(("param", "unknown"))


def requests_fixtures(fi: FileIndex, sym: SymbolFact) -> bool:
    """A test function or a fixture that pytest collects (defined at the top level or in a
    class, not nested in a function): pytest binds its parameters to fixtures."""
    if sym.kind not in _FUNCTION_KINDS or not (sym.is_test or is_fixture(sym)):
        return False
    parent = fi.parent.get(sym.local, "")
    return not parent or fi.syms[parent].kind == "class"


def conftests_above(path: str) -> list[str]:
    """The conftest.py paths pytest reads for `path`, nearest folder first."""
    out = []
    folder = path.rpartition("/")[0]
    while True:
        out.append(f"{folder}/conftest.py" if folder else "conftest.py")
        if not folder:
            return out
        folder = folder.rpartition("/")[0]


class FixtureTable(Compared):
    """A file's fixtures as pytest collects them."""

    # (enclosing scope: "" or a class, the name pytest binds) -> the fixture's local
    by_name: dict[tuple[str, str], str]
    names: dict[str, str]  # local -> the name pytest binds
    autouse: dict[str, list[str]]  # enclosing scope -> locals
    __slots__ = ("by_name", "names", "autouse")

    def __init__(
        self,
        by_name: dict[tuple[str, str], str] | None = None,
        names: dict[str, str] | None = None,
        autouse: dict[str, list[str]] | None = None,
    ) -> None:
        self.by_name = {} if by_name is None else by_name
        self.names = {} if names is None else names
        self.autouse = {} if autouse is None else autouse


def fixture_table(fi: FileIndex) -> FixtureTable:
    """The fixtures defined at the top level of `fi` or in its classes (made once per file)."""
    if fi.fixture_table is not None:
        return fi.fixture_table
    table = FixtureTable()
    fi.fixture_table = table
    if not any(is_fixture(s) for s in fi.syms.values()):
        return table  # (most files: the call tables are not made for it)
    calls = [c for cs in fi.literal_calls.values() for c in cs]
    for local, (name, autouse) in fixture_names(fi.syms.values(), calls).items():
        parent = fi.parent.get(local, "")
        if parent and fi.syms[parent].kind != "class":
            continue  # a fixture nested in a function is no attribute pytest collects
        table.by_name[(parent, name)] = local  # the later definition wins, as at runtime
        table.names[local] = name
        if autouse:
            table.autouse.setdefault(parent, []).append(local)
    return table


class Fixtures:
    """Fixture lookup by pytest's rules, the fixture edges, and fixture-typed parameters."""

    # no file of the project defines a fixture (PythonProject's summaries say so when they
    # are every file's): no request binds one, and requests are not looked at
    _fixtureless: bool

    def fixture_of(self, fi: FileIndex, scope: str, name: str) -> tuple[str, str] | None:
        """The fixture a name requested by `scope` (a test or a fixture) is bound to."""
        if self._fixtureless:
            return None
        sym = fi.syms.get(scope)
        if sym is None or not requests_fixtures(fi, sym) or not self.is_test_path(fi.path):
            return None
        me = (fi.path, scope)
        for cls in fi.enclosing(scope, ()):
            if cls and fi.syms[cls].kind == "class":
                local = fixture_table(fi).by_name.get((cls, name))
                if local is not None and (fi.path, local) != me:
                    return fi.path, local
        paths = [fi.path] + [p for p in conftests_above(fi.path) if p != fi.path]
        for path in paths:
            if path not in self._module_of:
                continue
            local = fixture_table(self.files[path]).by_name.get(("", name))
            if local is not None and (path, local) != me:
                return path, local
            r = self.module_name_entity(path, name, True, 1)  # imported into the module
            if r is None or r[0][0] != "sym":
                continue
            found = (r[0][1], r[0][2])
            ffi = self.files[found[0]]
            if found != me and fixture_table(ffi).names.get(found[1]) == name:
                return found
        return None

    def fixture_value(self, fi: FileIndex, scope: str, name: str, depth: int):
        """What a fixture-bound parameter holds: what the fixture returns, or yields."""
        found = self.fixture_of(fi, scope, name)
        if found is None:
            return None
        ffi = self.files[found[0]]
        yields = ffi.yields.get(found[1])
        if yields:  # a generator fixture: the parameter holds its item
            value = self._yielded(ffi, found[1], depth) or returned_value(
                self, ffi, [r._replace(value=r.value[6:]) for r in yields], "ann:",
                lambda text, r: self.eval_type(ffi, r.scope, text, depth + 1),
                _VALUE_KINDS, depth,
            )  # fmt: skip
        else:
            value = self.call_result(("sym", *found), depth + 1) or self._library_instance(
                ffi, found[1], depth
            )
            if all(r.value[:4] == "ann:" for r in ffi.returns.get(found[1], ())):
                # no `return`: a fixture declared `-> Iterator[T]` gives its parameter a T
                value = self._yielded(ffi, found[1], depth) or value
        return (value, "fixture") if value is not None else None

    def pytest_value(self, fi: FileIndex, scope: str, name: str, depth: int):
        """What an unannotated parameter holds: a parametrize mark's value (which overrides
        a fixture of the same name), else the fixture's value, else for a test helper what
        its callers pass."""
        # (the first tests of parametrized and fixture_of read here: most files have no
        # parametrize mark, and a project without fixtures binds no parameter to one; two
        # and three frames per parameter looked up, 10K per Django)
        if fi.parametrized and self.parametrized(fi, scope, name):
            return self.parametrized_value(fi, scope, name, depth)
        r = self.fixture_value(fi, scope, name, depth) if not self._fixtureless else None
        return r or self.passed_value(fi, scope, name, depth)

    def parametrized(self, fi: FileIndex, scope: str, name: str) -> list[str]:
        """What pytest binds the parameter `name` of the test or fixture `scope` to, by its
        parametrize marks (`name` "request.param": a fixture's params=): `str:text`,
        `val:chain` and `?` values (parametrize.py), the decorators' lines being the
        definition's."""
        sym = fi.syms.get(scope)
        facts = fi.parametrized.get(fi.parent.get(scope, "")) if sym is not None else None
        if not facts:
            return []
        key = "@" + name
        return [b.value[6:] for b in facts
                if b.name == key and sym.start_line <= b.line <= sym.end_line]  # fmt: skip

    def parametrized_value(self, fi: FileIndex, scope: str, name: str, depth: int):
        """The value a parametrised parameter holds: one of the mark's values (a class, a
        function, an instance constructed in the mark), as alternatives when they differ; a
        value the facts do not name (a string, a number) is an unknown alternative."""
        values = self.parametrized(fi, scope, name)
        if not values:
            return None
        outer = fi.parent.get(scope, "")
        line = fi.syms[scope].start_line
        unknown = ("unknown", fi.path, scope, name)
        found, rule = [], "local-type"
        for v in values:
            r = self.eval_chain(fi, outer, v[4:], line, depth + 1) if v[:4] == "val:" else None
            if r is None or r[0][0] in _UNKNOWN:
                found.append(unknown)
            else:
                found.append(r[0])
                rule = weakest(rule, r[1])
        return _one_of(found, rule)

    def request_param(self, path: str, scope: str, depth: int):
        """`request.param` in the fixture `scope`: a value of its params= list."""
        fi = self.files[path]
        sym = fi.syms.get(scope)
        if sym is None or not is_fixture(sym):
            return None
        return self.parametrized_value(fi, scope, "request.param", depth)

    def passed_value(self, fi: FileIndex, scope: str, name: str, depth: int):
        """A parameter of a test helper (a top-level function of a test file, no test, no
        fixture) holds what the helper's callers in the file pass it, when they all pass one
        value: `common_test(app)` from tests requesting the fixture `app` (rule local-type: the
        receiver is typed by what is passed, as by an assignment)."""
        sym = fi.syms.get(scope)
        # (the plain facts first: the calls by name are a call table, made on first read,
        # and Django's library parameters asked it for ~480 files that need no other)
        if sym is None or sym.kind != "function" or sym.is_test or is_fixture(sym):
            return None  # (only a function is called by its plain name: name_calls' keys)
        if not self.is_test_path(fi.path):
            return None
        calls = fi.name_calls.get(scope)
        return self._passed(fi, calls, scope, name, depth) if calls else None

    @memoized('("passed", fi.path, scope, name)')
    def _passed(self, fi: FileIndex, calls, scope: str, name: str, depth: int):
        idx = fi.params[scope][name][0]
        unknown = ("unknown", fi.path, scope, name)
        found, rule = [], "local-type"
        me = ("sym", fi.path, scope)
        for c in calls:
            callee = self.lookup_name(fi, c.scope, c.callee, c.line, depth + 1)
            if callee is None or callee[0] != me:
                continue  # a local function of the same name
            chain = next((ch for k, ch in c.args if k in (idx, name)), None)
            r = self.eval_chain(fi, c.scope, chain, c.line, depth + 1) if chain else None
            if r is None or r[0][0] in _UNKNOWN:
                found.append(unknown)  # a caller passes something else, or what we cannot know
            else:
                found.append(r[0])
                rule = weakest(rule, r[1])
        return _one_of(found, rule)

    def _library_instance(self, fi: FileIndex, local: str, depth: int):
        """What a fixture returns when it is an instance of a library class the entry-point
        table follows (`return CliRunner()`: runner.invoke(cli) runs cli)."""
        value = returned_value(
            self, fi, fi.returns.get(local, ()), "ann:",
            lambda text, r: self.eval_type(fi, r.scope, text, depth + 1), ("ext",), depth,
        )  # fmt: skip
        return value if value is not None and value[1] in self.entry_table.instances else None

    def requested_value(self, fi: FileIndex, b, depth: int):
        """`x = request.getfixturevalue("db")`: x holds what the fixture db gives."""
        for c in fi.literal_calls.get(b.scope, ()):
            if c.line == b.line and c.callee == b.value:
                names = literal_arguments((c,), "getfixturevalue", 0)
                return self.fixture_value(fi, b.scope, names[0], depth) if names else None
        return None

    def _yielded(self, fi: FileIndex, local: str, depth: int):
        for r in fi.returns.get(local, ()):
            head, _, args = r.value.removeprefix("ann:").partition("[")
            if r.value.startswith("ann:") and head.rpartition(".")[2] in _GENERATORS and args:
                return self.eval_type(fi, local, split_top(args[:-1], ",")[0], depth + 1)
        return None

    def fixture_edges(self, fi: FileIndex, edges: Edges) -> None:
        """A test (or fixture) calls the fixtures it requests."""
        if self._fixtureless:
            return  # (Django: ~700 test files, each a pass over its definitions)
        for src, _name, line, found in self._requests(fi):
            if found is not None:
                edges.call(src, self.uid(*found), "fixture", line)

    def unbound_fixtures(self, fi: FileIndex) -> list[Unresolved]:
        """The fixtures tests and fixtures request that no fixture of the repository binds
        and pytest does not provide (a plugin's, or a misspelling): unresolved sites named
        `fixture:NAME` at the request's line. A plugin's fixture may call into the
        repository: the query side says so (query/impact.py, completeness)."""
        base = fi.path.rpartition("/")[2]
        if not (base.startswith("test_") or base.endswith("_test.py") or base == "conftest.py"):
            return []  # a file pytest does not collect (django/test/runner.py)
        if not any(p in self._module_of for p in conftests_above(fi.path)) and not any(
            i.module.partition(".")[0] in ("pytest", "_pytest") for i in fi.facts.imports
        ):
            return []  # not written for pytest (Django's suite): no fixtures to bind
        return [Unresolved(src, f"{UNBOUND_FIXTURE}{name}", line)
                for src, name, line, found in self._requests(fi)
                if found is None and name not in PYTEST_FIXTURES
                and self._pytest_binds(fi, src.partition("::")[2])]  # fmt: skip

    def _pytest_binds(self, fi: FileIndex, local: str) -> bool:
        """Whether pytest binds every parameter of `local` to a fixture: not a method of a
        class with bases (unittest's TestCase runs its methods itself), not under a
        decorator other than pytest's own, which may pass arguments (`mock.patch`,
        hypothesis's `given`, a helper returning a parametrize mark)."""
        sym = fi.syms[local]
        if not all(_pytest_decorator(d) for d in sym.decorators):
            return False
        parent = fi.parent.get(local, "")
        return not parent or not any(h.scope == parent for h in fi.facts.heritage)

    def _requests(self, fi: FileIndex):
        """(requesting uid, name, line, the fixture it binds to or None) of every fixture
        request of the file's tests and fixtures."""
        if not self.is_test_path(fi.path):
            return
        # requests_fixtures of each definition, and whether one is a fixture, in one pass
        # (a test file of Django: ~40 definitions, most undecorated methods; read by field:
        # unpacking twelve fields to read four costs more in CPython 3.11)
        syms, parents = fi.syms, fi.parent
        asking = []
        with_params = []  # those with a parameter pytest binds (not a bound `self`)
        fixtures = False
        for local, sym in syms.items():
            fixture = bool(sym.decorators) and is_fixture(sym)
            fixtures = fixtures or fixture
            if sym.kind in _FUNCTION_KINDS and (sym.is_test or fixture):
                parent = parents.get(local, "")
                if not parent or syms[parent].kind == "class":
                    asking.append((local, sym))
                    if len(sym.params) > _bound(sym):
                        with_params.append((local, sym))
        if not asking:
            return
        # Most test files request nothing but their parameters (Django's suite: unittest
        # methods taking `self` only): the marks and autouse fixtures that could add names
        # are looked for once per file, and the call tables read only when a mark is written
        marks = _writes_marks(fi.facts.calls)
        autouse = fixtures or any(
            p != fi.path and p in self._module_of for p in conftests_above(fi.path)
        )
        if not (marks or autouse):  # only parameters request: a bound `self` alone does not
            asking = with_params
        for local, sym in asking:
            names = self._requested(fi, local, sym, marks, autouse)
            got = marks and fi.literal_calls.get(local)
            if not names and not got:
                continue
            src = self.uid(fi.path, local)
            for name in names:
                yield src, name, sym.start_line, self.fixture_of(fi, local, name)
            for c in got or ():
                for name in literal_arguments((c,), "getfixturevalue", 0):
                    yield src, name, c.line, self.fixture_of(fi, local, name)

    def _requested(self, fi: FileIndex, local: str, sym: SymbolFact, marks: bool = True,
                   autouse: bool = True) -> list[str]:  # fmt: skip
        """The names a test or fixture requests by its parameters; a test also by the
        usefixtures marks on it, its classes and its module, and by the autouse fixtures of
        its classes, its module and the conftest.py files above (`marks`: whether the file
        writes any usefixtures/getfixturevalue call with literals; `autouse`: whether it or
        a conftest.py above defines a fixture)."""
        bound = _bound(sym)
        out = [n for i, (n, _) in enumerate(sym.params)
               if not (bound and i == 0) and n[0] != "*"
               and not self.parametrized(fi, local, n)]  # parametrize overrides a fixture  # fmt: skip
        if not sym.is_test or is_fixture(sym) or not (marks or autouse):
            return out  # a fixture named test_x is no test; nothing above to request
        own = fi.literal_calls.get(local) if marks else None
        if own:
            out += literal_arguments(own, "usefixtures", None)
        # what the scopes around the test request is the same for every test in them
        parent = fi.parent.get(local, "")
        above = self.memo.cached(("requested above", fi.path, parent),
                                 lambda: self._requested_above(fi, parent))  # fmt: skip
        return list(dict.fromkeys(out + above)) if above or own else out

    def _requested_above(self, fi: FileIndex, parent: str) -> list[str]:
        """The names the tests directly in `parent` request by the usefixtures marks of
        `parent` and the scopes around it, and by the autouse fixtures of those classes,
        the module and the conftest.py files above (in that order)."""
        scopes = [parent, *fi.enclosing(parent, ())] if parent else [""]
        out: list[str] = []
        for s in scopes:
            out += literal_arguments(fi.literal_calls.get(s, ()), "usefixtures", None)
        tables = [(fi, s) for s in scopes if not s or fi.syms[s].kind == "class"]
        tables += [(self.files[p], "") for p in conftests_above(fi.path)
                   if p != fi.path and p in self._module_of]  # fmt: skip
        for tfi, s in tables:
            table = fixture_table(tfi)
            out += [table.names[a] for a in table.autouse.get(s, ())]
        return out


_MARKS = ("usefixtures", "getfixturevalue")


def _bound(sym: SymbolFact) -> bool:
    """A method whose first parameter pytest binds to the instance, not to a fixture."""
    return sym.kind == "method" and "staticmethod" not in sym.decorators


def _writes_marks(calls) -> bool:
    """Whether any call has literal arguments and is a `usefixtures` or `getfixturevalue`
    (literal_arguments' test): without one, no scope of the file requests by a literal."""
    return any(c.callee.rpartition(".")[2] in _MARKS for c in [c for c in calls if c.literals])


def _pytest_decorator(text: str) -> bool:
    """`pytest.fixture`, `pytest.mark.x(...)`, `fixture`, `mark.x`: pytest's own."""
    head = text.removesuffix("()")
    return head.startswith(("pytest.", "mark.")) or head in ("fixture", "pytest_asyncio.fixture")


def _one_of(found: list, rule: str):
    """(value, rule) of a parameter given the values it may hold: the one value, or its
    alternatives (rule value-flow at most: which one runs depends on data); None when
    nothing known is among them."""
    value = alternatives(found)
    if value is None or value[0] in _UNKNOWN:
        return None
    return value, weakest(rule, "value-flow") if value[0] == ALTS else rule
