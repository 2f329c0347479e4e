"""Incremental indexing: after any edit, the maintained graph equals a full rebuild."""

from __future__ import annotations

import os
import shutil
import textwrap
import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import index_dump
from codeimpact.indexer.build import analyze
from codeimpact.indexer.config import IndexConfig, RunOptions
from codeimpact.query.index import Index
from conftest import write_files


def run(repo: Path, force: bool = False):
    return analyze(repo, IndexConfig(), RunOptions(workers=1, force=force))


def dump(repo: Path, with_answers: bool = True) -> dict:
    """Everything users query from the index (tests/index_dump.py), keyed by uid."""
    return index_dump.dump(repo, with_answers)


def assert_same_as_full(repo: Path, tmp_path: Path, with_answers: bool = True) -> None:
    fresh = tmp_path / f"fresh-{len(list(tmp_path.iterdir()))}"
    shutil.copytree(repo, fresh, ignore=shutil.ignore_patterns(".codeimpact", ".git"))
    run(fresh, force=True)
    diff = index_dump.first_difference(dump(repo, with_answers), dump(fresh, with_answers))
    shutil.rmtree(fresh)
    assert diff is None, f"incremental != full: {diff}"


BASE = {
    "pkg/__init__.py": "from .core import helper\n",
    "pkg/core.py": """
        def helper(x):
            return x + 1

        class Base:
            def run(self):
                return self.step()

            def step(self):
                return helper(1)
        """,
    "pkg/app.py": """
        from pkg.core import Base, helper
        from pkg import util

        class App(Base):
            def step(self):
                return util.fmt(helper(2))

        def main():
            App().run()
        """,
    "pkg/util.py": """
        def fmt(v):
            return str(v)

        def apply(fn):
            return fn(1)
        """,
    "pkg/flow.py": """
        from pkg.util import apply
        from pkg.core import helper

        def go():
            return apply(helper)
        """,
}


def make(tmp_path: Path, files=BASE) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    write_files(repo, files)
    run(repo)
    return repo


def test_no_change_does_no_work(tmp_path):
    repo = make(tmp_path)
    before = dump(repo)
    report = run(repo)
    assert report.mode == "unchanged" and report.parsed == 0
    assert dump(repo) == before


def test_editing_a_callee_keeps_edges_from_unchanged_callers(tmp_path):
    """The classic bug: re-extracting a callee's file must not drop edges into it."""
    repo = make(tmp_path)
    (repo / "pkg/core.py").write_text(
        "# a new first line moves every definition\n" + (repo / "pkg/core.py").read_text()
    )
    report = run(repo)
    assert report.mode == "incremental" and report.parsed == 1
    # only core.py itself: the edit moved its definitions, it changed no binding, so its
    # users (app.py, flow.py, pkg/__init__.py) keep their edges without being re-resolved
    assert report.resolved == 1
    with Index.open(repo) as index:
        rows = index.cypher(
            "MATCH (a:Symbol)-[:CALLS]->(b:Symbol {uid: $u}) RETURN a.uid",
            {"u": "pkg/core.py::helper"},
        ).rows
    # util.apply calls what flow.go passes it: a value-flow edge owned by flow.py
    assert {r[0] for r in rows} == {
        "pkg/core.py::Base.step",
        "pkg/app.py::App.step",
        "pkg/util.py::apply",
    }
    assert_same_as_full(repo, tmp_path)


def test_each_edit_kind(tmp_path):
    repo = make(tmp_path)
    edits = [
        # rename a function: its callers lose the edge (and count an unresolved call)
        ("pkg/util.py", "def fmt2(v):\n    return str(v)\n"),
        # add it back under the old name in another file, and import it from there
        ("pkg/extra.py", "def fmt(v):\n    return repr(v)\n"),
        ("pkg/app.py", textwrap.dedent(BASE["pkg/app.py"]).replace(
            "from pkg import util", "from pkg import extra as util")),
        # make a file unparsable, then fix it
        ("pkg/core.py", "def helper(x:\n    return\n"),
        ("pkg/core.py", textwrap.dedent(BASE["pkg/core.py"])),
        # a new package marker changes module names below it
        ("pkg/sub/__init__.py", ""),
        ("pkg/sub/leaf.py", "from pkg.core import helper\n\ndef leaf():\n    return helper(3)\n"),
    ]  # fmt: skip
    for path, text in edits:
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
        report = run(repo)
        assert report.mode == "incremental", report.reason
        assert_same_as_full(repo, tmp_path)
    # delete a file, then rename one
    (repo / "pkg/extra.py").unlink()
    assert run(repo).mode == "incremental"
    assert_same_as_full(repo, tmp_path)
    (repo / "pkg/util.py").rename(repo / "pkg/utils.py")
    report = run(repo)
    assert report.changes["renamed"] == 1
    assert_same_as_full(repo, tmp_path)


