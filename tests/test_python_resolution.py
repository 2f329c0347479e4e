"""Python resolution, construct by construct: exact edges, confidences and reasons.

Each test indexes a small real repository (real git, real tree-sitter, real Kùzu)
and compares whole edge sets, so a wrong extra edge fails as surely as a missing one.
"""

from __future__ import annotations

from conftest import edges

EXT = "<external>::"


def calls(repo, prefix: str = "") -> set[tuple]:
    return {e for e in edges(repo, "CALLS") if e[0].startswith(prefix)}


# ---------------------------------------------------------------------- scopes
def test_local_enclosing_module_and_builtin_scopes(make_repo, index_repo):
    repo = make_repo(
        {
            "m.py": """
                def helper():
                    return 1

                def outer():
                    def inner():
                        return helper()
                    def helper():
                        return 2
                    inner()
                    len([])
                    return helper()

                def shadow(helper):
                    return helper()

                def local_rebinding():
                    helper = make()
                    return helper()
                """
        }
    )
    report = index_repo(repo)
    assert calls(repo) == {
        # inner sees the enclosing function's helper, not the module's
        ("m.py::outer.inner", "m.py::outer.helper", 1.0, "scope"),
        ("m.py::outer", "m.py::outer.inner", 1.0, "scope"),
        ("m.py::outer", "m.py::outer.helper", 1.0, "scope"),
    }
    # len() is a builtin; helper() on a parameter, make() and a local bound to its
    # unknown result are unresolved, not guessed at the module's helper
    assert report.calls["builtin"] == 1
    assert report.calls["unresolved"] == 3


def test_module_top_level_calls_belong_to_the_module(make_repo, index_repo):
    repo = make_repo(
        {
            "app.py": """
                def setup():
                    pass

                setup()

                class Config:
                    value = setup()

                if __name__ == "__main__":
                    setup()
                """
        }
    )
    index_repo(repo)
    assert calls(repo) == {
        ("app.py::", "app.py::setup", 1.0, "scope"),
        # a call in a class body runs at class creation: it belongs to the class
        ("app.py::Config", "app.py::setup", 1.0, "scope"),
    }


def test_redefinition_binds_the_latest_definition(make_repo, index_repo):
    repo = make_repo(
        {
            "m.py": """
                def f():
                    return 1

                a = f()

                def f():
                    return 2

                def user():
                    return f()
                """
        }
    )
    index_repo(repo)
    assert calls(repo) == {
        ("m.py::", "m.py::f", 1.0, "scope"),  # at module level, before the redefinition
        ("m.py::user", "m.py::f#2", 1.0, "scope"),  # at run time, the module has f#2
    }


# ---------------------------------------------------------------------- imports
IMPORT_REPO = {
    "pkg/__init__.py": """
        from .core import Engine
        from .util import helper as public_helper
        """,
    "pkg/core.py": """
        from . import util
        from .util import helper

        class Engine:
            def start(self):
                helper()
                util.helper()
                return util.other()
        """,
    "pkg/util.py": """
        import os.path
        import json as j

        def helper():
            return os.path.join("a", "b")

        def other():
            return j.dumps({})

        def _private():
            pass
        """,
    "pkg/sub/__init__.py": "",
    "pkg/sub/deep.py": """
        from ..core import Engine as E
        from ..util import *
        from .. import util as u
        import pkg.util
        import pkg.util as pu

        def run():
            E().start()
            helper()
            u.other()
            pkg.util.other()
            pu.helper()
            _private()

        def lazy():
            from pkg import public_helper
            import requests
            public_helper()
            requests.get("x")
        """,
    "main.py": """
        from pkg import Engine

        Engine().start()
        """,
}


