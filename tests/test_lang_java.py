"""Java: a multi-package Maven layout indexed into a real Kùzu database, construct by construct."""

from __future__ import annotations

import pytest

from codeimpact.indexer.lang.java import extract as java
from conftest import edges, git, symbols, write_files

STRINGS = """
    package com.acme.util;

    public final class Strings {
        private Strings() {}

        public static String join(String a) { return a; }

        public static String join(String a, String b) { return a + b; }

        public static String pad(String s, int... widths) { return s; }
    }
    """


SHAPE = """
    package com.acme.core;

    public interface Shape {
        double area();

        default String describe() { return "shape " + area(); }
    }
    """


ABSTRACTSHAPE = """
    package com.acme.core;

    import java.util.List;

    public abstract class AbstractShape implements Shape {
        protected final List<String> tags;

        protected AbstractShape(List<String> tags) { this.tags = tags; }

        public String name() { return getClass().getSimpleName(); }

        public abstract double area();
    }
    """


CIRCLE = """
    package com.acme.core;

    import java.util.ArrayList;

    public class Circle extends AbstractShape {
        private final double r;

        public Circle(double r) {
            super(new ArrayList<>());
            this.r = r;
        }

        public Circle() { this(1.0); }

        @Override
        public double area() { return Math.PI * r * r; }

        public String label() { return name() + describe(); }

        public static Circle unit() { return new Circle(); }

        public static class Builder {
            private double r;

            public Builder radius(double r) { this.r = r; return this; }

            public Circle build() { return new Circle(r); }
        }
    }
    """


SQUARE = """
    package com.acme.core;

    public class Square extends AbstractShape {
        public Square() { super(null); }

        public double area() { return 4; }
    }
    """


COLOR = """
    package com.acme.core;

    public enum Color {
        RED,
        GREEN {
            @Override
            String code() { return "g"; }
        };

        String code() { return name().toLowerCase(); }
    }
    """


POINT = """
    package com.acme.core;

    public record Point(int x, int y) {
        public Point {
            check(x);
        }

        static void check(int v) {}

        public int sum() { return x + y; }
    }
    """


RENDERER = """
    package com.acme.app;

    import com.acme.core.*;
    import com.acme.util.Strings;
    import static com.acme.util.Strings.pad;
    import java.util.function.Supplier;
    import org.slf4j.Logger;

    public class Renderer {
        private final Shape shape;
        private Logger log;

        public Renderer(Shape shape) { this.shape = shape; }

        public String render() {
            double a = shape.area();
            Circle c = Circle.unit();
            String s = c.label();
            Circle.Builder b = new Circle.Builder();
            b.radius(2).build().area();
            var sq = new Square();
            sq.area();
            helper();
            this.helper();
            Strings.join(s);
            Strings.join(s, s);
            pad(s, 1, 2);
            log.info("done");
            Runnable r = new Runnable() {
                public void run() { helper(); }
            };
            Supplier<Circle> sup = Circle::unit;
            Point p = new Point(1, 2);
            p.sum();
            return Strings.join(s) + a + p.x();
        }

        void helper() {}

        void overloaded(int a) {}

        void overloaded(String a) {}

        void callsOverloaded() { overloaded(1); }

        void all(AbstractShape s) { s.area(); s.name(); s.hashCode(); }

        void constants() { Color.RED.code(); Renderer.class.getName(); }
    }
    """


RENDERERTEST = """
    package com.acme.app;

    import com.acme.core.Circle;
    import org.junit.jupiter.api.Test;

    class RendererTest {
        @Test
        void renders() {
            new Renderer(new Circle(2)).render();
        }

        private void setUp() {}
    }
    """

