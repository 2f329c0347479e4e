"""A project none of whose files defines a pytest fixture binds no fixture request, so its
requests are not looked at (lang/python/fixtures.py `_fixtureless`: Django's ~700 test
files were each a pass over their definitions for no edge). It is known only by a project
that summarised every file itself (a full build); an edit's project looks for fixtures as
before, and an edit adding the first fixture gives the graph a full build does."""

from __future__ import annotations

import sys

import pytest
from test_incremental import assert_same_as_full, make, run

from codeimpact.indexer.lang.python import SPEC
from codeimpact.indexer.lang.python.fixtures import Fixtures
from codeimpact.indexer.lang.python.resolve import PythonProject
from codeimpact.query.index import Index

FILES = {
    "pkg/__init__.py": "",
    "pkg/app.py": "class App:\n    def run(self):\n        return 1\n\n\n"
    "def app():\n    return App()\n",
    "tests/test_a.py": "import pytest\nfrom pkg.app import app\n\n\n"
    "@pytest.mark.usefixtures('db')\ndef test_run(app):\n    app.run()\n\n\n"
    "class TestB:\n    def test_b(self, app, request):\n"
    "        request.getfixturevalue('app')\n",
}
FIXTURE = (
    "import pytest\nfrom pkg.app import App\n\n\n@pytest.fixture\ndef app():\n    return App()\n"
)


def _project(files: dict[str, str], prior=None) -> PythonProject:
    facts = {p: SPEC.extract(src.encode()) for p, src in files.items()}
    return PythonProject(facts, SPEC.is_test_path, {}, prior)


def _resolved(project: PythonProject) -> dict:
    return {p: project.resolve_file(p) for p in sorted(project.paths)}


def test_a_project_without_fixtures_looks_at_no_request(monkeypatch):
    reference = _project(FILES)
    assert reference._fixtureless
    reference._fixtureless = False  # requests looked at, as before
    expected = _resolved(reference)

    # (the requests that bind nothing are still read: unbound fixtures are unresolved sites)
    callers = []
    requests = Fixtures._requests

    def spied(self, fi):
        callers.append(sys._getframe(1).f_code.co_name)
        return requests(self, fi)

    monkeypatch.setattr(Fixtures, "_requests", spied)
    project = _project(FILES)
    assert _resolved(project) == expected
    assert callers == ["unbound_fixtures"]
    # unresolved rows are (scope, name, line)
    assert any(u[1] == "fixture:db" for u in expected["tests/test_a.py"].unresolved)


@pytest.mark.parametrize("where", ["tests/conftest.py", "pkg/fixtures.py"])
def test_one_fixture_anywhere_and_requests_bind(where):
    files = {**FILES, where: FIXTURE}
    if where == "pkg/fixtures.py":  # not a conftest: bound where a test module imports it
        files["tests/test_a.py"] = files["tests/test_a.py"].replace(
            "from pkg.app import app", "from pkg.fixtures import app"
        )
    project = _project(files)
    assert not project._fixtureless
    calls = {(e.src, e.dst, e.reason) for e in _resolved(project)["tests/test_a.py"].edges}
    fixture = f"{where}::app"
    assert ("tests/test_a.py::test_run", fixture, "fixture") in calls
    assert ("tests/test_a.py::TestB.test_b", fixture, "fixture") in calls


def test_an_edit_adding_the_first_fixture_is_a_full_build(tmp_path):
    """The edit's project has the previous run's summaries, not every file's facts: it
    looks for fixtures, and the test requesting the new one is resolved again."""
    repo = make(tmp_path, {**FILES, "pkg/far.py": "def far():\n    return 1\n"})
    (repo / "tests/conftest.py").write_text(FIXTURE)
    run(repo)
    with Index.open(repo) as index:
        rows = index.cypher("MATCH (a:Symbol)-[c:CALLS]->(b) WHERE c.reason = 'fixture' "
                            "RETURN a.uid, b.uid").rows  # fmt: skip
    assert sorted(map(tuple, rows)) == [
        ("tests/test_a.py::TestB.test_b", "tests/conftest.py::app"),
        ("tests/test_a.py::test_run", "pkg/app.py::App.run"),  # app: what the fixture returns
        ("tests/test_a.py::test_run", "tests/conftest.py::app"),
    ]
    assert_same_as_full(repo, tmp_path)
