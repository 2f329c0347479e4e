"""context, deps, trace and cycles on a real index."""

from __future__ import annotations

import pytest

from codeimpact.query.index import Index
from conftest import git, write_files

FILES = {
    "zoo/__init__.py": "",
    "zoo/base.py": '''
        class Animal:
            """An animal."""

            def speak(self):
                return "..."

            def greet(self):
                return self.speak() + "!"
        ''',
    "zoo/dog.py": """
        from zoo.base import Animal


        class Dog(Animal):
            def speak(self):
                return "woof"


        def make():
            return Dog()
        """,
    # a <-> b at import time; lazy -> a only when f() runs (a deferred import)
    "zoo/a.py": """
        from zoo.b import B
        from zoo.lazy import f


        class A:
            pass
        """,
    "zoo/b.py": """
        from zoo.a import A
        from zoo.typed import T


        class B:
            pass
        """,
    # typed -> b only for type checkers: never run
    "zoo/typed.py": """
        import typing

        if typing.TYPE_CHECKING:
            from zoo.b import B


        class T:
            pass
        """,
    "zoo/lazy.py": """
        def f():
            from zoo.a import A

            return A
        """,
    "tests/test_dog.py": """
        from zoo.dog import make


        def test_make():
            assert make().speak() == "woof"
        """,
}


def build(root):
    from codeimpact.indexer.build import analyze
    from codeimpact.indexer.config import IndexConfig, RunOptions

    root.mkdir()
    write_files(root, FILES)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    analyze(root, IndexConfig(), RunOptions(workers=1))
    return root


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    return build(tmp_path_factory.mktemp("context") / "zoo")


@pytest.fixture(scope="module")
def index(repo):
    with Index.open(repo) as ix:
        yield ix


def uids(items):
    return [i.uid for i in items]


def test_context_of_a_method(index):
    c = index.context("Animal.greet")
    assert c.target.uid == "zoo/base.py::Animal.greet"
    d = c.definition
    assert (d.start_line, d.end_line, d.source_status, d.truncated) == (7, 8, "ok", False)
    assert d.source == ["    def greet(self):", '        return self.speak() + "!"']
    assert d.signature == "def greet(self)"
    assert c.container.uid == "zoo/base.py::Animal"
    assert c.members == [] and c.callers == []
    assert [(n.uid, n.confidence, n.reason, n.at_line) for n in c.callees] == [
        ("zoo/base.py::Animal.speak", 0.9, "self", 8),
        ("zoo/dog.py::Dog.speak", 0.7, "dispatch", 8),
    ]
    assert c.tests == [] and c.test_count == 0


def test_context_of_a_class(index):
    c = index.context("zoo.base.Animal")
    assert c.definition.source[:2] == ["class Animal:", '    """An animal."""']
    assert c.container.uid == "zoo/base.py::"
    assert uids(c.members) == ["zoo/base.py::Animal.speak", "zoo/base.py::Animal.greet"]
    assert uids(c.subclasses) == ["zoo/dog.py::Dog"]
    assert c.subclasses[0].relation == "EXTENDS"
    assert uids(c.imported_by) == ["zoo/dog.py::"]
    assert c.bases == [] and c.imports == []
    # test_make -> make -> Dog -> (EXTENDS) Animal; and test_make -> Dog.speak (a subclass method)
    assert [(t.uid, t.depth) for t in c.tests] == [("tests/test_dog.py::test_make", 3)]

    dog = index.context("Dog")
    assert uids(dog.bases) == ["zoo/base.py::Animal"]
    assert uids(dog.callers) == ["zoo/dog.py::make"]
    assert uids(dog.imports) == ["zoo/base.py::Animal"]  # what its module imports
    # test_make calls Dog.speak, a member of Dog, directly
    assert [(t.uid, t.depth) for t in dog.tests] == [("tests/test_dog.py::test_make", 1)]


def test_context_limit_and_module_target(index, repo):
    c = index.context("zoo/base.py", limit=1)
    assert c.target.kind == "module"
    assert uids(c.members) == ["zoo/base.py::Animal"]
    assert c.definition.source[0] == "class Animal:"
    # every cut list keeps its complete length beside it, and the text says "N of M"
    callees = index.context("Animal.greet", limit=1)
    assert (len(callees.callees), callees.callees_total) == (1, 2)
    animal = index.context("zoo.base.Animal", limit=1)
    assert (uids(animal.members), animal.members_total) == (["zoo/base.py::Animal.speak"], 2)
    assert callees.callers_total == 0
    from click.testing import CliRunner

    from codeimpact.cli import main

    out = CliRunner().invoke(main, ["context", "Animal.greet", "--repo", str(repo), "--limit", "1"])
    assert "callees (2)" in out.output and "... and 1 more (1 of 2 shown" in out.output


def test_context_source_is_read_only_from_inside_the_repository(tmp_path):
    repo = build(tmp_path / "zoo")
    base = repo / "zoo" / "base.py"
    base.write_text(base.read_text().replace('"..."', '"hm"'))
    with Index.open(repo) as ix:
        c = ix.context("Animal.speak")
        assert c.definition.source_status == "changed"
        assert c.definition.source == ["    def speak(self):", '        return "hm"']
    secret = tmp_path / "secret.py"
    secret.write_text("class Animal:\n    password = 1\n")
    base.unlink()
    with Index.open(repo) as ix:
        assert ix.context("Animal").definition.source_status == "missing"
    base.symlink_to(secret)
    with Index.open(repo) as ix:
        d = ix.context("Animal").definition
    assert (d.source_status, d.source) == ("outside-repo", [])