M = "src/main/java/com/acme"
STRINGS_JAVA = f"{M}/util/Strings.java"
SHAPE_JAVA = f"{M}/core/Shape.java"
ABSTRACT_JAVA = f"{M}/core/AbstractShape.java"
CIRCLE_JAVA = f"{M}/core/Circle.java"
SQUARE_JAVA = f"{M}/core/Square.java"
COLOR_JAVA = f"{M}/core/Color.java"
POINT_JAVA = f"{M}/core/Point.java"
RENDERER_JAVA = f"{M}/app/Renderer.java"
TEST_JAVA = "src/test/java/com/acme/app/RendererTest.java"
FILES = {
    STRINGS_JAVA: STRINGS,
    SHAPE_JAVA: SHAPE,
    ABSTRACT_JAVA: ABSTRACTSHAPE,
    CIRCLE_JAVA: CIRCLE,
    SQUARE_JAVA: SQUARE,
    COLOR_JAVA: COLOR,
    POINT_JAVA: POINT,
    RENDERER_JAVA: RENDERER,
    TEST_JAVA: RENDERERTEST,
}


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    from codeimpact.indexer.build import analyze
    from codeimpact.indexer.config import IndexConfig, RunOptions

    root = tmp_path_factory.mktemp("javarepo")
    write_files(root, FILES)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    report = analyze(root, IndexConfig(), RunOptions(workers=1))
    return root, report


def calls_from(root, path, local):
    src = f"{path}::{local}"
    return {(d, c, r) for s, d, c, r in edges(root, "CALLS") if s == src}


def u(path, local=""):
    return f"{path}::{local}"


def test_definitions_kinds_and_qualified_names(repo):
    root, _ = repo
    syms = symbols(root)
    circle = {k: v for k, v in syms.items() if k.startswith(CIRCLE_JAVA)}
    q = "com.acme.core.Circle"
    assert circle == {
        u(CIRCLE_JAVA): ("module", "com.acme.core", 1, 30),
        u(CIRCLE_JAVA, "Circle"): ("class", q, 5, 29),
        u(CIRCLE_JAVA, "Circle.r"): ("variable", f"{q}.r", 6, 6),
        u(CIRCLE_JAVA, "Circle.<init>"): ("method", f"{q}.<init>", 8, 11),
        u(CIRCLE_JAVA, "Circle.<init>#2"): ("method", f"{q}.<init>", 13, 13),
        u(CIRCLE_JAVA, "Circle.area"): ("method", f"{q}.area", 15, 16),
        u(CIRCLE_JAVA, "Circle.label"): ("method", f"{q}.label", 18, 18),
        u(CIRCLE_JAVA, "Circle.unit"): ("method", f"{q}.unit", 20, 20),
        u(CIRCLE_JAVA, "Circle.Builder"): ("class", f"{q}.Builder", 22, 28),
        u(CIRCLE_JAVA, "Circle.Builder.r"): ("variable", f"{q}.Builder.r", 23, 23),
        u(CIRCLE_JAVA, "Circle.Builder.radius"): ("method", f"{q}.Builder.radius", 25, 25),
        u(CIRCLE_JAVA, "Circle.Builder.build"): ("method", f"{q}.Builder.build", 27, 27),
    }
    assert syms[u(SHAPE_JAVA, "Shape")][:2] == ("interface", "com.acme.core.Shape")
    assert syms[u(SHAPE_JAVA, "Shape.describe")][:2] == ("method", "com.acme.core.Shape.describe")
    # an enum, its plain constant, and a constant with a body (an anonymous subclass)
    assert {k: v[:2] for k, v in syms.items() if k.startswith(COLOR_JAVA)} == {
        u(COLOR_JAVA): ("module", "com.acme.core"),
        u(COLOR_JAVA, "Color"): ("enum", "com.acme.core.Color"),
        u(COLOR_JAVA, "Color.RED"): ("variable", "com.acme.core.Color.RED"),
        u(COLOR_JAVA, "Color.GREEN"): ("class", "com.acme.core.Color.GREEN"),
        u(COLOR_JAVA, "Color.GREEN.code"): ("method", "com.acme.core.Color.GREEN.code"),
        u(COLOR_JAVA, "Color.code"): ("method", "com.acme.core.Color.code"),
    }
    # a record: its components are fields, a compact constructor is its <init>
    assert {k: v[:2] for k, v in syms.items() if k.startswith(POINT_JAVA)} == {
        u(POINT_JAVA): ("module", "com.acme.core"),
        u(POINT_JAVA, "Point"): ("class", "com.acme.core.Point"),
        u(POINT_JAVA, "Point.x"): ("variable", "com.acme.core.Point.x"),
        u(POINT_JAVA, "Point.y"): ("variable", "com.acme.core.Point.y"),
        u(POINT_JAVA, "Point.<init>"): ("method", "com.acme.core.Point.<init>"),
        u(POINT_JAVA, "Point.check"): ("method", "com.acme.core.Point.check"),
        u(POINT_JAVA, "Point.sum"): ("method", "com.acme.core.Point.sum"),
    }
    # overloads, and an anonymous class inside a method
    assert syms[u(STRINGS_JAVA, "Strings.join#2")][:2] == ("method", "com.acme.util.Strings.join")
    assert syms[u(RENDERER_JAVA, "Renderer.render.$1")][:2] == (
        "class",
        "com.acme.app.Renderer.render.$1",
    )
    contains = edges(root, "CONTAINS")
    assert (u(CIRCLE_JAVA, "Circle"), u(CIRCLE_JAVA, "Circle.Builder")) in contains
    assert (u(CIRCLE_JAVA, "Circle.Builder"), u(CIRCLE_JAVA, "Circle.Builder.build")) in contains
    assert (u(RENDERER_JAVA, "Renderer.render"), u(RENDERER_JAVA, "Renderer.render.$1")) in contains


