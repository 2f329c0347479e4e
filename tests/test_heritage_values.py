"""A class statement's bases are evaluated once per build: `_bases_info` (a file's summary)
keeps what each base chain gave when no cut was met (values.py `_heritage_values`), and the
file's EXTENDS edges read it (file_edges.py) instead of evaluating the chain again.
An answer met with a cut (a cycle of imports) is not kept: the edges evaluate it."""

from __future__ import annotations

from codeimpact.indexer.lang.python import SPEC
from codeimpact.indexer.lang.python.resolve import PythonProject
from codeimpact.indexer.lang.python.values import Values

FILES = {
    "pkg/__init__.py": "",
    "pkg/base.py": "class Base:\n    pass\n\n\nclass Other(Base):\n    pass\n",
    "pkg/m.py": "from pkg import base\nfrom pkg.base import Base\nfrom pkg.loop import T\n\n\n"
    "class A(Base):\n    pass\n\n\nclass B(base.Other, A):\n    pass\n\n\n"
    "class C(T):\n    pass\n\n\nclass D(dict):\n    pass\n",
    "pkg/loop.py": "from pkg.m import T\n",  # T imported from each other: a cycle
}


def _project() -> PythonProject:
    facts = {p: SPEC.extract(src.encode()) for p, src in FILES.items()}
    return PythonProject(facts, SPEC.is_test_path, {})


def test_the_edges_read_the_bases_the_summary_evaluated(monkeypatch):
    reference = _project()
    reference._heritage_values.clear()  # every base evaluated by the edges
    expected = reference.resolve_file("pkg/m.py")

    project = _project()
    heritage = project.files["pkg/m.py"].facts.heritage
    kept = {h.base for h in heritage if ("pkg/m.py", h) in project._heritage_values}
    assert kept == {"Base", "base.Other", "A", "dict"}  # not T: its lookup met a cut
    evaluated = []
    chain = Values.eval_chain

    def spied(self, fi, scope, text, line, *rest):
        evaluated.append((text, line))
        return chain(self, fi, scope, text, line, *rest)

    monkeypatch.setattr(Values, "eval_chain", spied)
    got = project.resolve_file("pkg/m.py")
    assert got == expected
    bases = {(h.base, h.line) for h in heritage}
    assert [e for e in evaluated if e in bases] == [("T", 14)]
    extends = {(e.src, e.dst) for e in got.edges if e.rel == "EXTENDS"}
    assert ("pkg/m.py::B", "pkg/base.py::Other") in extends
    assert ("pkg/m.py::B", "pkg/m.py::A") in extends


def test_library_bases_read_the_bases_the_summary_evaluated(monkeypatch):
    """The library bases of a class (entry-point rows) read its heritage facts grouped by
    class and the answers its summary kept, not a scan and an evaluation per class."""
    files = {
        **FILES,
        "pkg/web.py": "from werkzeug.test import Client\nfrom pkg.m import A\n\n\n"
        "class AppClient(A, Client):\n    pass\n\n\nclass Sub(AppClient):\n    pass\n",
    }
    facts = {p: SPEC.extract(src.encode()) for p, src in files.items()}
    project = PythonProject(facts, SPEC.is_test_path, {})
    evaluated = []
    chain = Values.eval_chain

    def spied(self, fi, scope, text, line, *rest):
        evaluated.append(text)
        return chain(self, fi, scope, text, line, *rest)

    monkeypatch.setattr(Values, "eval_chain", spied)
    assert project.library_bases("pkg/web.py", "Sub") == ("werkzeug.test.Client",)
    assert "Client" not in evaluated
