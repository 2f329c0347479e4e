"""`detect-changes --if-incomplete importers` (issue 26 point 6): when the graph's tests to run
are a lower bound, the tests of the test files importing a changed module are added.

A real git repository: `pkg/core.py::Engine.step` is called only through a receiver the
graph cannot type (`make()` returns what `getattr` gives; another class has a `step`), an
unresolved call site named `step`, so the graph's selection is a lower bound. Test files import pkg.core directly, or
pkg.app (which imports it), or sit below a conftest.py that imports it; one imports neither.
"""

from __future__ import annotations

import json

from click.testing import CliRunner

from codeimpact import replies
from codeimpact.cli import main
from codeimpact.indexer.build import analyze
from codeimpact.indexer.config import IndexConfig, RunOptions
from codeimpact.query.changes import detect_changes
from codeimpact.query.index import Index
from conftest import committed_repo

FILES = {
    "pkg/__init__.py": "",
    "pkg/core.py": "class Engine:\n    def step(self):\n        return 1\n\n"
    "    def stop(self):\n        return 0\n\n\ndef make(name):\n"
    "    return getattr(Engine, name)()\n",
    "pkg/app.py": "from pkg.core import make\n\n\ndef run():\n    return make('e').step()\n",
    "pkg/other.py": "def alone():\n    return 2\n\n\nclass Walker:\n    def step(self):\n"
    "        return 0\n",
    "tests/__init__.py": "",
    "tests/test_core.py": "from pkg.core import Engine\n\n\ndef test_stop():\n"
    "    assert Engine().stop() == 0\n",
    "tests/test_app.py": "import pkg.app\n\n\ndef test_run():\n    assert pkg.app.run()\n",
    "tests/test_other.py": "from pkg.other import alone\n\n\ndef test_alone():\n"
    "    assert alone() == 2\n",
    "tests/sub/__init__.py": "",
    "tests/sub/conftest.py": "import pytest\n\nfrom pkg.core import Engine\n\n\n"
    "@pytest.fixture\ndef engine():\n    return Engine()\n",
    "tests/sub/test_fixture.py": "def test_engine(request):\n    assert request\n",
}


def _edited(tmp_path):
    repo = committed_repo(tmp_path / "repo", FILES)
    analyze(repo, IndexConfig(), RunOptions(workers=1))
    core = repo / "pkg/core.py"
    core.write_text(core.read_text().replace("return 1", "return 3"))  # Engine.step changes
    return repo


def test_a_lower_bound_falls_back_to_the_importing_test_files(tmp_path):
    repo = _edited(tmp_path)
    with Index.open(repo) as index:
        kept = detect_changes(index, limit=0)
        wider = detect_changes(index, limit=0, if_incomplete="importers")
    assert kept.impact.completeness.status == "lower-bound"
    assert kept.fallback is None
    assert wider.fallback.applied and wider.fallback.tests_added == 3
    assert "lower-bound" in wider.fallback.reason
    why = {t.run_id: t.why for t in wider.tests}
    assert why == {
        "tests/test_app.py": "imports",  # through pkg.app
        "tests/test_core.py": "imports",
        "tests/sub/test_fixture.py": "imports",  # below a conftest.py importing pkg.core
    }
    assert wider.run_ids == [
        "tests/sub/test_fixture.py::test_engine",
        "tests/test_app.py::test_run",
        "tests/test_core.py::test_stop",
    ]
    assert set(kept.run_ids) < set(wider.run_ids)  # test_other.py imports neither


def test_an_exact_answer_keeps_the_graphs_selection(tmp_path):
    repo = _edited(tmp_path)
    other = repo / "pkg/other.py"
    other.write_text(other.read_text().replace("return 2", "return 4"))
    core = repo / "pkg/core.py"
    core.write_text(FILES["pkg/core.py"])
    with Index.open(repo) as index:
        rep = detect_changes(index, limit=0, if_incomplete="importers")
    assert rep.impact.completeness.status == "exact"
    assert not rep.fallback.applied and rep.fallback.reason == "the selection is exact"
    assert rep.run_ids == ["tests/test_other.py::test_alone"]