def test_heritage(repo):
    root, _ = repo
    assert edges(root, "EXTENDS") == {
        (u(CIRCLE_JAVA, "Circle"), u(ABSTRACT_JAVA, "AbstractShape")),
        (u(SQUARE_JAVA, "Square"), u(ABSTRACT_JAVA, "AbstractShape")),
        (u(COLOR_JAVA, "Color.GREEN"), u(COLOR_JAVA, "Color")),
        # an external supertype of an anonymous class: class or interface, we cannot tell
        (u(RENDERER_JAVA, "Renderer.render.$1"), "<external>::java.lang.Runnable"),
    }
    assert edges(root, "IMPLEMENTS") == {
        (u(ABSTRACT_JAVA, "AbstractShape"), u(SHAPE_JAVA, "Shape"))
    }


def test_imports_single_on_demand_static_and_external(repo):
    root, _ = repo
    imports = {d for s, d in edges(root, "IMPORTS") if s == u(RENDERER_JAVA)}
    assert imports == {
        # `import com.acme.core.*`: the types the file uses through it
        u(SHAPE_JAVA, "Shape"),
        u(ABSTRACT_JAVA, "AbstractShape"),
        u(CIRCLE_JAVA, "Circle"),
        u(SQUARE_JAVA, "Square"),
        u(POINT_JAVA, "Point"),
        u(COLOR_JAVA, "Color"),
        u(STRINGS_JAVA, "Strings"),
        # `import static ...Strings.pad`
        u(STRINGS_JAVA, "Strings.pad"),
        "<external>::java.util.function.Supplier",
        "<external>::org.slf4j.Logger",
    }


def test_same_package_types_need_no_import(repo):
    root, _ = repo
    assert calls_from(root, TEST_JAVA, "RendererTest.renders") == {
        (u(RENDERER_JAVA, "Renderer"), 1.0, "scope"),
        (u(RENDERER_JAVA, "Renderer.<init>"), 0.8, "constructor"),
        (u(CIRCLE_JAVA, "Circle"), 1.0, "import"),
        (u(CIRCLE_JAVA, "Circle.<init>"), 0.8, "constructor"),
        (u(RENDERER_JAVA, "Renderer.render"), 0.8, "local-type"),
    }


