"""A class body's bindings to a call (`x = Descriptor()`) are found once per build: a file's
summary (reads.py read_summary) keeps them for its resolution, whose `__set_name__` edges
(implicit.py class_creation_edges) read them instead of every binding of the file again. A
file summarised in an earlier run (no list kept) is scanned as before."""

from __future__ import annotations

from codeimpact.indexer.lang.python import SPEC, implicit
from codeimpact.indexer.lang.python.resolve import PythonProject

FILES = {
    "pkg/__init__.py": "",
    "pkg/m.py": "class Desc:\n    def __set_name__(self, owner, name):\n        pass\n\n\n"
    "class Model:\n    x = Desc()\n    y = len([])\n    z = 1\n\n    def f(self):\n"
    "        w = Desc()\n        return w\n",
}


def _project() -> PythonProject:
    facts = {p: SPEC.extract(src.encode()) for p, src in FILES.items()}
    return PythonProject(facts, SPEC.is_test_path, {})


def test_set_name_edges_read_the_class_calls_the_summary_found(monkeypatch):
    reference = _project()
    reference._class_calls.clear()  # (as for a file summarised in an earlier run)
    expected = reference.resolve_file("pkg/m.py")
    set_name = ("pkg/m.py::", "pkg/m.py::Desc.__set_name__")
    assert set_name in {(e.src, e.dst) for e in expected.edges if e.rel == "CALLS"}

    project = _project()
    kept = project._class_calls["pkg/m.py"]
    assert [(b.name, b.value) for b in kept] == [("x", "Desc"), ("y", "len")]
    scanned = []
    scan = implicit.class_body_calls

    def spied(fi, out):
        scanned.append(fi.path)
        return scan(fi, out)

    monkeypatch.setattr(implicit, "class_body_calls", spied)
    assert project.resolve_file("pkg/m.py") == expected
    assert scanned == []
    assert "pkg/m.py" not in project._class_calls  # (read once: not held past the file)