def test_imports_edges(make_repo, index_repo):
    repo = make_repo(IMPORT_REPO)
    index_repo(repo)
    assert edges(repo, "IMPORTS") == {
        ("pkg/__init__.py::", "pkg/core.py::Engine"),
        ("pkg/__init__.py::", "pkg/util.py::helper"),
        ("pkg/core.py::", "pkg/util.py::"),
        ("pkg/core.py::", "pkg/util.py::helper"),
        ("pkg/util.py::", EXT + "os.path"),
        ("pkg/util.py::", EXT + "json"),
        ("pkg/sub/deep.py::", "pkg/core.py::Engine"),
        ("pkg/sub/deep.py::", "pkg/util.py::"),  # from ..util import * and import pkg.util
        # imports inside a function still belong to the module
        ("pkg/sub/deep.py::", "pkg/util.py::helper"),  # re-exported by pkg/__init__.py
        ("pkg/sub/deep.py::", EXT + "requests"),
        ("main.py::", "pkg/core.py::Engine"),
    }


def test_calls_through_imports(make_repo, index_repo):
    repo = make_repo(IMPORT_REPO)
    report = index_repo(repo)
    assert calls(repo) == {
        ("pkg/core.py::Engine.start", "pkg/util.py::helper", 1.0, "import"),
        ("pkg/core.py::Engine.start", "pkg/util.py::other", 1.0, "import"),
        ("pkg/util.py::helper", EXT + "os.path.join", 1.0, "import"),
        ("pkg/util.py::other", EXT + "json.dumps", 1.0, "import"),
        ("pkg/sub/deep.py::run", "pkg/core.py::Engine", 1.0, "import"),
        ("pkg/sub/deep.py::run", "pkg/core.py::Engine.start", 0.8, "local-type"),
        ("pkg/sub/deep.py::run", "pkg/util.py::helper", 1.0, "import"),
        ("pkg/sub/deep.py::run", "pkg/util.py::other", 1.0, "import"),
        ("pkg/sub/deep.py::lazy", "pkg/util.py::helper", 1.0, "import"),
        ("pkg/sub/deep.py::lazy", EXT + "requests.get", 1.0, "import"),
        ("main.py::", "pkg/core.py::Engine", 1.0, "import"),
        ("main.py::", "pkg/core.py::Engine.start", 0.8, "local-type"),
    }
    # `from ..util import *` does not bind _private: that call stays unresolved
    assert report.calls["unresolved"] == 1


# ---------------------------------------------------------------------- classes
def test_constructor_calls_the_class_and_its_init(make_repo, index_repo):
    repo = make_repo(
        {
            "m.py": """
                class Base:
                    def __init__(self):
                        pass

                class Child(Base):
                    pass

                class Plain:
                    pass

                def make():
                    Child()
                    Plain()
                    Base()
                """
        }
    )
    index_repo(repo)
    assert calls(repo) == {
        ("m.py::make", "m.py::Child", 1.0, "scope"),
        ("m.py::make", "m.py::Base.__init__", 0.8, "constructor"),  # inherited __init__
        ("m.py::make", "m.py::Plain", 1.0, "scope"),
        ("m.py::make", "m.py::Base", 1.0, "scope"),
    }


def test_self_cls_and_the_mro(make_repo, index_repo):
    repo = make_repo(
        {
            "m.py": """
                class A:
                    def who(self):
                        return "A"

                    def hello(self):
                        return self.who()

                class B(A):
                    def who(self):
                        return "B"

                class C(A):
                    def run(self):
                        return self.hello()

                    @classmethod
                    def build(cls):
                        return cls.make()

                    @classmethod
                    def make(cls):
                        return cls()

                    @staticmethod
                    def util(x):
                        return x.who()

                class D(B, C):
                    def go(self):
                        return self.who(), self.run()
                """
        }
    )
    index_repo(repo)
    assert calls(repo) == {
        ("m.py::A.hello", "m.py::A.who", 0.9, "self"),
        # self may be a B (or a D, whose MRO reaches B.who first)
        ("m.py::A.hello", "m.py::B.who", 0.7, "dispatch"),
        ("m.py::C.run", "m.py::A.hello", 0.9, "inheritance"),
        ("m.py::C.build", "m.py::C.make", 0.9, "self"),
        ("m.py::C.make", "m.py::C", 0.9, "self"),
        # D's MRO is D, B, C, A: who is B's, run is C's
        ("m.py::D.go", "m.py::B.who", 0.9, "inheritance"),
        ("m.py::D.go", "m.py::C.run", 0.9, "inheritance"),
    }