def test_calls_on_this_fields_locals_statics_and_imports(repo):
    root, _ = repo
    render = calls_from(root, RENDERER_JAVA, "Renderer.render")
    assert render == {
        # a field typed by an interface, and the implementations that may run
        (u(SHAPE_JAVA, "Shape.area"), 0.8, "local-type"),
        (u(CIRCLE_JAVA, "Circle.area"), 0.8, "local-type"),
        (u(SQUARE_JAVA, "Square.area"), 0.8, "local-type"),
        # static call through an on-demand import, a local typed by its declaration
        (u(CIRCLE_JAVA, "Circle.unit"), 1.0, "import"),
        (u(CIRCLE_JAVA, "Circle.label"), 0.8, "local-type"),
        # a nested class (no declared constructor), a builder chain typed by return types
        (u(CIRCLE_JAVA, "Circle.Builder"), 1.0, "import"),
        (u(CIRCLE_JAVA, "Circle.Builder.radius"), 0.8, "local-type"),
        (u(CIRCLE_JAVA, "Circle.Builder.build"), 0.8, "local-type"),
        # `var sq = new Square()`
        (u(SQUARE_JAVA, "Square"), 1.0, "import"),
        (u(SQUARE_JAVA, "Square.<init>"), 0.8, "constructor"),
        # helper() and this.helper()
        (u(RENDERER_JAVA, "Renderer.helper"), 0.9, "self"),
        # overloads picked by argument count; a static import; varargs
        (u(STRINGS_JAVA, "Strings.join"), 1.0, "import"),
        (u(STRINGS_JAVA, "Strings.join#2"), 1.0, "import"),
        (u(STRINGS_JAVA, "Strings.pad"), 1.0, "import"),
        # a field of an external type
        ("<external>::org.slf4j.Logger.info", 0.8, "local-type"),
        ("<external>::java.lang.Runnable", 1.0, "import"),
        # a record: constructor, method, implicit accessor
        (u(POINT_JAVA, "Point"), 1.0, "import"),
        (u(POINT_JAVA, "Point.<init>"), 0.8, "constructor"),
        (u(POINT_JAVA, "Point.sum"), 0.8, "local-type"),
        (u(POINT_JAVA, "Point.x"), 0.8, "local-type"),
    }
    # the anonymous class's method sees the enclosing class's methods
    assert calls_from(root, RENDERER_JAVA, "Renderer.render.$1.run") == {
        (u(RENDERER_JAVA, "Renderer.helper"), 0.9, "self")
    }
    # a method reference is a reference, not a call
    refs = edges(root, "REFERENCES")
    assert (
        u(RENDERER_JAVA, "Renderer.render"),
        u(CIRCLE_JAVA, "Circle.unit"),
        1.0,
        "import",
    ) in refs


def test_constructors_super_this_and_inheritance(repo):
    root, _ = repo
    assert calls_from(root, CIRCLE_JAVA, "Circle.<init>") == {
        (u(ABSTRACT_JAVA, "AbstractShape.<init>"), 0.9, "super"),
        ("<external>::java.util.ArrayList", 1.0, "import"),
    }
    # this(1.0): the one-argument constructor
    assert calls_from(root, CIRCLE_JAVA, "Circle.<init>#2") == {
        (u(CIRCLE_JAVA, "Circle.<init>"), 0.9, "self")
    }
    # new Circle(): the no-argument constructor
    assert calls_from(root, CIRCLE_JAVA, "Circle.unit") == {
        (u(CIRCLE_JAVA, "Circle"), 1.0, "scope"),
        (u(CIRCLE_JAVA, "Circle.<init>#2"), 0.8, "constructor"),
    }
    # methods found in the superclass and in an interface's default method
    assert calls_from(root, CIRCLE_JAVA, "Circle.label") == {
        (u(ABSTRACT_JAVA, "AbstractShape.name"), 0.9, "inheritance"),
        (u(SHAPE_JAVA, "Shape.describe"), 0.9, "inheritance"),
    }
    # Object's and Enum's methods the repository does not declare
    assert calls_from(root, ABSTRACT_JAVA, "AbstractShape.name") == {
        ("<external>::java.lang.Object.getClass", 0.9, "inheritance")
    }
    assert calls_from(root, COLOR_JAVA, "Color.code") == {
        ("<external>::java.lang.Enum.name", 0.9, "inheritance")
    }


