"""pytest fixtures as the language they are (a mixin of PythonProject).

A parameter of a test function or of a fixture names a fixture, found by pytest's rules: a
method fixture of the test's class, then a fixture bound at the test module's top level
(defined or imported there), then the `conftest.py` files of the folders above, nearest
first. A fixture requesting its own name (an override) starts past itself. The test depends
on the fixture (a CALLS edge, rule `fixture`) and the parameter holds what the fixture
returns (`runner` from `return CliRunner()` makes `runner.invoke` CliRunner.invoke).

Not covered (the facts do not hold them yet): `yield` values of unannotated fixtures (no fact
for a yield; an `Iterator[T]`/`Generator[T, ...]` annotation types the parameter as T),
`autouse=True` (decorator arguments are not facts), `usefixtures("name")` and
`request.getfixturevalue("name")` (string arguments are not facts), `@pytest.fixture(name=)`.
"""

from __future__ import annotations

from codeimpact.indexer.lang.api import SymbolFact
from codeimpact.indexer.lang.engine.edges import Edges
from codeimpact.indexer.lang.python.index import FileIndex, split_top

_FUNCTION_KINDS = ("function", "method")
_GENERATORS = frozenset(("Iterator", "Generator", "Iterable", "AsyncIterator", "AsyncGenerator"))


def is_fixture(sym: SymbolFact | None) -> bool:
    """`@pytest.fixture`, `@pytest.fixture(...)`, `@fixture`, `@pytest_asyncio.fixture`."""
    return sym is not None and any(
        d.removesuffix("()").rpartition(".")[2] == "fixture" for d in sym.decorators
    )


def requests_fixtures(sym: SymbolFact) -> bool:
    """A test function or a fixture: pytest binds its parameters to fixtures."""
    return sym.kind in _FUNCTION_KINDS and (sym.is_test or is_fixture(sym))


def conftests_above(path: str) -> list[str]:
    """The conftest.py paths pytest reads for `path`, nearest folder first."""
    out = []
    folder = path.rpartition("/")[0]
    while True:
        out.append(f"{folder}/conftest.py" if folder else "conftest.py")
        if not folder:
            return out
        folder = folder.rpartition("/")[0]


class Fixtures:
    """Fixture lookup by pytest's rules, the fixture edges, and fixture-typed parameters."""

    def fixture_of(self, fi: FileIndex, scope: str, name: str) -> tuple[str, str] | None:
        """The fixture a parameter `name` of `scope` (a test or a fixture) is bound to."""
        sym = fi.syms.get(scope)
        if sym is None or not requests_fixtures(sym) or not self.is_test_path(fi.path):
            return None
        me = (fi.path, scope)
        cls = fi.parent.get(scope, "")
        if cls and fi.syms[cls].kind == "class":
            local = fi.members.get(cls, {}).get(name)
            if local is not None and (fi.path, local) != me and is_fixture(fi.syms.get(local)):
                return fi.path, local
        paths = [fi.path] + [p for p in conftests_above(fi.path) if p != fi.path]
        for path in paths:
            if path not in self._module_of:
                continue
            r = self.module_name_entity(path, name, True, 1)
            if r is None or r[0][0] != "sym":
                continue
            found = (r[0][1], r[0][2])
            if found != me and is_fixture(self.files[found[0]].syms.get(found[1])):
                return found
        return None

    def fixture_value(self, fi: FileIndex, scope: str, name: str, depth: int):
        """What a fixture-bound parameter holds: the fixture's return value."""
        found = self.fixture_of(fi, scope, name)
        if found is None:
            return None
        value = self.call_result(("sym", *found), depth + 1)
        ffi = self.files[found[0]]
        if all(r.value[:4] == "ann:" for r in ffi.returns.get(found[1], ())):
            # no `return`: a yield fixture declared `-> Iterator[T]` gives its parameter a T
            value = self._yielded(ffi, found[1], depth) or value
        return (value, "fixture") if value is not None else None

    def _yielded(self, fi: FileIndex, local: str, depth: int):
        for r in fi.returns.get(local, ()):
            head, _, args = r.value.removeprefix("ann:").partition("[")
            if r.value.startswith("ann:") and head.rpartition(".")[2] in _GENERATORS and args:
                return self.eval_type(fi, local, split_top(args[:-1], ",")[0], depth + 1)
        return None

    def fixture_edges(self, fi: FileIndex, edges: Edges) -> None:
        """A test (or fixture) calls the fixtures its parameters request."""
        if not self.is_test_path(fi.path):
            return
        for local, sym in fi.syms.items():
            if not sym.params or not requests_fixtures(sym):
                continue
            src = self.uid(fi.path, local)
            bound = sym.kind == "method" and "staticmethod" not in sym.decorators
            for i, (pname, _ann) in enumerate(sym.params):
                if (bound and i == 0) or pname.startswith("*"):
                    continue
                found = self.fixture_of(fi, local, pname)
                if found is not None:
                    edges.call(src, self.uid(*found), "fixture", sym.start_line)