def test_deps_both_ways_by_relation(index):
    d = index.deps("zoo/dog.py::Dog")
    assert d.counts == {
        "upstream": {"total": 1, "CALLS": 1},
        "downstream": {"total": 1, "EXTENDS": 1},
    }
    assert {rel: uids(items) for rel, items in d.upstream.items()} == {
        "CALLS": ["zoo/dog.py::make"],
    }
    assert {rel: uids(items) for rel, items in d.downstream.items()} == {
        "EXTENDS": ["zoo/base.py::Animal"],
    }
    speak = index.deps("zoo/dog.py::Dog.speak")
    assert [
        (n.uid, n.relation, n.confidence, n.reason, n.at_line) for n in speak.upstream["CALLS"]
    ] == [
        ("tests/test_dog.py::test_make", "CALLS", 0.8, "local-type", 5),
        ("zoo/base.py::Animal.greet", "CALLS", 0.7, "dispatch", 8),
    ]
    assert speak.upstream["CALLS"][0].is_test is True
    sure = index.deps("zoo/dog.py::Dog.speak", min_confidence=0.75)
    assert uids(sure.upstream["CALLS"]) == ["tests/test_dog.py::test_make"]
    imports = index.deps("zoo/a.py", relation="IMPORTS")
    assert imports.relations == ["IMPORTS"]
    assert uids(imports.downstream["IMPORTS"]) == ["zoo/b.py::B", "zoo/lazy.py::f"]
    assert uids(imports.upstream.get("IMPORTS", [])) == []


def test_trace_forward_reverse_and_none(index):
    t = index.trace("test_make", "zoo.base.Animal")
    assert (t.found, t.direction, t.length) == (True, "forward", 3)
    assert [(s.uid, s.relation) for s in t.steps] == [
        ("tests/test_dog.py::test_make", "CALLS"),
        ("zoo/dog.py::make", "CALLS"),
        ("zoo/dog.py::Dog", "EXTENDS"),
        ("zoo/base.py::Animal", None),
    ]
    back = index.trace("zoo.base.Animal", "test_make")
    assert (back.found, back.direction) == (True, "reverse")
    assert back.steps[0].uid == "tests/test_dog.py::test_make"
    only_calls = index.trace("test_make", "zoo.base.Animal", relation="CALLS")
    assert only_calls.found is False and only_calls.steps == [] and only_calls.direction is None
    # a class as the source: the path may start at one of its members
    member = index.trace("zoo.base.Animal", "zoo.dog.Dog.speak")
    assert [s.uid for s in member.steps] == ["zoo/base.py::Animal.greet", "zoo/dog.py::Dog.speak"]


def test_import_cycles(index):
    r = index.cycles()
    assert r.count == 1
    (cyc,) = r.cycles
    assert (cyc.size, cyc.modules) == (2, ["zoo/a.py", "zoo/b.py"])
    assert [(s.file, s.line, s.imports) for s in cyc.loop] == [
        ("zoo/a.py", 1, "zoo/b.py"),
        ("zoo/b.py", 1, "zoo/a.py"),
    ]
    deferred = index.cycles(include_deferred=True)  # lazy -> a runs when f() is called
    assert deferred.cycles[0].modules == ["zoo/a.py", "zoo/b.py", "zoo/lazy.py"]
    guarded = index.cycles(include_guarded=True)  # typed -> b only for type checkers
    assert guarded.cycles[0].modules == ["zoo/a.py", "zoo/b.py", "zoo/typed.py"]
    both = index.cycles(include_deferred=True, include_guarded=True)
    assert both.count == 1
    assert both.cycles[0].modules == ["zoo/a.py", "zoo/b.py", "zoo/lazy.py", "zoo/typed.py"]
    assert index.cycles(limit=1).cycles[0].modules == ["zoo/a.py"]


def test_an_import_under_main_that_closes_a_loop_makes_no_cycle(make_repo, index_repo):
    from codeimpact.query.index import Index

    repo = make_repo(
        {
            "app/__init__.py": "",
            "app/cli.py": "from app.core import run\n\n\ndef main():\n    run()\n",
            "app/core.py": (
                "def run():\n    return 1\n\n\n"
                'if __name__ == "__main__":\n    from app.cli import main\n\n    main()\n'
            ),
        }
    )
    index_repo(repo)
    with Index.open(repo) as index:
        assert index.cycles().count == 0
        (cyc,) = index.cycles(include_guarded=True).cycles
        assert cyc.modules == ["app/cli.py", "app/core.py"]
        assert ("app/core.py", 6, "app/cli.py") in [(s.file, s.line, s.imports) for s in cyc.loop]


def test_the_python_extractor_marks_imports_that_do_not_run_on_import():
    from codeimpact.indexer.lang.python.extract import extract

    source = "\n".join(
        [
            "import typing",  # 1
            "if typing.TYPE_CHECKING:",  # 2
            "    from x import A",  # 3
            "",  # 4
            "    # a comment",  # 5
            "    from x import C",  # 6
            "else:",  # 7
            "    from x import B",  # 8
            "try:",  # 9
            "    if TYPE_CHECKING:",  # 10
            "        import y",  # 11
            "except ImportError:",  # 12
            "    import z",  # 13
            "if __name__ == '__main__':",  # 14
            "    import cli",  # 15
            "if __name__ != '__main__':",  # 16
            "    import w",  # 17
            "def f():",  # 18
            "    if TYPE_CHECKING:",  # 19
            "        import v",  # 20 (in a function: deferred anyway)
        ]
    ).encode()
    want = [[3, "type_checking"], [6, "type_checking"], [11, "type_checking"], [15, "main"]]
    for native in (True, False):  # the native walk and the query path agree
        assert extract(source, native=native).extra["guarded_imports"] == want
    assert "guarded_imports" not in extract(b"import os\n").extra
