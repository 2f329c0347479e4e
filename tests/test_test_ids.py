"""Runnable test ids: each language's runner id, the selection `--tests-only` prints, and
pytest collecting exactly what detect-changes hands it, on a real repository."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from codeimpact.cli import main
from codeimpact.indexer import test_ids as ti
from conftest import committed_repo, write_files


def sym(file, local, kind, qn="", scope_kinds=None, bases=None) -> ti.TestSymbol:
    return ti.TestSymbol(file, local, kind, qn, scope_kinds or {}, bases or {})


# ----------------------------------------------------------------------------- per language


def test_pytest_ids_for_functions_classes_nested_classes_and_unittest_cases():
    f = "tests/test_a.py"
    assert ti.pytest_id(sym(f, "test_x", "function")) == ti.RunId(
        "tests/test_a.py::test_x", ("tests", "test_a.py", "test_x"), True, f, expand=True
    )
    # a redefinition (`#2`) is the same node for pytest (the last definition wins)
    assert ti.pytest_id(sym(f, "test_x#2", "function")).run_id == "tests/test_a.py::test_x"
    method = ti.pytest_id(sym(f, "TestC.test_y", "method", scope_kinds={"TestC": "class"}))
    assert (method.run_id, method.exact) == ("tests/test_a.py::TestC::test_y", True)
    nested = sym(
        f,
        "TestOuter.TestInner.test_z",
        "method",
        scope_kinds={"TestOuter": "class", "TestOuter.TestInner": "class"},
    )
    assert ti.pytest_id(nested).run_id == "tests/test_a.py::TestOuter::TestInner::test_z"
    # a unittest case is collected whatever its name; a plain class not named Test* is not
    case = {"Checks": "class"}
    unit = sym(
        f, "Checks.test_v", "method", scope_kinds=case, bases={"Checks": ("unittest.TestCase",)}
    )
    assert ti.pytest_id(unit).run_id == "tests/test_a.py::Checks::test_v"
    plain = ti.pytest_id(sym(f, "Checks.test_v", "method", scope_kinds=case, bases={"Checks": ()}))
    assert (plain.run_id, plain.exact) == ("tests/test_a.py", False)


def test_pytest_ids_of_test_code_that_is_not_a_test():
    f = "tests/test_a.py"
    setup = ti.pytest_id(sym(f, "TestC.setUp", "method", scope_kinds={"TestC": "class"}))
    assert (setup.run_id, setup.exact) == ("tests/test_a.py::TestC", False)
    helper = ti.pytest_id(sym(f, "make_app", "function"))
    assert (helper.run_id, helper.exact) == ("tests/test_a.py", False)
    inner = ti.pytest_id(sym(f, "test_x.inner", "function", scope_kinds={"test_x": "function"}))
    assert (inner.run_id, inner.exact) == ("tests/test_a.py::test_x", False)
    module = ti.pytest_id(sym(f, "", "module"))
    assert (module.run_id, module.exact) == ("tests/test_a.py", False)
    conftest = ti.pytest_id(sym("tests/unit/conftest.py", "client", "function"))
    assert (conftest.run_id, conftest.always, conftest.scope) == ("tests/unit", True, "tests/unit")
    helper_module = ti.pytest_id(sym("tests/helpers.py", "build", "function"))
    assert (helper_module.run_id, helper_module.always) == ("tests", False)
    assert ti.pytest_id(sym("conftest.py", "client", "function")).run_id == "."


def test_go_rust_java_and_typescript_ids():
    assert ti.go_test_id(sym("pkg/db/db_test.go", "TestOpen", "function")).run_id == (
        "go test -run '^TestOpen$' ./pkg/db"
    )
    assert ti.go_test_id(sym("main_test.go", "BenchmarkRun", "function")).run_id == (
        "go test -run '^$' -bench '^BenchmarkRun$' ."
    )
    helper = ti.go_test_id(sym("pkg/db/db_test.go", "newDB", "function"))
    assert (helper.run_id, helper.exact) == ("go test ./pkg/db", False)
    rust = ti.cargo_test_path(
        sym("src/a/mod.rs", "tests.f_works", "function", "mycrate::a::tests::f_works")
    )
    assert (rust.run_id, rust.exact) == ("a::tests::f_works", True)
    assert (
        ti.cargo_test_path(sym("tests/integ.rs", "works", "function", "integ::works")).run_id
        == "works"
    )
    java = ti.junit_id(sym("src/test/java/x/FooTest.java", "FooTest.testBar", "method"))
    assert (java.run_id, java.exact) == ("FooTest#testBar", True)
    assert ti.junit_id(sym("T.java", "Outer.Inner.check", "method")).run_id == "Outer$Inner#check"
    assert ti.junit_id(sym("src/test/java/x/FooTest.java", "", "module")).run_id == "FooTest"
    spec = ti.jest_file_id(sym("src/a.test.ts", "x", "function"))
    assert (spec.run_id, spec.exact) == ("src/a.test.ts", True)
    assert ti.jest_file_id(sym("src/__tests__/util.ts", "", "module")).exact


def test_csharp_ruby_php_kotlin_swift_and_dart_ids():
    cs = ti.run_id_of("csharp", sym("tests/CartTests.cs", "CartTests.Adds", "method",
                                    "Acme.Tests.CartTests.Adds"))  # fmt: skip
    assert (cs.run_id, cs.exact) == (
        'dotnet test --filter "FullyQualifiedName~Acme.Tests.CartTests.Adds"', True)  # fmt: skip
    minitest = ti.run_id_of("ruby", sym("test/cart_test.rb", "CartTest.test_adds", "method"))
    assert (minitest.run_id, minitest.exact) == ("ruby -Itest test/cart_test.rb -n test_adds", True)
    spec = ti.run_id_of("ruby", sym("spec/cart_spec.rb", "", "module"))
    assert (spec.run_id, spec.exact) == ("rspec spec/cart_spec.rb", True)
    php = ti.run_id_of("php", sym("tests/CartTest.php", "CartTest.testAdd", "method"))
    assert php.run_id == "phpunit --filter CartTest::testAdd tests/CartTest.php"
    helper = ti.run_id_of("php", sym("tests/CartTest.php", "CartTest.makeCart", "method"))
    assert (helper.run_id, helper.exact) == ("phpunit tests/CartTest.php", False)
    kt = ti.run_id_of("kotlin", sym("src/test/kotlin/CartTest.kt", "CartTest.adds", "method",
                                    "com.acme.CartTest.adds"))  # fmt: skip
    assert kt.run_id == "gradle test --tests com.acme.CartTest.adds"
    swift = ti.run_id_of("swift", sym("Tests/ShopTests/CartTests.swift", "CartTests.testAdd",
                                      "method"))  # fmt: skip
    assert swift.run_id == "swift test --filter ShopTests.CartTests/testAdd"
    # a package:test block inside main: its groups' and its own descriptions, as a regex
    dart = ti.run_id_of("dart", sym("test/cart_test.dart", "main.Cart.v1_2 adds", "function"))
    assert dart.run_id == "dart test test/cart_test.dart --name '^Cart v1[._]2 adds( |$)'"
    group = ti.run_id_of("dart", sym("test/cart_test.dart", "main.Cart", "function"))
    assert group.key == dart.key[: len(group.key)]  # a group's id runs its tests
    main_ = ti.run_id_of("dart", sym("test/cart_test.dart", "main", "function"))
    assert (main_.run_id, main_.exact) == ("dart test test/cart_test.dart", False)
    assert ti.run_id_of("cpp", sym("tests/a_test.cpp", "f", "function")).run_id == (
        "tests/a_test.cpp")  # fmt: skip


def test_dart_tests_only_names_the_blocks_that_reach_a_change(tmp_path):
    """The fixture package's test blocks, each a `dart test --name` of its descriptions."""
    from codeimpact.indexer.build import analyze
    from codeimpact.indexer.config import IndexConfig, RunOptions
    from lang import harness

    source = Path(__file__).resolve().parent / "lang" / "dart" / "pub_package.dart"
    files = harness.project_files(source)
    root = committed_repo(tmp_path / "shop", files)
    analyze(root, IndexConfig(), RunOptions(workers=1))
    cart = files["lib/src/cart.dart"]
    write_files(root, {"lib/src/cart.dart": cart.replace("_lines.add(l);", "_lines.add(l); // x")})
    assert printed_ids(root, "detect-changes") == [
        "dart test test/cart_test.dart --name '^Cart checkout saves the order( |$)'",
        "dart test test/cart_test.dart --name '^Cart empty order totals 0( |$)'",
    ]