def test_super_follows_the_mro(make_repo, index_repo):
    repo = make_repo(
        {
            "m.py": """
                class Base:
                    def __init__(self, x):
                        self.x = x

                    def save(self):
                        pass

                class Left(Base):
                    def save(self):
                        super().save()

                class Right(Base):
                    def save(self):
                        super().save()

                class Both(Left, Right):
                    def __init__(self):
                        super().__init__(1)

                    def save(self):
                        super().save()
                """
        }
    )
    index_repo(repo)
    assert calls(repo) == {
        ("m.py::Left.save", "m.py::Base.save", 0.9, "super"),
        ("m.py::Right.save", "m.py::Base.save", 0.9, "super"),
        ("m.py::Both.__init__", "m.py::Base.__init__", 0.9, "super"),
        # super() inside Both starts after Both in its MRO: Left
        ("m.py::Both.save", "m.py::Left.save", 0.9, "super"),
    }


def test_heritage(make_repo, index_repo):
    repo = make_repo(
        {
            "base.py": """
                class Model:
                    pass

                class Mixin:
                    pass
                """,
            "models.py": """
                import abc
                import base
                from base import Model as M
                from typing import Generic, TypeVar

                T = TypeVar("T")

                class User(M):
                    pass

                class Admin(User, base.Mixin, metaclass=abc.ABCMeta):
                    pass

                class Box(Generic[T], abc.ABC):
                    pass
                """,
        }
    )
    index_repo(repo)
    assert edges(repo, "EXTENDS") == {
        ("models.py::User", "base.py::Model"),
        ("models.py::Admin", "models.py::User"),
        ("models.py::Admin", "base.py::Mixin"),
        ("models.py::Box", EXT + "typing.Generic"),
        ("models.py::Box", EXT + "abc.ABC"),
    }


# ---------------------------------------------------------------------- value types
def test_receivers_whose_class_is_evident(make_repo, index_repo):
    repo = make_repo(
        {
            "shapes.py": """
                class Shape:
                    def area(self):
                        return 0

                class Square(Shape):
                    def area(self):
                        return 4

                def make():
                    return Square()

                def declared() -> Shape:
                    return load()
                """,
            "use.py": """
                from shapes import Shape, Square, make, declared

                def direct():
                    s = Square()
                    s.area()

                def returned():
                    x = make()
                    x.area()
                    make().area()

                def annotated(shape: Shape, maybe: "Square | None" = None):
                    shape.area()
                    maybe.area()

                def by_return_annotation():
                    declared().area()
                """,
        }
    )
    index_repo(repo)
    assert calls(repo, "use.py") == {
        ("use.py::direct", "shapes.py::Square", 1.0, "import"),
        # a constructed Square is exactly a Square: no dispatch
        ("use.py::direct", "shapes.py::Square.area", 0.8, "local-type"),
        ("use.py::returned", "shapes.py::make", 1.0, "import"),
        ("use.py::returned", "shapes.py::Square.area", 0.8, "local-type"),
        # a declared Shape may be any subclass: the override is a dispatch
        ("use.py::annotated", "shapes.py::Shape.area", 0.8, "local-type"),
        ("use.py::annotated", "shapes.py::Square.area", 0.8, "local-type"),
        ("use.py::by_return_annotation", "shapes.py::declared", 1.0, "import"),
        ("use.py::by_return_annotation", "shapes.py::Shape.area", 0.8, "local-type"),
        ("use.py::by_return_annotation", "shapes.py::Square.area", 0.7, "dispatch"),
    }