def test_leaf_edit_re_resolves_only_its_users(tmp_path):
    repo = make(tmp_path)
    (repo / "pkg/util.py").write_text("def fmt(v):\n    return repr(v)\n")
    report = run(repo)
    assert report.mode == "incremental"
    # util.py, app.py (`util`, `fmt`), flow.py (`apply`), and core.py: it calls self.step(),
    # and App.step returns util.fmt(...), so what step() gives may have changed
    assert report.resolved == 4
    assert_same_as_full(repo, tmp_path)


LIB = {
    "pkg/__init__.py": "",
    "pkg/lib.py": """
        class K:
            def m(self):
                return 1

            def n(self):
                return 2

        def mk():
            def inner():
                return K()
            return inner

        def other():
            return 3
        """,
    "pkg/use_mk.py": "from pkg.lib import mk\n\ndef run():\n    return mk()().m()\n",
    "pkg/use_n.py": "from pkg.lib import K\n\ndef run(k: K):\n    return k.n()\n",
    "pkg/use_other.py": "from pkg.lib import other\n\ndef run():\n    return other()\n",
}


def test_a_body_edit_re_resolves_the_users_of_that_definition(tmp_path):
    repo = make(tmp_path, LIB)
    lib = repo / "pkg/lib.py"
    # the closure no longer returns a K: mk()().m() in use_mk.py loses its target, although
    # use_mk.py never names `inner` (it reaches it through mk, which encloses it)
    lib.write_text(lib.read_text().replace("return K()", "return None"))
    report = run(repo)
    assert report.resolved == 2  # lib.py, use_mk.py; not the users of K.n or other
    assert_same_as_full(repo, tmp_path)
    # a method's body: the users of that method, not every user of its class
    lib.write_text(lib.read_text().replace("return 2", "return other()"))
    report = run(repo)
    assert report.resolved == 2  # lib.py, use_n.py
    assert_same_as_full(repo, tmp_path)


def test_a_return_value_that_flows_through_an_unchanged_file(tmp_path):
    """run() calls h().go(); h (unchanged) returns K().m(), and m changes which class it
    returns. run() names neither m nor the classes, yet its target moves from A.go to B.go."""
    files = {
        "pkg/__init__.py": "",
        "pkg/z.py": "class A:\n    def go(self):\n        return 1\n\n"
        "class B:\n    def go(self):\n        return 2\n",
        "pkg/g.py": "from pkg.z import A, B\n\nclass K:\n    def m(self):\n        return A()\n",
        "pkg/h.py": "from pkg.g import K\n\ndef h():\n    k = K()\n    return k.m()\n",
        "pkg/f.py": "from pkg.h import h\n\ndef run():\n    return h().go()\n",
        "pkg/other.py": "from pkg.z import A\n\ndef other():\n    return A()\n",
    }
    repo = make(tmp_path, files)
    g = repo / "pkg/g.py"
    g.write_text(g.read_text().replace("return A()", "return B()"))
    report = run(repo)
    assert report.resolved == 3  # g.py, h.py (uses m), f.py (uses h, which returns m())
    with Index.open(repo) as index:
        rows = index.cypher("MATCH (:Symbol {uid: 'pkg/f.py::run'})-[:CALLS]->(b) RETURN b.uid")
    assert sorted(r[0] for r in rows.rows) == ["pkg/h.py::h", "pkg/z.py::B.go"]
    assert_same_as_full(repo, tmp_path)