def test_the_cli_and_json_say_so(tmp_path):
    repo = _edited(tmp_path)
    runner = CliRunner()
    ids = runner.invoke(main, ["detect-changes", "--repo", str(repo), "--tests-only",
                               "--if-incomplete", "importers"])  # fmt: skip
    assert ids.exit_code == 0, ids.output
    assert ids.output.split() == [
        "tests/sub/test_fixture.py::test_engine",
        "tests/test_app.py::test_run",
        "tests/test_core.py::test_stop",
    ]
    text = runner.invoke(
        main, ["detect-changes", "--repo", str(repo), "--if-incomplete", "importers"]
    )
    assert "fallback (--if-incomplete importers): 3 test files added" in text.output
    out = runner.invoke(main, ["detect-changes", "--repo", str(repo), "--json", "--if-incomplete",
                               "importers"])  # fmt: skip
    fallback = json.loads(out.output)["fallback"]
    assert fallback["mode"] == "importers" and fallback["applied"] is True
    reply = replies.detect_changes(json.loads(out.output), 50)  # what an MCP agent reads
    assert reply["fallback"]["tests_added"] == 3
    assert reply["tests_why"] == {
        "tests/sub/test_fixture.py::test_engine": "imports",
        "tests/test_app.py::test_run": "imports",
        "tests/test_core.py::test_stop": "imports",
    }
    bad = runner.invoke(main, ["detect-changes", "--repo", str(repo), "--if-incomplete", "all"])
    assert bad.exit_code == 2 and "Traceback" not in bad.output


OUTSIDE = {
    "pkg/__init__.py": "",
    "pkg/web.py": "import json\n\n\nclass App:\n    def __call__(self, environ):\n"
    "        return self.handle(environ)\n\n    def handle(self, environ):\n        return 1\n\n\n"
    "class Encoder(json.JSONEncoder):\n    def default(self, o):\n        return helper(o)\n\n\n"
    "def helper(o):\n    return 2\n\n\ndef alone():\n    return App().handle(None)\n",
    "tests/__init__.py": "",
    "tests/test_web.py": "from pkg.web import alone\n\n\ndef test_alone():\n"
    "    assert alone() == 1\n",
}


def test_a_way_in_from_outside_the_repository_makes_a_lower_bound(tmp_path):
    """App.__call__ (a WSGI server calls it) and Encoder.default (json's encoder calls it)
    have no caller in the graph: the tests entering there are missing from any answer
    through them, so handle's and helper's answers are lower bounds that say why; alone's,
    which passes through neither, stays exact."""
    repo = committed_repo(tmp_path / "repo", OUTSIDE)
    analyze(repo, IndexConfig(), RunOptions(workers=1))
    with Index.open(repo) as index:
        handle = index.impact("pkg.web.App.handle", limit=0).completeness
        helper = index.impact("pkg.web.helper", limit=0).completeness
        alone = index.impact("pkg.web.alone", limit=0).completeness
    assert (handle.status, handle.entered_from_outside) == ("lower-bound", 1)
    assert "pkg/web.py::App.__call__" in handle.reasons[0]
    assert (helper.status, helper.entered_from_outside) == ("lower-bound", 1)
    assert "pkg/web.py::Encoder.default" in helper.reasons[0]
    assert (alone.status, alone.entered_from_outside, alone.reasons) == ("exact", 0, [])
    runner = CliRunner()
    text = runner.invoke(main, ["impact", "pkg.web.helper", "--repo", str(repo)]).output
    assert "completeness: lower-bound" in text and "Encoder.default" in text


UNCALLED = {
    "pkg/__init__.py": "",
    "pkg/ops.py": "def run(name):\n    return globals()['op_' + name]()\n\n\n"
    "def op_add():\n    return total()\n\n\ndef total():\n    return 3\n\n\n"
    "def direct():\n    return total()\n",
    "tests/__init__.py": "",
    "tests/test_ops.py": "from pkg.ops import direct, run\n\n\ndef test_run():\n"
    "    assert run('add') == 3\n\n\ndef test_direct():\n    assert direct() == 3\n",
}