def test_selection_dedupes_drops_held_helpers_and_ids_inside_others():
    f = "tests/test_a.py"
    test = ti.pytest_id(sym(f, "TestC.test_y", "method", scope_kinds={"TestC": "class"}))
    setup = ti.pytest_id(sym(f, "TestC.setUp", "method", scope_kinds={"TestC": "class"}))
    other = ti.pytest_id(sym("tests/test_b.py", "helper", "function"))
    # setUp's class holds a selected test: the test is enough; test_b's helper has no test
    # of its own selected, so its file runs
    assert ti.select_run_ids([test, setup, test, other]) == [
        "tests/test_a.py::TestC::test_y",
        "tests/test_b.py",
    ]
    # with the index's tests known, a container is listed as the tests inside it
    inside = {"tests/test_b.py": [ti.pytest_id(sym("tests/test_b.py", "test_q", "function"))]}
    assert ti.select_run_ids([other], lambda r: inside.get(r.scope, [])) == [
        "tests/test_b.py::test_q"
    ]
    # a folder (conftest) kept as it is runs what is inside it: nothing is listed twice
    conftest = ti.pytest_id(sym("tests/conftest.py", "client", "function"))
    assert ti.select_run_ids([conftest, test, other]) == ["tests"]
    assert ti.select_run_ids([]) == []


