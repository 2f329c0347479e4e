"""Java: tests, extraction, the dispatch cap and incremental runs.

The definitions and edges of the Maven layout these tests index (heritage, imports, typed
receivers, constructors, dispatch, overloads) are the annotated fixture
tests/lang/java/maven.java, checked by tests/test_lang_fixtures.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from codeimpact.indexer.lang.java import extract as java
from conftest import edges, git, write_files
from lang import harness

LANG = Path(__file__).resolve().parent / "lang"
TEST_JAVA = "src/test/java/com/acme/app/RendererTest.java"
# the project of the annotated fixture, without its assertion lines (the lines below are its own)
FILES = harness.project_files(LANG / "java" / "maven.java")


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


def u(path, local=""):
    return f"{path}::{local}"


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