def test_a_function_with_no_caller_makes_a_lower_bound(tmp_path):
    """op_add runs only through a name made at run time: the graph has no caller for it, so
    total's answer (test_direct, through direct) misses test_run, which runs op_add; it says
    lower-bound and names op_add. direct's own answer passes no such function: exact."""
    repo = committed_repo(tmp_path / "repo", UNCALLED)
    analyze(repo, IndexConfig(), RunOptions(workers=1))
    with Index.open(repo) as index:
        total = index.impact("pkg.ops.total", include_tests=True, limit=0)
        direct = index.impact("pkg.ops.direct", include_tests=True, limit=0).completeness
    assert [t.uid for t in total.tests] == ["tests/test_ops.py::test_direct"]
    comp = total.completeness
    assert (comp.status, comp.no_caller, comp.unresolved_sites) == ("lower-bound", 1, 0)
    assert "pkg/ops.py::op_add" in comp.reasons[-1] and "no caller" in comp.reasons[-1]
    assert (direct.status, direct.no_caller, direct.reasons) == ("exact", 0, [])
    data = json.loads(
        CliRunner().invoke(main, ["impact", "pkg.ops.total", "--repo", str(repo), "--json"]).output
    )
    assert data["completeness"]["no_caller"] == 1


ROUTED = {
    "pkg/__init__.py": "",
    "pkg/app.py": "class App:\n    def __init__(self):\n        self.view_functions = {}\n\n"
    "    def add_url_rule(self, rule, view_func):\n        self.view_functions[rule] = view_func\n\n"
    "    def route(self, rule):\n        def decorator(f):\n            self.add_url_rule(rule, f)\n"
    "            return f\n\n        return decorator\n\n"
    "    def dispatch(self, rule):\n        return self.view_functions[rule]()\n",
    "pkg/render.py": "def render():\n    return 1\n",
    "pkg/site.py": "from pkg.app import App\nfrom pkg.render import render\n\napp = App()\n\n\n"
    "@app.route('/x')\ndef page():\n    return render()\n",
    "tests/test_site.py": "from pkg.app import App\nfrom pkg.render import render\n"
    "from pkg.site import app\n\n\ndef test_page():\n    assert app.dispatch('/x') == 1\n\n\n"
    "def test_nested():\n    local = App()\n\n    @local.route('/y')\n    def view():\n"
    "        return render()\n\n    assert local.dispatch('/y') == 1\n",
}


def test_a_function_only_its_dispatcher_calls_for_its_module_makes_a_lower_bound(tmp_path):
    """page is registered by its module's body and called only by App.dispatch (value-flow):
    the walk stops at both (query/relays.py), so render's answer misses test_page, which runs
    page by a request; it says lower-bound and names page. test_nested's own view is handed
    over by the test, a function: followed, not counted."""
    repo = committed_repo(tmp_path / "repo", ROUTED)
    analyze(repo, IndexConfig(), RunOptions(workers=1))
    with Index.open(repo) as index:
        r = index.impact("pkg/render.py::render", include_tests=True, limit=0)
    assert "tests/test_site.py::test_page" not in {t.uid for t in r.tests}
    comp = r.completeness
    assert (comp.status, comp.no_caller, comp.unresolved_sites) == ("lower-bound", 1, 0)
    assert "pkg/site.py::page" in comp.reasons[-1] and "dispatcher" in comp.reasons[-1]


TABLED = {
    "pkg/__init__.py": "",
    "pkg/text.py": "def digits(v):\n    return v.strip()\n",
    "pkg/filters.py": "from pkg.text import digits\n\n\ndef do_int(v):\n"
    "    return int(digits(v))\n\n\nFILTERS = {'int': do_int}\n",
    "pkg/env.py": "def render(name, v):\n    return globals()['TABLE'][name](v)\n",
    "tests/test_env.py": "from pkg.env import render\n\n\ndef test_int():\n"
    "    assert render('int', ' 3') == 3\n",
}


def test_a_function_only_its_modules_table_holds_makes_a_lower_bound(tmp_path):
    """do_int is referenced only by its own module's FILTERS table, which code the graph does
    not see runs (compiled templates: jinja's filters): the walk stops at the module, so
    digits' answer misses test_int; it says lower-bound and names do_int."""
    repo = committed_repo(tmp_path / "repo", TABLED)
    analyze(repo, IndexConfig(), RunOptions(workers=1))
    with Index.open(repo) as index:
        comp = index.impact("pkg/text.py::digits", include_tests=True, limit=0).completeness
    assert (comp.status, comp.no_caller, comp.unresolved_sites) == ("lower-bound", 1, 0)
    assert "pkg/filters.py::do_int" in comp.reasons[-1]