def test_a_decorator_change_reaches_callers_of_the_decorated_function(tmp_path):
    """run() calls work(), which is decorated by log in another file: a call of work runs what
    log returns. log starts returning its wrapper; run() names neither log nor the wrapper,
    yet its target moves from work to log.wrapper."""
    files = {
        "pkg/__init__.py": "",
        "pkg/d.py": "def log(f):\n    def wrapper():\n        return f()\n    return f\n",
        "pkg/w.py": "from pkg.d import log\n\n@log\ndef work():\n    return 1\n",
        "pkg/f.py": "from pkg.w import work\n\ndef run():\n    return work()\n",
        "pkg/other.py": "def other():\n    return 2\n",
    }
    repo = make(tmp_path, files)
    d = repo / "pkg/d.py"
    d.write_text(d.read_text().replace("return f\n", "return wrapper\n"))
    report = run(repo)
    assert report.resolved == 3  # d.py, w.py (decorated by log), f.py (calls work)
    with Index.open(repo) as index:
        rows = index.cypher("MATCH (:Symbol {uid: 'pkg/f.py::run'})-[:CALLS]->(b) RETURN b.uid")
    assert sorted(r[0] for r in rows.rows) == ["pkg/d.py::log.wrapper"]
    assert_same_as_full(repo, tmp_path)


def test_value_flow_changes_reach_the_call_sites_that_pass_the_values(tmp_path):
    """main() passes save to Button, which stores it on self; Button.click calls it through
    two files' calls (outer -> inner). The call sites in main own the value-flow edges, so
    edits of the class's methods, of a function a parameter is passed on to, and of what a
    module container holds reach them although main names none of what changed."""
    files = {
        "pkg/__init__.py": "",
        "pkg/b.py": "class Button:\n    def __init__(self, cb):\n        self.cb = cb\n\n"
        "    def click(self):\n        return 1\n",
        "pkg/f.py": "from pkg.g import inner\n\ndef outer(fn):\n    return inner(fn)\n",
        "pkg/g.py": "def inner(fn):\n    return 1\n",
        "pkg/h.py": "HOOKS = {}\n\ndef add(name, f):\n    return f\n\ndef fire(k):\n"
        "    return HOOKS[k]()\n",
        "pkg/main.py": "from pkg.b import Button\nfrom pkg.f import outer\n\ndef save():\n"
        "    return 2\n\ndef main():\n    Button(save)\n    outer(save)\n",
    }
    repo = make(tmp_path, files)

    def callers_of_save():
        with Index.open(repo) as index:
            rows = index.cypher(
                "MATCH (a)-[:CALLS]->(:Symbol {uid: 'pkg/main.py::save'}) RETURN a.uid"
            )
        return sorted(r[0] for r in rows.rows)

    assert callers_of_save() == []
    for path, old, new in (
        ("pkg/b.py", "return 1", "return self.cb()"),
        ("pkg/g.py", "return 1", "return fn()"),
        ("pkg/h.py", "return f\n", "HOOKS[name] = f\n"),
    ):
        p = repo / path
        p.write_text(p.read_text().replace(old, new))
        run(repo)
        assert_same_as_full(repo, tmp_path)
    assert callers_of_save() == ["pkg/b.py::Button.click", "pkg/g.py::inner"]


def test_a_test_module_importing_a_name_imports_the_module_it_runs(tmp_path):
    """`from pkg.options import Group` runs options.py, which calls _set_debug: the test module
    IMPORTS options.py (lang/python/file_edges.py `file_edges`), a test of _set_debug by
    edges (index_dump checks the paths); edits of either, or a new submodule, keep == full."""
    files = {
        "pkg/__init__.py": "def sub():\n    return 0\n",
        "pkg/options.py": "def _set_debug():\n    return 1\n\nDEBUG = _set_debug()\n\n"
        "class Group:\n    pass\n",
        "pkg/plain.py": "def unrelated():\n    return 1\n",
        "tests/test_group.py": "from pkg.options import Group\n\ndef test_group():\n    pass\n",
        "tests/test_plain.py": "from pkg.plain import unrelated\n\ndef test_plain():\n    pass\n",
        "tests/test_sub.py": "from pkg import sub\n\ndef test_sub():\n    assert sub\n",
    }
    repo = make(tmp_path, files)

    def tests_of(uid):
        with Index.open(repo) as index:
            return {t.uid for t in index.impact(uid, include_tests=True, limit=None).tests}

    assert tests_of("pkg/options.py::_set_debug") == {"tests/test_group.py::"}
    assert_same_as_full(repo, tmp_path)
    edits = [
        ("tests/test_plain.py", "from pkg.plain import unrelated",
         "from pkg.plain import unrelated\nfrom pkg.options import Group",
         {"tests/test_group.py::", "tests/test_plain.py::"}),
        ("pkg/sub.py", None, "from pkg.options import _set_debug\n\n_set_debug()\n",
         {"tests/test_group.py::", "tests/test_plain.py::", "tests/test_sub.py::"}),
        ("pkg/options.py", "DEBUG = _set_debug()", "DEBUG = 1", {"tests/test_sub.py::"}),
    ]  # fmt: skip
    for path, old, new, tests in edits:
        text = new if old is None else files[path].replace(old, new)
        write_files(repo, {path: text})
        assert run(repo).mode == "incremental"
        assert tests_of("pkg/options.py::_set_debug") == tests
        assert_same_as_full(repo, tmp_path)


