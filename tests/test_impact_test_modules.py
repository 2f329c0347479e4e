"""A test module is a test to run only when importing it runs the target: its top-level
code calls into the closure, or it imports a module whose top-level code does. Importing
a name (directly or through a package that re-exports it) runs nothing, nor does handing
the module's own function to a decorator. A test module stands for every test in its
file, so it is listed even when tests inside it are (query/running_modules.py)."""

from __future__ import annotations

import pytest

from codeimpact.indexer.build import analyze
from codeimpact.indexer.config import IndexConfig, RunOptions
from codeimpact.query.index import Index
from conftest import committed_repo

FILES = {
    "pkg/__init__.py": "from pkg.util import helper, used_at_import\n",
    "pkg/util.py": """
        def helper():
            return None


        def used_at_import():
            return 1
        """,
    "pkg/settings.py": """
        from pkg.util import used_at_import

        VALUE = used_at_import()
        """,
    "tests/test_package_import.py": """
        import pkg


        def test_other():
            assert pkg
        """,
    "tests/test_name_import.py": """
        from pkg.util import helper, used_at_import


        def test_nothing():
            assert helper and used_at_import
        """,
    "tests/test_top_level.py": """
        from pkg.util import helper

        RESULT = helper()


        def test_result():
            assert RESULT is None
        """,
    "tests/test_settings.py": """
        from pkg import settings


        def test_value():
            assert settings.VALUE == 1
        """,
    "tests/test_calls.py": """
        import pkg


        def test_call():
            assert pkg.helper() is None
        """,
    "tests/test_both.py": """
        from pkg.util import helper

        RESULT = helper()


        def test_direct():
            assert helper() is None


        def test_other():
            assert RESULT is None
        """,
    "pkg/marks.py": """
        def wrap(f):
            def inner(*args):
                return f(*args)

            return inner


        def checked():
            return True
        """,
    "tests/test_wrapped.py": """
        from pkg.marks import checked, wrap


        @wrap
        def test_wrapped():
            assert checked()


        def test_plain():
            assert True
        """,
}


def _opened(tmp_path_factory, name: str, files: dict):
    """An index of `files` committed to a new repository, open for the module's tests."""
    root = committed_repo(tmp_path_factory.mktemp(name) / "repo", files)
    analyze(root, IndexConfig(), RunOptions(workers=1))
    with Index.open(root) as ix:
        yield ix


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    yield from _opened(tmp_path_factory, "test-modules", FILES)


def selected(index, target):
    return {t.uid for t in index.impact(target, include_tests=True, limit=None).tests}


def test_modules_that_only_import_the_name_are_not_tests_of_it(index):
    # test_package_import.py and test_name_import.py import helper (through pkg's
    # re-export, by name) and never run it: their files were listed before
    assert selected(index, "pkg/util.py::helper") == {
        "tests/test_top_level.py::",  # its top-level code calls helper() at import
        "tests/test_calls.py::test_call",
        "tests/test_both.py::",
        "tests/test_both.py::test_direct",
    }


def test_a_module_running_the_target_is_listed_beside_its_tests(index):
    # importing test_both.py runs helper() before any of its tests: test_other runs it
    # too, which listing test_direct alone missed
    assert {"tests/test_both.py::", "tests/test_both.py::test_direct"} <= selected(
        index, "pkg/util.py::helper"
    )


def test_a_module_handing_its_own_test_to_a_decorator_does_not_run_it(index):
    # the module body passes test_wrapped to wrap (a reference), it does not call it
    assert selected(index, "pkg/marks.py::checked") == {"tests/test_wrapped.py::test_wrapped"}


def test_importing_a_module_whose_top_level_runs_the_target_runs_it(index):
    # settings.py calls used_at_import() at import; test_settings.py imports settings
    assert selected(index, "pkg/util.py::used_at_import") == {"tests/test_settings.py::"}
    # a change to a module's top-level code runs in every module importing it
    assert "tests/test_settings.py::" in selected(index, "pkg/settings.py::")


