"""`super().m()` in a class reaches, per subclass, the first m after the class in that
subclass's MRO (python/hierarchy.py `super_members`), read from the class's distinct MRO
tails (`_super_tails`): the same definitions, in the same order, as walking every
subclass's MRO, over real parses."""

from __future__ import annotations

from codeimpact.indexer.lang.python import SPEC
from codeimpact.indexer.lang.python.resolve import PythonProject

SOURCE = """\
class Base:
    def m(self):
        return 1


class A(Base):
    def m(self):
        return super().m()


class B(Base):
    def m(self):
        return 2


class C(A, B):
    pass


class D(A):
    pass


class E(C):
    def m(self):
        return 3


class F(D):
    pass
"""


def _project() -> PythonProject:
    return PythonProject({"p.py": SPEC.extract(SOURCE.encode())}, SPEC.is_test_path, {})


def _walked(project: PythonProject, path: str, cls: str, name: str) -> list:
    """Every subclass's MRO walked (what super_members did before it read the tails)."""
    found = []
    for sub in project.descendants(path, cls):
        order = project.mro(*sub)
        if (path, cls) in order:
            for p, c in order[order.index((path, cls)) + 1 :]:
                m = project.files[p].members.get(c, {}).get(name)
                if m is not None:
                    if (p, m) not in found:
                        found.append((p, m))
                    break
    return found


def test_super_reaches_the_next_method_of_each_subclass_mro():
    project = _project()
    # C, E: C A B Base -> B.m; D, F: D A Base -> Base.m (sorted subclasses: C D E F)
    assert project.super_members("p.py", "A", "m") == [("p.py", "B.m"), ("p.py", "Base.m")]
    assert project.super_members("p.py", "B", "m") == [("p.py", "Base.m")]  # C's, E's
    assert project.super_members("p.py", "C", "m") == [("p.py", "A.m")]  # E: E C A B Base
    # one tail per distinct MRO after the class: C and E share theirs, D and F theirs
    assert len(project._super_tails("p.py", "A")) == 2


def test_the_tails_give_what_walking_every_subclass_gives():
    project = _project()
    for cls in ("Base", "A", "B", "C", "D", "E", "F"):
        for name in ("m", "n"):
            assert project.super_members("p.py", cls, name) == _walked(project, "p.py", cls, name)