def test_a_conftest_fixture_change_re_resolves_its_tests(tmp_path):
    """test_invoke's `runner` is the conftest fixture of that name: the parameter holds what it
    returns. The fixture starts returning a Runner (the test file names neither Runner nor
    conftest), then the test's runner.invoke() moves to Runner.invoke; a fixture added to a
    conftest reaches a test that only requests it."""
    files = {
        "pkg/__init__.py": "",
        "pkg/r.py": "class Runner:\n    def invoke(self):\n        return 1\n",
        "tests/conftest.py": "import pytest\nfrom pkg.r import Runner\n\n"
        "@pytest.fixture\ndef runner():\n    return None\n",
        "tests/test_a.py": "def test_invoke(runner):\n    runner.invoke()\n",
        "tests/test_b.py": "def test_env(env):\n    pass\n",
        "pkg/far.py": "def far():\n    return 1\n",
    }
    repo = make(tmp_path, files)
    conftest = repo / "tests/conftest.py"
    conftest.write_text(
        conftest.read_text().replace("return None", "return Runner()")
        + "\n\n@pytest.fixture\ndef env():\n    return 2\n"
    )
    report = run(repo)
    assert report.resolved == 3  # conftest.py, test_a.py (reads runner), test_b.py (env)
    with Index.open(repo) as index:
        rows = index.cypher("MATCH (a:Symbol)-[c:CALLS]->(b) WHERE a.uid STARTS WITH "
                            "'tests/test_' RETURN a.uid, b.uid, c.reason").rows  # fmt: skip
    assert sorted(map(tuple, rows)) == [
        ("tests/test_a.py::test_invoke", "pkg/r.py::Runner.invoke", "fixture"),
        ("tests/test_a.py::test_invoke", "tests/conftest.py::runner", "fixture"),
        ("tests/test_b.py::test_env", "tests/conftest.py::env", "fixture"),
    ]
    assert_same_as_full(repo, tmp_path)


def test_an_override_a_library_base_calls_back_reaches_callers_that_never_name_it(tmp_path):
    """client.get() on a subclass of werkzeug's Client runs the subclass's open() (the
    entry-point table: Client.get calls self.open). Adding open() to the subclass re-resolves
    the test, which names neither the subclass nor open."""
    files = {
        "pkg/__init__.py": "",
        "pkg/web.py": "from werkzeug.test import Client\n\nclass AppClient(Client):\n"
        "    pass\n\ndef make():\n    return AppClient(None)\n",
        "tests/test_web.py": "from pkg.web import make\n\ndef test_get():\n    make().get('/')\n",
        "pkg/far.py": "def far():\n    return 1\n",
    }
    repo = make(tmp_path, files)
    web = repo / "pkg/web.py"
    web.write_text(
        web.read_text().replace("    pass", "    def open(self, *args):\n        return 1")
    )
    report = run(repo)
    assert report.resolved == 2  # web.py and the test that gets an AppClient from make()
    with Index.open(repo) as index:
        rows = index.cypher("MATCH (a:Symbol)-[c:CALLS]->(b:Symbol) WHERE a.uid = "
                            "'tests/test_web.py::test_get' RETURN b.uid, c.reason").rows  # fmt: skip
    assert ("pkg/web.py::AppClient.open", "entry-point") in set(map(tuple, rows))
    assert_same_as_full(repo, tmp_path)