def test_the_tests_list_agrees_with_tests_reaching(index):
    r = index.impact("pkg/util.py::helper", include_tests=True, limit=None)
    assert r.counts.tests == 4
    assert sorted(r.test_files) == [
        "tests/test_both.py",
        "tests/test_calls.py",
        "tests/test_top_level.py",
    ]


# A test importing a module in its body runs the module's top-level code when it runs
# (lang/python/file_edges.py `file_edges`): it is a test of what that code runs, and of
# nothing the module merely imports.
IN_BODY = {
    **{p: FILES[p] for p in ("pkg/__init__.py", "pkg/util.py", "pkg/settings.py")},
    "tests/test_in_body.py": """
        def test_imports_settings():
            from pkg import settings

            assert settings.VALUE == 1


        def test_imports_package():
            import pkg

            assert pkg
        """,
}


@pytest.fixture(scope="module")
def in_body(tmp_path_factory):
    yield from _opened(tmp_path_factory, "in-body", IN_BODY)


def test_a_test_importing_a_running_module_in_its_body_runs_what_its_top_level_runs(in_body):
    got = selected(in_body, "pkg/util.py::used_at_import")
    assert "tests/test_in_body.py::test_imports_settings" in got
    # pkg's __init__.py only imports used_at_import: importing pkg runs nothing of it
    assert "tests/test_in_body.py::test_imports_package" not in got


def test_a_test_importing_a_module_that_only_imports_the_target_is_no_test_of_it(in_body):
    # pkg's __init__.py imports helper by name, so pkg is upstream of helper through that
    # import: the tests' in-body imports of pkg and of settings run nothing of it
    assert selected(in_body, "pkg/util.py::helper") == set()


# Importing a name of a module runs the module's top-level code: a test module doing so
# IMPORTS that module (lang/python/file_edges.py `file_edges`), so it is a test of what
# that code runs (the callback it hands to click at module level, run by every command
# using the option), with a path made of graph edges.
NAMES = {
    "pkg/__init__.py": "",
    "pkg/options.py": """
        import click


        def _set_debug(ctx, param, value):
            return value


        debug_option = click.Option(["--debug"], callback=_set_debug)


        class Group(click.Group):
            def __init__(self):
                super().__init__(params=[debug_option])
        """,
    "pkg/app.py": """
        from pkg import options


        class App:
            group = options
        """,
    "pkg/plain.py": """
        def unrelated():
            return 1
        """,
    "tests/test_group.py": """
        from pkg.options import Group


        def test_group():
            assert Group().main(["--debug"], standalone_mode=False) is None
        """,
    "tests/test_app.py": """
        from pkg.app import App


        def test_app():
            assert App.group
        """,
    "tests/test_plain.py": """
        from pkg.plain import unrelated


        def test_plain():
            assert unrelated() == 1
        """,
}


@pytest.fixture(scope="module")
def names(tmp_path_factory):
    yield from _opened(tmp_path_factory, "names", NAMES)


def test_a_test_module_importing_a_name_of_a_module_runs_what_its_top_level_runs(names):
    r = names.impact("pkg/options.py::_set_debug", include_tests=True, limit=None)
    got = {t.uid: t for t in r.tests}
    hit = got["tests/test_group.py::"]
    assert hit.path == ["tests/test_group.py::", "pkg/options.py::", "pkg/options.py::_set_debug"]
    assert hit.depth == 2
    # `from pkg.app import App` runs pkg/app.py, which imports options: a test module is
    # listed by a name import as by `import pkg.app`; test_plain's import of a module that
    # runs nothing of it is not
    assert set(got) == {"tests/test_group.py::", "tests/test_app.py::"}
    assert got["tests/test_app.py::"].path[:3] == [
        "tests/test_app.py::", "pkg/app.py::", "pkg/options.py::"
    ]  # fmt: skip
