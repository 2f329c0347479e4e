"""A call site whose resolution recurses too deep (an absurdly long chain) is left unresolved
and the file resolves on: playback.py resolve_calls guards each site it resolves, with or
without arguments (the guards were the frames of resolve.py `resolve_site` and of
`resolve_named`, written out there)."""

from __future__ import annotations

from codeimpact.indexer.lang.python import SPEC
from codeimpact.indexer.lang.python.resolve import PythonProject

SOURCE = """\
def f(x):
    return x


def g():
    return 1


def run(a):
    deep(a)
    f(a)
    g()
"""


def test_a_site_too_deep_is_unresolved_and_the_file_resolves_on(monkeypatch):
    facts = {"pkg/__init__.py": SPEC.extract(b""), "pkg/m.py": SPEC.extract(SOURCE.encode())}
    project = PythonProject(facts, SPEC.is_test_path, {})
    inner = PythonProject.lookup_name

    def deep(self, fi, scope, name, *rest):
        if name == "deep":
            raise RecursionError
        return inner(self, fi, scope, name, *rest)

    monkeypatch.setattr(PythonProject, "lookup_name", deep)
    out = project.resolve_file("pkg/m.py")
    assert ("pkg/m.py::run", "deep", 10) in {tuple(u) for u in out.unresolved}
    calls = {(e.src, e.dst) for e in out.edges if e.rel == "CALLS"}
    assert ("pkg/m.py::run", "pkg/m.py::f") in calls
    assert ("pkg/m.py::run", "pkg/m.py::g") in calls


def test_a_site_without_arguments_too_deep_is_unresolved(monkeypatch):
    facts = {"pkg/__init__.py": SPEC.extract(b""), "pkg/m.py": SPEC.extract(SOURCE.encode())}
    project = PythonProject(facts, SPEC.is_test_path, {})
    inner = PythonProject._record_outcome

    def deep(self, key, fi, call, method, value, last, *rest):
        if last == "g":
            raise RecursionError
        return inner(self, key, fi, call, method, value, last, *rest)

    monkeypatch.setattr(PythonProject, "_record_outcome", deep)
    out = project.resolve_file("pkg/m.py")
    assert ("pkg/m.py::run", "g", 12) in {tuple(u) for u in out.unresolved}
    calls = {(e.src, e.dst) for e in out.edges if e.rel == "CALLS"}
    assert ("pkg/m.py::run", "pkg/m.py::f") in calls


def test_a_played_site_whose_arguments_are_too_deep_is_unresolved(monkeypatch):
    source = "def f(x):\n    return x\n\n\ndef run(a, b):\n    f(a)\n    f(b)\n    f(a)\n"
    facts = {"pkg/__init__.py": SPEC.extract(b""), "pkg/m.py": SPEC.extract(source.encode())}
    project = PythonProject(facts, SPEC.is_test_path, {})
    inner = PythonProject._arguments

    def deep(self, fi, call, *rest):
        if call.args[0][1] == "b":  # (the second site: the outcome of calling f played back)
            raise RecursionError
        return inner(self, fi, call, *rest)

    monkeypatch.setattr(PythonProject, "_arguments", deep)
    out = project.resolve_file("pkg/m.py")
    assert {tuple(u) for u in out.unresolved} == {("pkg/m.py::run", "f", 7)}
    calls = {(e.src, e.dst, e.line) for e in out.edges if e.rel == "CALLS"}
    assert ("pkg/m.py::run", "pkg/m.py::f", 6) in calls