def test_fixtures_a_test_never_names_are_re_resolved(tmp_path):
    """Tests reach fixtures by names no expression of theirs writes: an autouse fixture added
    to the conftest above (test_a requests nothing), a string in `usefixtures`, a fixture
    renamed by `name=` (its function's name stays), a yield fixture whose item changes."""
    files = {
        "pkg/__init__.py": "",
        "pkg/r.py": "class Runner:\n    def invoke(self):\n        return 1\n",
        "tests/conftest.py": "import pytest\nfrom pkg.r import Runner\n\n"
        "@pytest.fixture\ndef env():\n    return 2\n\n"
        "@pytest.fixture\ndef served():\n    yield None\n",
        "tests/test_a.py": "def test_plain():\n    pass\n",
        "tests/test_b.py": "import pytest\n\n@pytest.mark.usefixtures('db')\n"
        "def test_marked():\n    pass\n",
        "tests/test_c.py": "def test_served(served):\n    served.invoke()\n",
        "pkg/far.py": "def far():\n    return 1\n",
    }
    repo = make(tmp_path, files)
    conftest = repo / "tests/conftest.py"
    conftest.write_text(
        conftest.read_text()
        .replace("@pytest.fixture\ndef env", "@pytest.fixture(name='db')\ndef env")
        .replace("yield None", "yield Runner()")
        + "\n\n@pytest.fixture(autouse=True)\ndef clean():\n    pass\n"
    )
    report = run(repo)
    assert report.resolved == 4  # conftest.py and the three tests, not pkg/
    with Index.open(repo) as index:
        rows = index.cypher("MATCH (a:Symbol)-[c:CALLS]->(b) WHERE a.uid STARTS WITH "
                            "'tests/test_' AND c.reason = 'fixture' "
                            "RETURN a.uid, b.uid, c.reason").rows  # fmt: skip
    assert sorted(map(tuple, rows)) == [
        ("tests/test_a.py::test_plain", "tests/conftest.py::clean", "fixture"),
        ("tests/test_b.py::test_marked", "tests/conftest.py::clean", "fixture"),
        ("tests/test_b.py::test_marked", "tests/conftest.py::env", "fixture"),
        ("tests/test_c.py::test_served", "pkg/r.py::Runner.invoke", "fixture"),
        ("tests/test_c.py::test_served", "tests/conftest.py::clean", "fixture"),
        ("tests/test_c.py::test_served", "tests/conftest.py::served", "fixture"),
    ]
    assert_same_as_full(repo, tmp_path)
    # autouse switched off: the tests lose the edge, though none of them names `clean`
    conftest.write_text(conftest.read_text().replace("(autouse=True)", "(autouse=False)"))
    run(repo)
    assert_same_as_full(repo, tmp_path)


def test_a_class_hierarchy_change_reaches_callers_that_never_name_the_base(tmp_path):
    files = {
        "pkg/__init__.py": "",
        "pkg/base.py": "class Base:\n    pass\n",
        "pkg/child.py": "from pkg.base import Base\n\nclass Child(Base):\n    pass\n",
        "pkg/use.py": "from pkg.child import Child\n\ndef make():\n    return Child()\n",
        "pkg/far.py": "def far():\n    return 1\n",
    }
    repo = make(tmp_path, files)
    base = repo / "pkg/base.py"
    # Child() now runs Base.__init__: use.py names neither Base nor __init__
    base.write_text("class Base:\n    def __init__(self):\n        pass\n")
    report = run(repo)
    assert report.resolved == 3  # base.py, child.py (Base), use.py (Child); not far.py
    with Index.open(repo) as index:
        rows = index.cypher("MATCH (:Symbol {uid: 'pkg/use.py::make'})-[c:CALLS]->(b) "
                            "RETURN b.uid, c.reason").rows  # fmt: skip
    assert sorted(map(tuple, rows)) == [
        ("pkg/base.py::Base.__init__", "constructor"),
        ("pkg/child.py::Child", "import"),
    ]
    assert_same_as_full(repo, tmp_path)
    # a new class with no bases and no subclasses reaches nothing else
    (repo / "pkg/far.py").write_text("def far():\n    return 1\n\nclass Alone:\n    pass\n")
    assert run(repo).resolved == 1
    assert_same_as_full(repo, tmp_path)


def test_a_lost_facts_cache_loses_no_file(tmp_path):
    """The scan takes unchanged files from the previous run without reading them; when their
    facts are not in the cache (a `--force` run killed before it saved its cache, say),
    they are read and extracted again, not left out of the graph."""
    repo = tmp_path / "repo"
    repo.mkdir()
    write_files(repo, BASE)
    old = time.time() - 60  # settled files: the scan will not read them again
    for f in repo.rglob("*.py"):
        os.utime(f, (old, old))
    run(repo)
    shutil.rmtree(repo / ".codeimpact" / "facts")
    (repo / "pkg/util.py").write_text("def fmt(v):\n    return repr(v)\n")
    report = run(repo)
    assert report.mode == "full" and report.resolved == len(BASE)
    assert_same_as_full(repo, tmp_path)


