"""A decorator written again in the same scope (`@override_settings(...)` on each test
method of a class) is evaluated once per file by decorator_edges: what it applies, its
application and its result are the same for each definition, unless the line matters (its
first name bound twice or more in the scope: each definition's own lookup)."""

from __future__ import annotations

from codeimpact.indexer.lang.engine.edges import Edges
from codeimpact.indexer.lang.python import SPEC
from codeimpact.indexer.lang.python.decorators import Decorators
from codeimpact.indexer.lang.python.resolve import PythonProject

SOURCE = """\
def deco(f):
    def wrapper(*a):
        return f(*a)
    return wrapper


def other(f):
    def inner(*a):
        return f(*a)
    return inner


class T:
    @deco
    def a(self):
        pass

    @deco
    def b(self):
        pass


d = deco


@d
def c():
    pass


d = other


@d
def e():
    pass
"""


def test_a_decorator_repeated_in_its_scope_is_applied_once(monkeypatch):
    facts = {"pkg/__init__.py": SPEC.extract(b""), "pkg/m.py": SPEC.extract(SOURCE.encode())}
    project = PythonProject(facts, SPEC.is_test_path, {})
    applied = []
    inner = Decorators._applied

    def spied(self, fi, scope, chain, line, depth):
        applied.append((scope, chain))
        return inner(self, fi, scope, chain, line, depth)

    monkeypatch.setattr(Decorators, "_applied", spied)
    edges = Edges()
    project.decorator_edges(project.files["pkg/m.py"], edges)
    assert applied == [("T", "deco"), ("", "d"), ("", "d")]  # (d: bound twice, per line)
    calls = {(e[1], e[2]) for e in edges if e[0] == "CALLS"}  # (plain tuples: engine/edges.py)
    assert ("pkg/m.py::deco.wrapper", "pkg/m.py::T.a") in calls
    assert ("pkg/m.py::deco.wrapper", "pkg/m.py::T.b") in calls
    assert ("pkg/m.py::deco.wrapper", "pkg/m.py::c") in calls
    assert ("pkg/m.py::other.inner", "pkg/m.py::e") in calls
    assert ("pkg/m.py::deco.wrapper", "pkg/m.py::e") not in calls