def test_dispatch_to_overrides_and_ambiguous_overloads(repo):
    root, _ = repo
    # area() in an interface's default method: every concrete implementation may run
    assert calls_from(root, SHAPE_JAVA, "Shape.describe") == {
        (u(SHAPE_JAVA, "Shape.area"), 0.9, "self"),
        (u(CIRCLE_JAVA, "Circle.area"), 0.7, "dispatch"),
        (u(SQUARE_JAVA, "Square.area"), 0.7, "dispatch"),
    }
    # an abstract class's method: its overrides, never the abstract declaration at dispatch
    assert calls_from(root, RENDERER_JAVA, "Renderer.all") == {
        (u(ABSTRACT_JAVA, "AbstractShape.area"), 0.8, "local-type"),
        (u(CIRCLE_JAVA, "Circle.area"), 0.7, "dispatch"),
        (u(SQUARE_JAVA, "Square.area"), 0.7, "dispatch"),
        (u(ABSTRACT_JAVA, "AbstractShape.name"), 0.8, "local-type"),
        ("<external>::java.lang.Object.hashCode", 0.8, "local-type"),
    }
    # overloaded(1): two one-argument overloads, argument types unknown -> both at dispatch
    assert calls_from(root, RENDERER_JAVA, "Renderer.callsOverloaded") == {
        (u(RENDERER_JAVA, "Renderer.overloaded"), 0.7, "dispatch"),
        (u(RENDERER_JAVA, "Renderer.overloaded#2"), 0.7, "dispatch"),
    }


def test_unresolved_calls_are_counted(repo):
    _, report = repo
    # getClass().getSimpleName() and name().toLowerCase(): results of external calls
    assert report.calls == {"total": 44, "builtin": 0, "unresolved": 2, "resolved": 42}


def test_enum_constants_and_class_literals_are_typed(repo):
    root, _ = repo
    assert calls_from(root, RENDERER_JAVA, "Renderer.constants") == {
        # a constant is a Color; GREEN's body overrides code()
        (u(COLOR_JAVA, "Color.code"), 0.8, "local-type"),
        (u(COLOR_JAVA, "Color.GREEN.code"), 0.7, "dispatch"),
        ("<external>::java.lang.Class.getName", 0.8, "local-type"),
    }


def test_tests_by_path_and_annotation(repo):
    from codeimpact.query.index import Index

    root, _ = repo
    with Index.open(root) as index:
        res = index.cypher("MATCH (s:Symbol) WHERE s.is_test RETURN s.uid")
    assert {r[0] for r in res.rows} == {
        u(TEST_JAVA),
        u(TEST_JAVA, "RendererTest"),
        u(TEST_JAVA, "RendererTest.renders"),
        u(TEST_JAVA, "RendererTest.setUp"),
    }
    facts = java.extract(b"class A { @org.junit.Test void t() {} @Test void u() {} void v() {} }")
    assert {s.local: s.is_test for s in facts.symbols if s.kind == "method"} == {
        "A.t": True,
        "A.u": True,
        "A.v": False,
    }
    assert java.is_test_path("core/src/test/java/a/B.java")
    assert not java.is_test_path("src/main/java/org/junit/Test.java")


def test_extraction_facts():
    facts = java.extract(
        b"package p;\n"
        b"class A {\n"
        b"  void m(Foo f, String... rest) {\n"
        b"    var a = new Bar();\n    Baz b = make();\n    var c = make();\n"
        b"    for (Qux q : qs) {}\n    xs.forEach(x -> x.go());\n  }\n}\n"
    )
    assert facts.extra["package"] == "p"
    m = next(s for s in facts.symbols if s.local == "A.m")
    assert m.params == (("f", "Foo"), ("*rest", ""))
    assert {(n, t) for _s, n, t, _l in facts.extra["locals"]} == {
        ("a", "Bar"),
        ("b", "Baz"),
        ("q", "Qux"),
        ("x", ""),
    }
    assert {(b.name, b.value, b.is_call) for b in facts.bindings} == {("c", "make", True)}
    assert facts.extra["argc"] == [0, 0, 0, 1, 0]
    broken = java.extract(b"class A { void m() { call(); } void n( }")
    assert broken.status == "partial"
    assert "A.m" in {s.local for s in broken.symbols}