def _symbol_languages(repo: Path) -> dict[str, set[str]]:
    with Index.open(repo) as index:
        rows = index.cypher("MATCH (s:Symbol) WHERE s.file <> '' RETURN s.file, s.language").rows
    out: dict[str, set[str]] = {}
    for path, language in rows:
        out.setdefault(path, set()).add(language)
    return out


def test_the_same_bytes_in_two_languages_keep_their_own_facts(tmp_path):
    """Facts are cached by content; extraction reads the language too, so the same bytes in
    another language are other facts: an empty .js beside empty .py files (Django's
    vendor/module.js), a .js with a .d.ts's bytes, an empty .h beside an empty .ts."""
    repo = tmp_path / "repo"
    repo.mkdir()
    write_files(repo, {"pkg/__init__.py": "", "vendor/module.js": "", "types.d.ts": "export {};\n",
                       "types.js": "export {};\n", "empty.ts": "", "empty.h": ""})  # fmt: skip
    run(repo)  # a full build: blobs read back from the cache by their key
    want = {"pkg/__init__.py": {"python"}, "vendor/module.js": {"javascript"},
            "types.d.ts": {"typescript"}, "types.js": {"javascript"}, "empty.ts": {"typescript"},
            "empty.h": {"c"}}  # fmt: skip
    assert _symbol_languages(repo) == want
    # an incremental run takes a new file's facts from the warm cache
    write_files(repo, {"other/empty.js": "", "other/empty.py": ""})
    assert run(repo).mode == "incremental"
    assert _symbol_languages(repo) == want | {"other/empty.js": {"javascript"},
                                              "other/empty.py": {"python"}}  # fmt: skip
    assert_same_as_full(repo, tmp_path)


def test_large_change_takes_the_full_path(tmp_path):
    repo = make(tmp_path)
    for path in ("pkg/core.py", "pkg/app.py"):
        (repo / path).write_text((repo / path).read_text() + "\n# touched\n")
    report = run(repo)
    assert report.mode == "full" and "files changed" in report.reason
    assert_same_as_full(repo, tmp_path)


# ---------------------------------------------------------------- property test
MODULES = ["a", "b", "c", "d"]
FUNCS = ["f", "g", "h"]


@st.composite
def module_source(draw, name: str):
    """A module of pkg: imports, functions calling each other, a class with a base."""
    lines = ["from pkg.flow import apply"]
    imported = draw(
        st.lists(st.sampled_from([m for m in MODULES if m != name]), max_size=2, unique=True)
    )
    style = draw(st.sampled_from(["from", "import"]))
    for m in imported:
        if style == "from":
            lines.append(f"from pkg.{m} import {', '.join(FUNCS)}, mk as mk_{m}, K as K_{m}")
        else:
            lines.append(f"import pkg.{m} as {m}_mod")
    funcs = draw(st.lists(st.sampled_from(FUNCS), min_size=1, max_size=3, unique=True))
    for fn in funcs:
        lines.append(f"def {fn}(x=None):")
        body = []
        for _ in range(draw(st.integers(0, 3))):
            target = draw(st.sampled_from(FUNCS))
            if imported and draw(st.booleans()):
                m = draw(st.sampled_from(imported))
                body.append(f"    {target}(x)" if style == "from" else f"    {m}_mod.{target}(x)")
            elif imported and draw(st.booleans()):
                # through a closure another module returns: its body decides the class
                m = draw(st.sampled_from(imported))
                body.append(f"    mk_{m}()().m()" if style == "from" else f"    {m}_mod.mk()().m()")
            elif draw(st.booleans()):
                # value flow: apply() calls what it is given, an edge owned by this file
                body.append(f"    apply({target})")
            else:
                body.append(f"    {target}(x)")
        lines.extend(body or ["    return x"])
    base = f"K_{imported[0]}" if imported and style == "from" and draw(st.booleans()) else "object"
    lines.append(f"class K({base}):")
    lines.append("    def m(self):")
    lines.append(f"        return self.n() or {funcs[0]}()")
    lines.append("    def n(self):")
    lines.append("        return 1")
    lines.append("def mk():")
    lines.append("    def inner():")
    lines.append(f"        return {draw(st.sampled_from(['K()', 'None']))}")
    lines.append("    return inner")
    return "\n".join(lines) + "\n"


