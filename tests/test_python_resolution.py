"""Python resolution beyond single edges: order independence and hierarchy changes.

The edges of each construct are tests/lang/python/*.py (annotated fixtures, checked by
tests/test_lang_fixtures.py); these tests are about the resolver as a whole.
"""

from __future__ import annotations

# ---------------------------------------------------------------------- determinism
CYCLES = {
    "a.py": """
        from b import y as x
        from b import Loop

        z = x

        class Left(Loop):
            attr = z

            def go(self):
                self.attr()
                x()
                return Loop().run()
        """,
    "b.py": """
        from a import z as y
        from a import Left

        class Loop(Left):
            def run(self):
                return self.go()
        """,
    # a cycle one side of which also has a declared type: whichever side a lookup starts
    # from, both names are a Shape
    "shapes.py": """
        import mirror

        class Shape:
            def area(self):
                pass

        current: Shape = mirror.reflected
        """,
    "mirror.py": """
        import shapes

        reflected = shapes.current
        """,
    "use_mirror.py": """
        from mirror import reflected
        from shapes import current

        def both():
            reflected.area()
            current.area()
        """,
    "c.py": """
        from a import x, Left

        def use(left: Left):
            x()
            left.go()
            for item in left.items:
                item.run()
        """,
}


def test_resolution_does_not_depend_on_order(make_repo):
    """Incremental runs resolve a few files with a fresh project: results must not depend on
    which files were resolved before, cycles (aliases, re-exports, bases) included."""
    from codeimpact.indexer.lang.python.extract import extract
    from codeimpact.indexer.lang.python.paths import is_test_path
    from codeimpact.indexer.lang.python.resolve import PythonProject

    repo = make_repo(CYCLES, git_init=False)
    facts = {p: extract((repo / p).read_bytes()) for p in CYCLES}

    def resolve(order):
        project = PythonProject(facts, is_test_path)
        return {p: project.resolve_file(p) for p in order}

    forward = resolve(sorted(facts))
    backward = resolve(sorted(facts, reverse=True))
    calls = {(e.src, e.dst) for e in forward["use_mirror.py"].edges if e.rel == "CALLS"}
    assert calls == {("use_mirror.py::both", "shapes.py::Shape.area")}
    for p in facts:
        alone = resolve([p])[p]
        assert forward[p].edges == backward[p].edges == alone.edges, p
        assert forward[p].unresolved == backward[p].unresolved == alone.unresolved, p


def test_a_changed_class_hierarchy_is_reported_by_the_names_that_reach_it(make_repo):
    """A base gaining __init__ (or a class changing bases) changes how callers that never name
    it resolve: the project reports the names of the classes whose MRO changed and of their
    methods, which is how an incremental run finds those callers."""
    from codeimpact.indexer.lang.api import Prior
    from codeimpact.indexer.lang.python.extract import extract
    from codeimpact.indexer.lang.python.paths import is_test_path
    from codeimpact.indexer.lang.python.resolve import PythonProject

    files = {
        "base.py": "class Base:\n    pass\n",
        "child.py": "from base import Base\n\nclass Child(Base):\n    def run(self):\n"
        "        pass\n",
        "other.py": "class Other:\n    def go(self):\n        pass\n",
        "use.py": "from child import Child\n\ndef make():\n    return Child()\n",
    }
    before = PythonProject(
        {p: extract(t.encode()) for p, t in files.items()}, is_test_path
    ).summaries()
    assert {p: s[0] for p, s in before.items()} == {
        "base.py": "base",
        "child.py": "child",
        "other.py": "other",
        "use.py": "use",
    }

    def changes(edits: dict[str, str]) -> tuple[set[str], set[str]]:
        facts = {p: extract({**files, **edits}[p].encode()) for p in files}
        project = PythonProject(facts, is_test_path, {}, Prior(before, set(edits)))
        return project.hierarchy_changes(before)

    assert changes({"use.py": "def make():\n    return None\n"}) == (set(), set())
    # Base's implicit members change: Base and its subclass Child (values), their methods
    base = "class Base:\n    def __init__(self):\n        pass\n"
    assert changes({"base.py": base}) == ({"Base", "Child"}, {"__init__", "run"})
    # Child drops its base
    alone = "class Child:\n    def run(self):\n        pass\n"
    assert changes({"child.py": alone}) == ({"Child"}, {"run"})


