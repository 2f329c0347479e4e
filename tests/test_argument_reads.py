"""A dotted argument is evaluated for the getters it runs only when it reads a member whose
reading may run one (playback.py `_arguments`, reads.py `member_names`): a property or a
stored descriptor by its own name (a read name), and also any other class attribute a
class body binds: an alias of one (`coords = tuple` in GEOS's LineString runs the property
`tuple`), in the class read or in a base, aliasing a property of another module's class, a
descriptor whose class inherits `__get__` or that a factory made. Those are no read names
(read_edges keeps its premise), so the file summary lists the class-body aliases
(read_summary); a member no class body binds at all is read without asking its class for a
getter."""

from __future__ import annotations

from codeimpact.indexer.lang.python import SPEC
from codeimpact.indexer.lang.python.reads import Reads
from codeimpact.indexer.lang.python.resolve import PythonProject
from codeimpact.indexer.lang.python.values import Values

GEOM = """\
class Base:
    @property
    def tuple(self):
        return ()

    coords = tuple

    def area(self):
        return 0


class Line(Base):
    pass


class Ring:
    @property
    def shell(self):
        return 1

    exterior = shell


class Desc:
    def __get__(self, obj, owner):
        return 1


class SubDesc(Desc):
    pass


class Holder:
    d = SubDesc()


def make_desc():
    return Desc()


class Made:
    m = make_desc()


def _get_late(self):
    return 1


class Late:
    pass


Late.late = property(_get_late)
"""

OTHER = """\
from pkg.geom import Ring


class Poly:
    import pkg.geom as geometry

    outer = Ring.shell
"""

USE = """\
from pkg.geom import Holder, Late, Line, Made, Ring
from pkg.other import Poly


def show(x):
    return x


def in_base(line: Line):
    show(line.coords)


def in_class(ring: Ring):
    show(ring.exterior)


def of_another_module(poly: Poly):
    show(poly.outer)


def inherited_get(h: Holder):
    show(h.d)


def factory_made(made: Made):
    show(made.m)


def assigned_late(late: Late):
    show(late.late)


def plain(line: Line):
    show(line.plain.more)


def method(line: Line):
    line.area()
    show(line.area)
"""


def _project() -> PythonProject:
    facts = {"pkg/__init__.py": SPEC.extract(b""), "pkg/geom.py": SPEC.extract(GEOM.encode()),
             "pkg/other.py": SPEC.extract(OTHER.encode()),
             "pkg/use.py": SPEC.extract(USE.encode())}  # fmt: skip
    return PythonProject(facts, SPEC.is_test_path, {})


def test_aliases_of_getters_are_member_names_not_read_names():
    project = _project()
    aliases = {"coords", "exterior", "outer", "d", "m"}
    assert not aliases & project.read_names  # (read_edges' premise, unchanged)
    assert aliases <= project.member_names
    assert "plain" not in project.member_names and "late" not in project.member_names


def test_an_argument_reading_an_alias_runs_its_getter(monkeypatch):
    project = _project()
    evaluated: list[str] = []
    eval_chain = Values.eval_chain

    def spied(self, fi, scope, chain, line, depth=0, reads=None):
        if fi.path == "pkg/use.py" and reads is not None:  # (evaluated for its reads)
            evaluated.append(chain)
        return eval_chain(self, fi, scope, chain, line, depth, reads)

    monkeypatch.setattr(Values, "eval_chain", spied)
    out = project.resolve_file("pkg/use.py")
    calls = {(e.src.partition("::")[2], e.dst) for e in out.edges if e.rel == "CALLS"}
    assert ("in_base", "pkg/geom.py::Base.tuple") in calls
    assert ("in_class", "pkg/geom.py::Ring.shell") in calls
    assert ("of_another_module", "pkg/geom.py::Ring.shell") in calls
    assert ("inherited_get", "pkg/geom.py::Desc.__get__") in calls
    # a descriptor a factory made (no class name in the body: no read name) runs too
    assert ("factory_made", "pkg/geom.py::Desc.__get__") in calls
    # a property set on the class outside its body was never found by the resolver (class
    # members are what class bodies bind: values.py class_member; `property(f)` is a
    # builtin's call): no getter edge, with or without the prefilter
    assert not any(src == "assigned_late" and "_get_late" in dst for src, dst in calls)
    # a chain that reads no such member is not evaluated for its reads (value flow
    # evaluates it for its value: show's parameter)
    assert "line.plain.more" not in evaluated
    assert {"line.coords", "ring.exterior", "poly.outer", "h.d", "made.m"} <= set(evaluated)


def test_a_member_no_class_body_binds_is_read_without_looking_for_a_getter(monkeypatch):
    """reads.py `member_names`: a member that only a `def` or nothing binds (a method, an
    attribute set in a method) runs no getter when read, so its class is not asked; an
    import in a class body binds a member too."""
    project = _project()
    assert {"coords", "outer", "d", "geometry"} <= project.member_names
    assert "area" not in project.member_names and "tuple" in project.member_names
    asked: list[str] = []
    class_reads = Reads._class_reads

    def spied(self, path, cls, name, *rest):
        asked.append(name)
        return class_reads(self, path, cls, name, *rest)

    monkeypatch.setattr(Reads, "_class_reads", spied)
    out = project.resolve_file("pkg/use.py")
    calls = {(e.src.partition("::")[2], e.dst) for e in out.edges if e.rel == "CALLS"}
    assert ("method", "pkg/geom.py::Base.area") in calls
    assert ("in_base", "pkg/geom.py::Base.tuple") in calls
    assert "coords" in asked and "area" not in asked
