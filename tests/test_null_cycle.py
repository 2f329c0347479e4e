"""Bindings of one name that read that name through a cycle of its bindings hold nothing
(python/names.py `null_cycle`): `path = path.replace(...)` repeated after a value the facts
do not bind (Django's Field.deconstruct), the first looked up before any binding, which
takes the last. Their value is the same wherever the cycle is entered, so it is given
without evaluating the cycle and without its cut, which left every lookup above it unkept
and made again at each ask. Over real parses."""

from __future__ import annotations

from codeimpact.indexer.lang.python import SPEC
from codeimpact.indexer.lang.python.names import null_cycle
from codeimpact.indexer.lang.python.resolve import PythonProject

FILES = {
    "pkg/__init__.py": "",
    "pkg/fields.py": """\
class Field:
    def deconstruct(self):
        path = "%s.%s" % (self.__class__.__module__, self.__class__.__qualname__)
        if path.startswith("pkg.fields.related"):
            path = path.replace("pkg.fields.related", "pkg")
        elif path.startswith("pkg.fields.files"):
            path = path.replace("pkg.fields.files", "pkg")
        return (self.name, path, [], {})

    def other(self, items):
        for item in item.children:
            item.walk()
        text = load()
        text = text.strip()
        return text


def load():
    return ""
""",
    "pkg/sub.py": """\
from pkg.fields import Field


class Sub(Field):
    def deconstruct(self):
        name, path, args, kwargs = super().deconstruct()
        path.upper()
        return name, path, args, kwargs
""",
}


def _project() -> PythonProject:
    facts = {p: SPEC.extract(src.encode()) for p, src in FILES.items()}
    return PythonProject(facts, SPEC.is_test_path, {})


def _bindings(project: PythonProject, scope: str, name: str) -> list:
    fi = project.files["pkg/fields.py"]
    return [c[2] for c in fi.names[scope][name]]


def test_the_cycle_of_bindings_holds_nothing_and_meets_no_cut():
    project = _project()
    paths = _bindings(project, "Field.deconstruct", "path")
    assert len(paths) == 2 and all(null_cycle(project.files["pkg/fields.py"], b) for b in paths)
    # `for item in item.children` reads its own name too; `text = text.strip()` reads the
    # binding before it (a call of a function we follow): no cycle
    fi = project.files["pkg/fields.py"]
    assert null_cycle(fi, _bindings(project, "Field.other", "item")[0])
    assert not any(null_cycle(fi, b) for b in _bindings(project, "Field.other", "text"))
    for path in FILES:
        project.resolve_file(path)
    assert project.memo.cuts == 0  # (each binding of the cycle was a cut before)


def test_the_same_edges_whichever_file_is_resolved_first():
    one, two = _project(), _project()
    a = [one.resolve_file(p) for p in FILES]
    b = [two.resolve_file(p) for p in reversed(FILES)][::-1]
    assert a == b