@st.composite
def project(draw):
    names = draw(st.lists(st.sampled_from(MODULES), min_size=2, max_size=4, unique=True))
    files = {"pkg/__init__.py": "", "pkg/flow.py": "def apply(fn, x=None):\n    return fn(x)\n"}
    for n in names:
        files[f"pkg/{n}.py"] = draw(module_source(n))
    return files


EDIT_KINDS = ["rewrite", "delete", "add", "break", "rename", "touch", "body", "method",
              "drop-def", "revert"]  # fmt: skip


@st.composite
def edit(draw):
    kind = draw(st.sampled_from(EDIT_KINDS))
    name = draw(st.sampled_from(MODULES))
    return kind, name, draw(module_source(name)), draw(st.integers(0, 7))


def drop_def(text: str, which: int) -> str:
    """The module without one of its top-level functions (the lead's deleted `c`)."""
    lines = text.splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if line.startswith("def ")]
    if not starts:
        return text
    i = starts[which % len(starts)]
    j = i + 1
    while j < len(lines) and lines[j].startswith((" ", "\t")):
        j += 1
    return "".join(lines[:i] + lines[j:])


def apply_edit(repo: Path, history: dict[str, list[str | None]], kind: str, name: str,
               source: str, pick: int) -> None:  # fmt: skip
    """One edit of a module of pkg; `history` holds every content each path has had (None:
    absent), which a revert goes back to (a file returning to cached facts)."""
    path = repo / "pkg" / f"{name}.py"
    if kind == "rewrite" or kind == "add":
        path.write_text(source)
    elif kind == "delete" and path.exists():
        path.unlink()
    elif kind == "break" and path.exists():
        path.write_text(path.read_text() + "\ndef broken(:\n")
    elif kind == "rename" and path.exists():
        path.rename(path.with_name(f"{name}_moved.py"))
    elif kind == "touch" and path.exists():
        path.write_text(path.read_text().replace("return x", "return (x)"))
    elif kind in ("body", "method") and path.exists():
        # one body changes, nothing else: a closure's result, a method's calls
        a, b = {"body": ("return K()", "return None"), "method": ("return 1", "return f()")}[kind]
        text = path.read_text()
        path.write_text(text.replace(a, b) if a in text else text.replace(b, a))
    elif kind == "drop-def" and path.exists():
        path.write_text(drop_def(path.read_text(), pick))
    elif kind == "revert":
        rel = f"pkg/{name}.py"
        seen = history.get(rel) or [None]
        old = seen[pick % len(seen)]
        if old is None:
            path.unlink(missing_ok=True)
        else:
            path.write_text(old)
    for p in sorted(repo.glob("pkg/*.py")):
        rel = f"pkg/{p.name}"
        text = p.read_text()
        if text not in history.setdefault(rel, [None]):
            history[rel].append(text)


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    files=project(),
    steps=st.lists(st.lists(edit(), min_size=1, max_size=3), min_size=1, max_size=3),
)
def test_random_edit_sequences_match_full_rebuild(tmp_path_factory, files, steps):
    """Each step is one to three edits (deletions, reverts to earlier contents, renames,
    function deletions, broken files...) and then an analyze; after each, what users query
    (every table through Cypher, the CSR by uid, the unresolved sites) equals a full
    build's, and after the last, so do impact and context of every symbol."""
    tmp = tmp_path_factory.mktemp("prop")
    repo = tmp / "repo"
    repo.mkdir()
    write_files(repo, files)
    history: dict[str, list[str | None]] = {}
    for p in repo.glob("pkg/*.py"):
        history[f"pkg/{p.name}"] = [None, p.read_text()]
    run(repo)
    for i, edits in enumerate(steps):
        for kind, name, source, pick in edits:
            apply_edit(repo, history, kind, name, source, pick)
        run(repo)
        assert_same_as_full(repo, tmp, with_answers=i == len(steps) - 1)