IMPLICIT = {
    "pkg/__init__.py": "",
    "pkg/stream.py": "def more(s):\n    return s.left > 0\n\n\nclass Stream:\n"
    "    def __init__(self, left):\n        self.left = left\n\n    def __bool__(self):\n"
    "        return more(self)\n\n\ndef drain(s: Stream):\n    while s:\n        s.left -= 1\n\n\n"
    "def ask(s: Stream):\n    return s.__bool__()\n",
    "tests/test_stream.py": "from pkg.stream import Stream, ask, drain\n\n\ndef test_drain():\n"
    "    drain(Stream(2))\n\n\ndef test_ask():\n    assert not ask(Stream(0))\n",
}


def test_a_protocol_method_called_implicitly_makes_a_lower_bound_despite_callers(tmp_path):
    """`while s:` runs Stream.__bool__ with no call written: the graph links ask's explicit
    `s.__bool__()` only (test_ask's), so more's answer misses test_drain; it says lower-bound
    and names __bool__ although __bool__ has a caller."""
    repo = committed_repo(tmp_path / "repo", IMPLICIT)
    analyze(repo, IndexConfig(), RunOptions(workers=1))
    with Index.open(repo) as index:
        comp = index.impact("pkg/stream.py::more", include_tests=True, limit=0).completeness
    assert (comp.status, comp.entered_from_outside) == ("lower-bound", 1)
    assert "pkg/stream.py::Stream.__bool__" in comp.reasons[0]


PLUGIN = {
    "pkg/__init__.py": "",
    "pkg/core.py": "def f():\n    return 1\n\n\ndef g():\n    return f()\n",
    "tests/__init__.py": "",
    "tests/conftest.py": "pytest_plugins = ['pytest_flask.plugin']\n",
    "tests/test_core.py": "from pkg.core import g\n\n\ndef test_g():\n    assert g()\n",
    "tests/test_plugin.py": "def test_client(client, tmp_path):\n    assert client.get('/')\n",
    "tests/test_both.py": "from pkg.core import f\n\n\ndef test_both(client):\n"
    "    assert f() and client\n",
}


def test_a_fixture_no_definition_binds_makes_a_lower_bound(tmp_path):
    """`client` binds to no fixture of the repository (a plugin's, pytest-flask's): its code
    may run f, so f's tests are a lower bound naming it, counted once per request outside
    the answer (test_both's is in it; tmp_path is pytest's own); test_client's own
    dependencies are a lower bound too. (Only tests written for pytest count: below a
    conftest.py, or importing pytest.)"""
    repo = committed_repo(tmp_path / "repo", PLUGIN)
    analyze(repo, IndexConfig(), RunOptions(workers=1))
    with Index.open(repo) as index:
        up = index.impact("pkg.core.f", include_tests=True, limit=0)
        down = index.impact("tests/test_plugin.py::test_client", direction="downstream")
    comp = up.completeness
    assert {t.uid for t in up.tests} >= {
        "tests/test_core.py::test_g",
        "tests/test_both.py::test_both",
    }
    assert (comp.status, comp.unbound_fixtures, comp.unresolved_sites) == ("lower-bound", 1, 0)
    assert "'client' by tests/test_plugin.py::test_client" in comp.reasons[0]
    assert (down.completeness.status, down.completeness.unbound_fixtures) == ("lower-bound", 1)
    runner = CliRunner()
    args = ["impact", "pkg.core.f", "--repo", str(repo), "--include-tests"]
    text = runner.invoke(main, args).output
    assert "completeness: lower-bound" in text and "'client'" in text
    out = runner.invoke(main, [*args, "--json"]).output
    data = json.loads(out)
    assert data["completeness"]["unbound_fixtures"] == 1
    reply = replies.impact(data, 50)  # what an MCP agent reads
    assert reply["completeness"]["unbound_fixtures"] == 1
    assert "a fixture the repository does not define" in reply["summary"]