def test_dispatch_fan_out_is_capped(make_repo, index_repo):
    from codeimpact.indexer.lang.engine.static import MAX_DISPATCH

    impls = "\n".join(
        f"class Impl{i} implements Op {{ public void run() {{}} }}" for i in range(40)
    )
    few = "\n".join(f"class Few{i} implements Small {{ public void go() {{}} }}" for i in range(3))
    root = make_repo(
        {
            "p/Ops.java": f"""
                package p;
                interface Op {{ void run(); }}
                interface Small {{ void go(); }}
                {impls}
                {few}
                class Use {{ void call(Op op, Small s) {{ op.run(); s.go(); }} }}
                """
        }
    )
    index_repo(root)
    out = {
        (d.split("::")[1], r) for s, d, _c, r in edges(root, "CALLS") if s == "p/Ops.java::Use.call"
    }
    assert MAX_DISPATCH < 40
    # 40 implementations: only the declared method; 3: each of them too
    assert out == {
        ("Op.run", "local-type"),
        ("Small.go", "local-type"),
        ("Few0.go", "dispatch"),
        ("Few1.go", "dispatch"),
        ("Few2.go", "dispatch"),
    }


def test_incremental_run_equals_full_when_an_intermediate_supertype_changes(make_repo, index_repo):
    """C extends B extends A; B stops extending A. The caller of A.m names neither B nor C,
    yet its dispatch edge to C.m must go, exactly as a full run drops it."""
    from codeimpact.indexer.build import analyze
    from codeimpact.indexer.config import IndexConfig, RunOptions

    files = {
        "p/A.java": "package p;\nclass A { void m() {} }\n",
        "p/B.java": "package p;\nclass B extends A {}\n",
        "p/C.java": "package p;\nclass C extends B { void m() {} }\n",
        "p/Use.java": "package p;\nclass Use { void call(A a) { a.m(); } }\n",
    }
    root = make_repo(files)
    index_repo(root)
    dispatch = ("p/Use.java::Use.call", "p/C.java::C.m", 0.7, "dispatch")
    assert dispatch in edges(root, "CALLS")
    write_files(root, {"p/B.java": "package p;\nclass B {}\n"})
    assert analyze(root, IndexConfig(), RunOptions(workers=1)).mode == "incremental"
    incremental = {rel: edges(root, rel) for rel in ("CALLS", "EXTENDS")}
    analyze(root, IndexConfig(), RunOptions(workers=1, force=True))
    assert {rel: edges(root, rel) for rel in ("CALLS", "EXTENDS")} == incremental
    assert dispatch not in incremental["CALLS"]


def test_dispatch_follows_the_receivers_static_type(make_repo, index_repo):
    root = make_repo(
        {
            "p/Ops.java": """
                package p;
                interface Op { void run(); }
                abstract class A implements Op {}
                class B extends A { public void run() {} }
                class C implements Op { public void run() {} }
                class Use {
                    void viaA(A a) { a.run(); }
                    void viaOp(Op op) { op.run(); }
                }
                """
        }
    )
    index_repo(root)
    calls = edges(root, "CALLS")

    def out(local):
        return {(d.split("::")[1], r) for s, d, _c, r in calls if s == f"p/Ops.java::{local}"}

    # a.run() is Op.run found through A; of the implementations only A's subtypes can run
    assert out("Use.viaA") == {("Op.run", "local-type"), ("B.run", "dispatch")}
    assert out("Use.viaOp") == {
        ("Op.run", "local-type"),
        ("B.run", "dispatch"),
        ("C.run", "dispatch"),
    }