def test_a_parse_over_the_time_limit_is_recorded_and_the_rest_indexed(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    # big enough to go to a worker process and to take far longer than 50 ms to extract
    big = "".join(f"def f{i}(x):\n    return g(x, {i})\n" for i in range(20000))
    write_files(repo, {"big.py": big, "small.py": "def g(x, i):\n    return x\n"})
    report = analyze(repo, IndexConfig(parse_timeout_ms=50), RunOptions(workers=1))
    assert {"code": "timeout", "path": "big.py", "detail": "parse took over 0.05s"} in (
        report.incomplete
    )
    with Index.open(repo) as index:
        rows = index.cypher("MATCH (f:File) RETURN f.path, f.status ORDER BY f.path").rows
        assert rows == [["big.py", "skipped:timeout"], ["small.py", "ok"]]
        assert index.search("g")[0].uid == "small.py::g"


def test_the_change_plan_tracks_only_values_that_can_flow_to_other_files():
    """Value flow binders: a parameter passed to a plain name or a method of the class is
    followed (the callee's sinks are the caller's), one passed to another receiver's method
    or `self` passed on is not, nor an item stored in a function's own container (Django:
    these made a body edit of Model.delete reach 8,777 names, a full rebuild)."""
    from codeimpact.indexer.lang.python.extract import extract
    from codeimpact.indexer.plan import flow_binders

    source = textwrap.dedent(
        """
        from lib import client, helper, middle

        REGISTRY = {}

        def outer(fn):
            return middle(fn)

        class Cache:
            def set(self, key):
                client.delete(key)
                helper(self)
                self.store(key)

        def collect(row):
            constraints = {}
            constraints[row] = row.definition
            REGISTRY[row] = row.handler
            return 1
        """
    ).encode()
    bound = {(names, name) for names, name in flow_binders(extract(source))}
    assert (("middle",), "outer") in bound
    assert any(name == "set" and "store" in names for names, name in bound)
    assert not any(name == "set" and "delete" in names for names, name in bound)
    assert not any(name == "set" and "helper" in names for names, name in bound)
    assert not any(name == "constraints" for _, name in bound)
    assert any(name == "REGISTRY" and "handler" in names for names, name in bound)


def test_flow_binders_read_what_other_files_can_rebind():
    """A binder reads the names whose rebinding elsewhere can change its value, and no
    other (Django: a body edit of Model.delete chained the plan to 8,044 names, a full
    rebuild): a local's or a parameter's name no (its bindings' and annotation's names
    are read instead; a test's parameter may be a fixture), a name the file never binds
    (a builtin, a local assigned no fact), a literal dict key, the word of a value's form
    (`lit:`, `iter:`); a store into a member (`f.flag = True`, bound to no name) and a
    comprehension's variable (`x$<offset>`) bind nothing another file reaches. Items stored
    into a returned local by `x[k] = v` are read, a member by its name."""
    from codeimpact.indexer.lang.python.extract import extract
    from codeimpact.indexer.plan import flow_binders

    source = textwrap.dedent(
        """
        from lib import load, rows, save, Store

        class Pairs:
            def pair(self, data):
                found = [load]
                found[1] = save
                label = "DELETE " + data
                return found, label, data

            def each(self, store: Store):
                for row in rows:
                    return row.item, store

        def test_it(client):
            return client

        TABLE = {"delete": load}
        run.alters_data = True
        NAMES = [n for n in names]
        """
    ).encode()
    bound = flow_binders(extract(source))
    reads = {name: set(names) for names, name in bound}
    assert reads["pair"] == {"load", "save"}  # (a method's parameter; a test helper's is read)
    assert reads["each"] == {"rows", "item", "Store"}
    assert reads["test_it"] == {"client"}
    assert reads["TABLE"] == {"load"}
    assert all("$" not in name and name for _, name in bound)


def test_flow_binders_read_returned_and_iterated_literals_in_their_own_scope():
    """`return f, g` returns the local `ret$0`, `for h in (a, b)` iterates `it$N`: a
    function's binder reads their items' names (a caller of it reaches them), never the
    local's name or a part of it (`ret`: every function returning a literal would read one
    name), and no binder binds them; a method returning a literal after reading `self.x`
    hands out no item of x (registries.py)."""
    from codeimpact.indexer.lang.python.extract import extract
    from codeimpact.indexer.plan import flow_binders

    source = textwrap.dedent(
        """
        from lib import load, one, save, three, two

        def make():
            return load, {"go": save}

        def first():
            for h in (one, two):
                return h

        for k in [three]:
            LAST = k

        class Collector:
            def delete(self):
                if self.data:
                    return len(self.data), {}
        """
    ).encode()
    bound = flow_binders(extract(source))
    # (a returned literal is no local handed out: `delete` is no registry getter of data)
    assert (("delete",), "data") not in bound
    reads = {name: set(names) for names, name in bound}
    assert {"load", "save"} <= reads["make"]
    assert {"one", "two"} <= reads["first"]
    assert "three" in reads["k"]
    assert not any({"ret", "it", "lit"} & set(names) for names, _ in bound)
    assert all("$" not in name and name for _, name in bound)