def test_a_folder_with_no_test_gives_way_to_the_nearest_one_above_with_some():
    # an app the tests load by name (no call reaches it): its folder collects nothing
    app = ti.pytest_id(sym("tests/apps/web/app.py", "", "module"))
    assert (app.run_id, app.folder) == ("tests/apps/web", True)
    test_q = ti.pytest_id(sym("tests/test_b.py", "test_q", "function"))
    inside = {"tests": [test_q], ".": [test_q]}
    assert ti.select_run_ids([app], lambda r: inside.get(r.scope, [])) == [test_q.run_id]
    # a selected test in the folder above stands for it, as one in its own folder would
    test_r = ti.pytest_id(sym("tests/test_b.py", "test_r", "function"))
    assert ti.select_run_ids([app, test_r], lambda r: inside.get(r.scope, [])) == [test_r.run_id]
    # no test anywhere above: nothing to run (a folder would collect nothing)
    assert ti.select_run_ids([app], lambda r: []) == []
    # a conftest serves only the tests below it: no test there, nothing to run
    conftest = ti.pytest_id(sym("tests/apps/conftest.py", "client", "function"))
    assert ti.select_run_ids([conftest], lambda r: inside.get(r.scope, [])) == []


# ----------------------------------------------------------------------------- a real pytest run

APP = """
from pkg.core import helper


def main():
    return helper(2)


class Service:
    def run(self):
        return helper(3)
"""

CONFTEST = """
import pytest

from pkg.other import value


@pytest.fixture
def answer():
    return value()
"""

TEST_CLASSES = """
import unittest

import pytest

from pkg.app import Service, main


def make():
    return Service()


class TestOuter:
    def test_direct(self):
        assert main() == 3

    class TestInner:
        def test_nested(self):
            assert make().run() == 4

    def helper_method(self):
        return main()


class ServiceCase(unittest.TestCase):
    def setUp(self):
        self.value = main()

    def test_value(self):
        self.assertEqual(self.value, 3)


@pytest.mark.parametrize("n", [1, 2])
def test_param(n):
    assert main() + n > 3


def test_unrelated():
    assert True
"""

FILES = {
    "pkg/__init__.py": "",
    "pkg/core.py": "def helper(x):\n    return x + 1\n",
    "pkg/other.py": "def value():\n    return 42\n",
    "pkg/app.py": APP,
    "tests/conftest.py": CONFTEST,
    "tests/test_fixture.py": "def test_uses_fixture(answer):\n    assert answer == 42\n",
    "tests/test_classes.py": TEST_CLASSES,
    # a test module with only module-level code: pytest imports it (running the check)
    # and collects nothing from it
    "tests/sub/test_module_level.py": "from pkg.core import helper\n\nassert helper(0) == 1\n",
    # an app a test would load by name: no call reaches it, its folder holds no test
    "pkg/loaded.py": "def greet():\n    return 'hi'\n",
    "tests/apps/hello.py": "from pkg.loaded import greet\n\nmessage = greet()\n",
}


def pytest_in(repo, *args: str) -> subprocess.CompletedProcess:
    """A real pytest run in the repository (quiet, no cache written)."""
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=120,
    )


def edited_after_indexing(root, files: dict[str, str], edits: dict[str, str]):
    """A committed repository of `files`, indexed, then `edits` written (not committed)."""
    from codeimpact.indexer.build import analyze
    from codeimpact.indexer.config import IndexConfig, RunOptions

    root = committed_repo(root, files)
    analyze(root, IndexConfig(), RunOptions(workers=1))
    write_files(root, edits)
    return root