def test_attributes_aliases_and_containers(make_repo, index_repo):
    repo = make_repo(
        {
            "m.py": """
                class Tag:
                    def check(self):
                        pass

                class Request:
                    pass

                class Session:
                    def save(self):
                        pass

                def f():
                    pass

                class App:
                    request_class = Request
                    session: Session = Session()

                    def __init__(self):
                        self.tags: list[Tag] = []
                        self.by_key: dict[str, Tag] = {}
                        self.engine = Session()

                    def run(self):
                        g = f
                        g()
                        self.request_class()
                        self.session.save()
                        self.engine.save()
                        for tag in self.tags:
                            tag.check()
                        for key, tag in self.by_key.items():
                            tag.check()
                        self.by_key["x"].check()
                        self.__class__()
                """
        }
    )
    index_repo(repo)
    assert calls(repo, "m.py::App") == {
        ("m.py::App", "m.py::Session", 1.0, "scope"),
        ("m.py::App.__init__", "m.py::Session", 1.0, "scope"),
        ("m.py::App.run", "m.py::f", 0.8, "alias"),
        ("m.py::App.run", "m.py::Request", 0.8, "alias"),
        ("m.py::App.run", "m.py::Session.save", 0.8, "local-type"),
        ("m.py::App.run", "m.py::Tag.check", 0.8, "local-type"),
        ("m.py::App.run", "m.py::App", 0.9, "self"),
        ("m.py::App.run", "m.py::App.__init__", 0.8, "constructor"),
    }


def test_context_managers_comprehensions_and_properties(make_repo, index_repo):
    repo = make_repo(
        {
            "m.py": """
                from functools import cached_property

                class Conn:
                    def query(self):
                        pass

                    def close(self):
                        pass

                class Pool:
                    def __enter__(self) -> Conn:
                        return Conn()

                    def __exit__(self, *exc):
                        pass

                    @property
                    def first(self) -> Conn:
                        return Conn()

                    @first.setter
                    def first(self, value):
                        pass

                    @cached_property
                    def all(self) -> list[Conn]:
                        return []

                def work(pool: Pool):
                    with Pool() as conn:
                        conn.query()
                    pool.first.close()
                    return [c.close() for c in pool.all]
                """
        }
    )
    index_repo(repo)
    assert calls(repo, "m.py::work") == {
        ("m.py::work", "m.py::Pool", 1.0, "scope"),
        ("m.py::work", "m.py::Conn.query", 0.8, "local-type"),
        # reading a property runs its getter: its value is typed by the getter's return
        ("m.py::work", "m.py::Conn.close", 0.8, "local-type"),
    }


def test_comprehension_and_lambda_names_stay_local(make_repo, index_repo):
    repo = make_repo(
        {
            "m.py": """
                class Node:
                    def children(self) -> list["Node"]:
                        return []

                    def visit(self):
                        pass

                class Other:
                    def visit(self):
                        pass

                def walk(root: Node, nodes: list[Node], hooks):
                    n = Other()
                    seen = [n.visit() for n in nodes]
                    deep = [c.visit() for n in nodes for c in n.children()]
                    n.visit()
                    hooks.add(lambda n: n.visit())
                    return seen, deep
                """
        }
    )
    report = index_repo(repo)
    assert calls(repo, "m.py::walk") == {
        ("m.py::walk", "m.py::Other", 1.0, "scope"),
        # the comprehensions' n and c are Nodes, the function's n stays an Other
        ("m.py::walk", "m.py::Node.visit", 0.8, "local-type"),
        ("m.py::walk", "m.py::Node.children", 0.8, "local-type"),
        ("m.py::walk", "m.py::Other.visit", 0.8, "local-type"),
    }
    # the lambda's n is a parameter nobody typed: unresolved (hooks.add is too)
    assert report.calls["unresolved"] == 2


