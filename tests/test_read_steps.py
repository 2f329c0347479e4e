"""An attribute read is evaluated up to its chain's last read name only (reads.py
`_read_steps`): a getter runs when a read name is read, so the members after it, and what
the read name's member is, give none; they are not followed (a third of Django's reads
evaluated went on past their last read name)."""

from __future__ import annotations

from codeimpact.indexer.lang.engine.edges import Edges
from codeimpact.indexer.lang.python import SPEC
from codeimpact.indexer.lang.python.reads import _read_steps
from codeimpact.indexer.lang.python.resolve import PythonProject
from codeimpact.indexer.lang.python.values import Values

SOURCE = """\
class Leaf:
    @property
    def tail(self):
        return Leaf()


class Inner:
    def __init__(self):
        self.leaf = Leaf()

    @property
    def inner(self):
        return self


class Outer:
    def __init__(self):
        self.box = Inner()


def use(o: Outer):
    if o.box.inner.leaf.plain.more:
        return 1
    if o.box.inner.leaf.tail.tail.other:
        return 2
    return 0
"""


def test_read_steps_end_at_the_last_read_name():
    names = frozenset(("inner", "tail"))
    assert _read_steps("o.box.inner.leaf.plain.more", names) == (
        ("o", ""), ("box", ""), "inner")  # fmt: skip
    assert _read_steps("o.f().tail()[].x", names) == (("o", ""), ("f", "()"), "tail")
    assert _read_steps("tail.x", names) is None  # (a head is a name, not a member read)
    assert _read_steps("o.box.leaf", names) is None
    assert _read_steps("?.inner", names) is None


def test_reads_after_the_last_read_name_are_not_followed(monkeypatch):
    project = PythonProject({"pkg/__init__.py": SPEC.extract(b""),
                             "pkg/m.py": SPEC.extract(SOURCE.encode())},
                            SPEC.is_test_path, {})  # fmt: skip
    assert {"inner", "tail"} <= project.read_names
    read = []
    getattr_ = Values.getattr

    def spied(self, ent, attr, *rest):
        read.append(attr)
        return getattr_(self, ent, attr, *rest)

    monkeypatch.setattr(Values, "getattr", spied)
    edges = Edges()
    project.read_edges(project.files["pkg/m.py"], edges)
    calls = {(e[1], e[2]) for e in edges if e[0] == "CALLS"}  # (plain tuples: engine/edges.py)
    assert calls == {("pkg/m.py::use", "pkg/m.py::Inner.inner"),
                     ("pkg/m.py::use", "pkg/m.py::Leaf.tail")}  # fmt: skip
    assert "plain" not in read and "more" not in read and "other" not in read
    # (the first tail is followed to the second; the last read name's member is not)
    assert read.count("tail") == 1