def collected(repo, ids: list[str]) -> tuple[int, set[str]]:
    """pytest's exit code and the node ids it collects for `ids`, in the repository."""
    out = pytest_in(repo, "--collect-only", *ids)
    nodes = {line for line in out.stdout.splitlines() if "::" in line and " " not in line}
    return out.returncode, nodes


def printed_ids(repo, *args) -> list[str]:
    res = CliRunner().invoke(main, [*args, "--repo", str(repo), "--tests-only"])
    assert res.exit_code == 0, res.output
    return res.output.splitlines()


@pytest.fixture(scope="module")
def pyrepo(tmp_path_factory):
    from codeimpact.indexer.build import analyze
    from codeimpact.indexer.config import IndexConfig, RunOptions

    root = committed_repo(tmp_path_factory.mktemp("pytest-ids") / "repo", FILES)
    analyze(root, IndexConfig(), RunOptions(workers=1))
    return root


@pytest.mark.parametrize(
    "path, old, new, expected",
    [
        # reached through a helper of the test file: the test that calls the helper
        (
            "pkg/app.py",
            "helper(3)",
            "helper(3) + 0",
            {"tests/test_classes.py::TestOuter::TestInner::test_nested"},
        ),
        # setUp reaches it: its case's tests; helper_method's class already has a test listed
        (
            "pkg/app.py",
            "helper(2)",
            "helper(2) + 0",
            {
                "tests/test_classes.py::ServiceCase::test_value",
                "tests/test_classes.py::TestOuter::test_direct",
                "tests/test_classes.py::test_param",
            },
        ),
        # a conftest fixture reaches it: every test below the conftest may take the fixture
        (
            "pkg/other.py",
            "42",
            "6 * 7",
            {
                "tests/test_classes.py::ServiceCase::test_value",
                "tests/test_classes.py::TestOuter::TestInner::test_nested",
                "tests/test_classes.py::TestOuter::test_direct",
                "tests/test_classes.py::test_param",
                "tests/test_classes.py::test_unrelated",
                "tests/test_fixture.py::test_uses_fixture",
            },
        ),
        # only an app under tests/ reaches it: the tests of the nearest folder with some
        (
            "pkg/loaded.py",
            "'hi'",
            "'hello'",
            {
                "tests/test_classes.py::ServiceCase::test_value",
                "tests/test_classes.py::TestOuter::TestInner::test_nested",
                "tests/test_classes.py::TestOuter::test_direct",
                "tests/test_classes.py::test_param",
                "tests/test_classes.py::test_unrelated",
                "tests/test_fixture.py::test_uses_fixture",
            },
        ),
        # the module-level test module is listed as its path
        (
            "pkg/core.py",
            "x + 1",
            "1 + x",
            {
                "tests/sub/test_module_level.py",
                "tests/test_classes.py::ServiceCase::test_value",
                "tests/test_classes.py::TestOuter::TestInner::test_nested",
                "tests/test_classes.py::TestOuter::test_direct",
                "tests/test_classes.py::test_param",
            },
        ),
    ],
)
def test_pytest_collects_exactly_what_tests_only_prints(pyrepo, path, old, new, expected):
    text = FILES[path]
    write_files(pyrepo, {path: text.replace(old, new)})
    try:
        printed = printed_ids(pyrepo, "detect-changes")
    finally:
        write_files(pyrepo, {path: text})
    assert printed == sorted(set(printed)) and set(printed) == expected
    code, nodes = collected(pyrepo, printed)
    assert code == 0
    # a parametrised test is collected once per parameter, under its bare id
    assert {re.sub(r"\[.*\]$", "", n) for n in nodes} == {p for p in printed if "::" in p}
    # the module-level module is imported (its check ran) and holds nothing to collect
    assert not any(n.startswith("tests/sub/") for n in nodes)


def test_tests_only_on_blast_radius_and_review_and_when_nothing_is_reached(pyrepo):
    assert printed_ids(pyrepo, "blast-radius", "pkg/app.py::Service.run") == [
        "tests/test_classes.py::TestOuter::TestInner::test_nested"
    ]
    # no change: no output at all, exit 0
    assert printed_ids(pyrepo, "detect-changes") == []
    res = CliRunner().invoke(
        main, ["detect-changes", "--repo", str(pyrepo), "--tests-only", "--json"]
    )
    assert res.exit_code == 2 and "choose one" in res.output