def test_functions_passed_as_values(make_repo, index_repo):
    repo = make_repo(
        {
            "events.py": """
                def apply(func, value):
                    return func(value)

                def register(callback):
                    def wrapper(x):
                        return callback(x)
                    return wrapper

                def store(callback):
                    HANDLERS.append(callback)

                HANDLERS = []
                """,
            "use.py": """
                from events import apply, register, store

                def double(x):
                    return 2 * x

                def main():
                    apply(double, 3)
                    register(callback=double)
                    store(double)
                """,
        }
    )
    index_repo(repo)
    assert calls(repo) == {
        ("use.py::main", "events.py::apply", 1.0, "import"),
        ("use.py::main", "events.py::register", 1.0, "import"),
        ("use.py::main", "events.py::store", 1.0, "import"),
        # the callee calls what it was given (in a closure too): lower confidence
        ("events.py::apply", "use.py::double", 0.8, "value-flow"),
        ("events.py::register.wrapper", "use.py::double", 0.8, "value-flow"),
    }
    # passing a function is a reference from the caller, whether or not it gets called
    assert {e for e in edges(repo, "REFERENCES") if e[2] == 0.8} == {
        ("use.py::main", "use.py::double", 0.8, "value-flow"),
    }


def test_decorators_are_calls_from_the_decorated_definition(make_repo, index_repo):
    repo = make_repo(
        {
            "m.py": """
                import functools

                def trace(f):
                    return f

                def route(path):
                    def deco(f):
                        return f
                    return deco

                class Service:
                    @trace
                    @route("/x")
                    def handle(self):
                        pass

                    @staticmethod
                    def s():
                        pass

                    @property
                    def p(self):
                        return 1

                    @functools.cache
                    def c(self):
                        pass

                @trace
                class Thing:
                    pass
                """
        }
    )
    index_repo(repo)
    assert calls(repo) == {
        ("m.py::Service.handle", "m.py::trace", 1.0, "scope"),
        ("m.py::Service.handle", "m.py::route", 1.0, "scope"),
        ("m.py::Service.c", EXT + "functools.cache", 1.0, "import"),
        ("m.py::Thing", "m.py::trace", 1.0, "scope"),
    }


def test_unique_name_and_unresolved_calls(make_repo, index_repo):
    repo = make_repo(
        {
            "lib.py": """
                import json

                class Exporter:
                    def export_rows(self):
                        pass

                class Reader(json.JSONDecoder):
                    def decode_all(self):
                        pass

                class A:
                    def shared_name(self):
                        pass

                class B:
                    def shared_name(self):
                        pass

                    def Factory(self):
                        pass

                    @property
                    def handler_of(self):
                        pass
                """,
            "use.py": """
                def work(obj, items):
                    obj.export_rows()
                    obj.decode_all()
                    obj.shared_name()
                    obj.update()
                    obj.Factory()
                    obj.handler_of()
                    items.append(1)
                    unknown_function()
                """,
        }
    )
    report = index_repo(repo)
    # only a method name defined once, by a class we fully see, is offered, and only at 0.5;
    # not a capitalised name (a class attribute, most likely) nor a property
    assert calls(repo, "use.py") == {
        ("use.py::work", "lib.py::Exporter.export_rows", 0.5, "unique-name"),
    }
    assert report.calls["unresolved"] == 7
    assert report.calls["resolved"] == 1


def test_dispatch_to_a_method_only_subclasses_define(make_repo, index_repo):
    repo = make_repo(
        {
            "m.py": """
                class Handler:
                    def run(self):
                        return self.handle()

                class Json(Handler):
                    def handle(self):
                        pass

                class Text(Handler):
                    def handle(self):
                        pass
                """
        }
    )
    index_repo(repo)
    assert calls(repo) == {
        ("m.py::Handler.run", "m.py::Json.handle", 0.7, "dispatch"),
        ("m.py::Handler.run", "m.py::Text.handle", 0.7, "dispatch"),
    }


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
    from codeimpact.indexer.lang.python.extract import extract, is_test_path
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
    from codeimpact.indexer.lang.python.extract import extract, is_test_path
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
