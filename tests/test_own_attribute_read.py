"""`self.x = self.x or default` in a method of a class reads the attribute it sets on an
instance of that class: looking up the class's instance attribute x passes such a binding
over (python/values.py `_reads_own_attr`) instead of meeting its own lookup again (a
cycle, whose cut left every lookup above it unkept and made again at each ask). Over real
parses: the same value found, and now kept in the memo."""

from __future__ import annotations

from codeimpact.indexer.lang.python import SPEC
from codeimpact.indexer.lang.python.resolve import PythonProject

FILES = {
    "pkg/__init__.py": "",
    "pkg/tokens.py": """\
class Hasher:
    def digest(self):
        return 1


class Generator:
    def __init__(self):
        self.algorithm = self.algorithm or "sha256"

    def setup(self):
        self.algorithm = Hasher()

    def make(self):
        return self.algorithm.digest()
""",
    "pkg/use.py": """\
from pkg.tokens import Generator


def run(g: Generator):
    return g.algorithm.digest()
""",
}
KEY = ("instance member", "pkg/tokens.py", "Generator", "algorithm")


def _project() -> PythonProject:
    facts = {p: SPEC.extract(src.encode()) for p, src in FILES.items()}
    return PythonProject(facts, SPEC.is_test_path, {})


def _calls(rf) -> set:
    return {(e.src, e.dst) for e in rf.edges if e.rel == "CALLS"}


def test_the_binding_reading_its_own_attribute_is_passed_over_and_the_member_kept():
    project = _project()
    use = project.resolve_file("pkg/use.py")
    assert ("pkg/use.py::run", "pkg/tokens.py::Hasher.digest") in _calls(use)
    # the instance attribute was looked up with no cycle met: kept for the run
    assert project.memo.table.get(KEY) == (("inst", "pkg/tokens.py", "Hasher", True),
                                           "attribute", "local-type")  # fmt: skip
    tokens = project.resolve_file("pkg/tokens.py")
    assert ("pkg/tokens.py::Generator.make", "pkg/tokens.py::Hasher.digest") in _calls(tokens)


def test_the_same_edges_whichever_file_is_resolved_first():
    one, two = _project(), _project()
    a = [one.resolve_file(p) for p in FILES]
    b = [two.resolve_file(p) for p in reversed(FILES)][::-1]
    assert a == b