def test_every_test_entry_carries_its_run_id(pyrepo):
    res = CliRunner().invoke(main, ["impact", "pkg/app.py::main", "--repo", str(pyrepo), "--json"])
    data = json.loads(res.output)
    by_uid = {t["uid"]: t["run_id"] for t in data["tests"]}
    assert by_uid["tests/test_classes.py::TestOuter.test_direct"] == (
        "tests/test_classes.py::TestOuter::test_direct"
    )
    assert (
        by_uid["tests/test_classes.py::ServiceCase.setUp"] == "tests/test_classes.py::ServiceCase"
    )
    ctx = CliRunner().invoke(main, ["context", "pkg/app.py::main", "--repo", str(pyrepo), "--json"])
    assert all(t["run_id"] for t in json.loads(ctx.output)["tests"])


def test_pytest_conventions_are_read_from_the_projects_configuration(tmp_path):
    assert ti.read_pytest_conventions(tmp_path) == ti.PytestConventions()
    (tmp_path / "setup.cfg").write_text("[tool:pytest]\npython_files = tests.py\n")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\npython_files = ["check_*.py"]\npython_classes = ["Check"]\n'
    )
    # pyproject.toml comes before setup.cfg, as pytest looks for them
    got = ti.read_pytest_conventions(tmp_path)
    assert (got.files, got.classes, got.functions) == (("check_*.py",), ("Check",), ("test",))
    # pytest.ini wins, even empty of these settings
    (tmp_path / "pytest.ini").write_text("[pytest]\naddopts = -q\n")
    assert ti.read_pytest_conventions(tmp_path) == ti.PytestConventions()
    (tmp_path / "pytest.ini").write_text("[pytest]\npython_functions = check_* verify\n")
    assert ti.read_pytest_conventions(tmp_path).functions == ("check_*", "verify")
    (tmp_path / "pytest.ini").write_text("not an ini file [")
    assert ti.read_pytest_conventions(tmp_path) == ti.PytestConventions()


def test_a_projects_pytest_conventions_make_its_ids(tmp_path):
    files = {
        "pytest.ini": "[pytest]\npython_files = checks.py\npython_classes = Suite\n"
        "python_functions = check_\n",
        "pkg/__init__.py": "",
        "pkg/core.py": "def helper(x):\n    return x + 1\n",
        "tests/checks.py": "from pkg.core import helper\n\n\n"
        "class SuiteOfHelper:\n    def check_one(self):\n        assert helper(0) == 1\n\n"
        "    def test_not_collected(self):\n        assert helper(1) == 2\n\n\n"
        "def check_two():\n    assert helper(1) == 2\n",
    }
    edit = {"pkg/core.py": "def helper(x):\n    return 1 + x\n"}
    root = edited_after_indexing(tmp_path / "repo", files, edit)
    printed = printed_ids(root, "detect-changes")
    # test_not_collected is no test under these settings: pytest never runs it
    assert printed == ["tests/checks.py::SuiteOfHelper::check_one", "tests/checks.py::check_two"]
    code, nodes = collected(root, printed)
    assert code == 0 and nodes == set(printed)


def test_a_module_that_may_skip_whole_is_listed_by_its_path(tmp_path):
    # pytest.importorskip at the top: without the package the module is skipped whole, and
    # a node id inside it would stop the run ("found no collectors", exit 4) before any test
    files = {
        "pkg/__init__.py": "",
        "pkg/core.py": "def helper(x):\n    return x + 1\n",
        "tests/test_optional.py": "import pytest\n\nfrom pkg.core import helper\n\n"
        'pytest.importorskip("no_such_package_for_codeimpact")\n\n\n'
        "def test_uses_it():\n    assert helper(0) == 1\n",
        "tests/test_plain.py": "from pkg.core import helper\n\n\n"
        "def test_plain():\n    assert helper(1) == 2\n",
    }
    edit = {"pkg/core.py": "def helper(x):\n    return 1 + x\n"}
    root = edited_after_indexing(tmp_path / "repo", files, edit)
    printed = printed_ids(root, "detect-changes")
    assert printed == ["tests/test_optional.py", "tests/test_plain.py::test_plain"]
    run = pytest_in(root, *printed)
    assert run.returncode == 0 and "1 passed, 1 skipped" in run.stdout, run.stdout
    t = sym("tests/test_optional.py", "test_uses_it", "function")
    assert ti.pytest_id(t).run_id == "tests/test_optional.py::test_uses_it"
    skipping = ti.TestSymbol(t.file, t.local, t.kind, "", module_calls=frozenset({"pytest.skip"}))
    assert (ti.pytest_id(skipping).run_id, ti.pytest_id(skipping).exact) == (t.file, True)