def test_a_built_project_keeps_the_calls_of_blobs_encoded(make_repo):
    """A full build summarises every file before its resolve host forks (resolve_host.py),
    and a forked resolver copies every page of the host's objects it reads: the facts read
    from blobs hold their calls and references encoded once the project is built, and the
    project resolves from them what it resolves from the extracted facts."""
    from codeimpact.indexer.lang.api import FileFacts
    from codeimpact.indexer.lang.python.extract import extract
    from codeimpact.indexer.lang.python.paths import is_test_path
    from codeimpact.indexer.lang.python.resolve import PythonProject

    repo = make_repo(CYCLES, git_init=False)
    extracted = {p: extract((repo / p).read_bytes()) for p in CYCLES}
    read = {p: FileFacts.from_bytes(f.to_bytes()) for p, f in extracted.items()}
    project = PythonProject(read, is_test_path)
    decoded = [p for p, f in read.items() if f.__dict__["_calls"] or f.__dict__["_references"]]
    assert decoded == []
    assert any(f.calls for f in extracted.values())
    plain = PythonProject(extracted, is_test_path)
    for p in sorted(read):
        got, want = project.resolve_file(p), plain.resolve_file(p)
        assert (got.symbols, got.edges, got.unresolved) == (want.symbols, want.edges,
                                                            want.unresolved), p  # fmt: skip


# Each of the call tables (index.CALL_TABLES) has a reader in another file here: a
# parameter called and passed on (flows), a function returned through functools.wraps
# (pass_through), items appended to a registry (item_adds, param_items, item_calls), a
# fixture's literal arguments (literal_calls), a decorator call passing a class.
CALL_TABLE_READERS = {
    "lib.py": """
        import functools

        def run(cb, x):
            return cb(x)

        def relay(cb):
            return run(cb, 1)

        def logged(f):
            @functools.wraps(f)
            def inner(*a):
                return f(*a)
            return functools.update_wrapper(inner, f)

        class Registry:
            def __init__(self):
                self.hooks = []

            def add(self, hook):
                self.hooks.append(hook)

            def fire(self):
                for hook in self.hooks:
                    hook()
        """,
    "app.py": """
        import pytest
        from lib import Registry, logged, relay

        def work(x):
            return x

        def ping():
            pass

        reg = Registry()
        reg.add(ping)
        wrapped = logged(work)

        def main():
            relay(work)
            wrapped(2)
            reg.fire()

        @pytest.fixture(autouse=True)
        def db():
            return 1
        """,
    "test_app.py": """
        import pytest
        from app import main

        @pytest.mark.usefixtures("db")
        def test_main(db):
            main()
        """,
}


def test_the_call_tables_are_made_when_first_read_and_resolve_the_same(make_repo):
    """A project's build makes no file's call tables (index.CALL_TABLES) and decodes no
    calls: they are made when first read, by the file's own resolution or another's, also
    after `release` (which keeps a blob's calls encoded, or makes the tables of extracted
    facts before it drops their calls). Any order of resolving and releasing gives what the
    project over the extracted facts gives."""
    from dataclasses import replace

    from codeimpact.indexer.lang.api import FileFacts
    from codeimpact.indexer.lang.python.extract import extract
    from codeimpact.indexer.lang.python.paths import is_test_path
    from codeimpact.indexer.lang.python.resolve import PythonProject

    repo = make_repo(CALL_TABLE_READERS, git_init=False)
    extracted = {p: extract((repo / p).read_bytes()) for p in CALL_TABLE_READERS}
    plain = PythonProject(extracted, is_test_path)
    want = {p: plain.resolve_file(p) for p in sorted(extracted)}
    # app.py's resolution reads lib.py's tables (run's parameter called, inner's wraps)
    assert {(e.src, e.dst) for e in want["app.py"].edges} >= {
        ("lib.py::run", "app.py::work"), ("lib.py::logged.inner", "app.py::work")}  # fmt: skip
    for order in (sorted(extracted), sorted(extracted, reverse=True)):
        read = {p: FileFacts.from_bytes(f.to_bytes()) for p, f in extracted.items()}
        project = PythonProject(read, is_test_path)
        assert not any(f.decoded() for f in read.values())
        assert all("_aliases" in dict.get(project.files, p).__dict__ for p in read)
        for p in order:  # lib.py's tables made by app.py's resolution, before or after
            got = project.resolve_file(p)  # lib.py is released
            project.release(p)
            assert (got.symbols, got.edges, got.unresolved) == (
                want[p].symbols, want[p].edges, want[p].unresolved), p  # fmt: skip
    # every other file released before one is resolved: tables read after their file's release
    for make in (replace, lambda f: FileFacts.from_bytes(f.to_bytes())):  # (release sets)
        for p in sorted(extracted):
            project = PythonProject({q: make(f) for q, f in extracted.items()}, is_test_path)
            for q in extracted:
                if q != p:
                    project.release(q)
            assert project.resolve_file(p).edges == want[p].edges, p
