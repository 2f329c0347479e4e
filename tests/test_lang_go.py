"""Go: test files, extraction and incremental runs of a multi-package module.

Its definitions and edges (package scope, imports, receivers, embedding, interfaces) are the
annotated fixture tests/lang/go/module.go, checked by tests/test_lang_fixtures.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from codeimpact.indexer.lang.go import extract as golang
from conftest import edges, git, write_files
from lang import harness

LANG = Path(__file__).resolve().parent / "lang"

# the project of the annotated fixture, without its assertion lines (the lines below are its own)
FILES = harness.project_files(LANG / "go" / "module.go")


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    from codeimpact.indexer.build import analyze
    from codeimpact.indexer.config import IndexConfig, RunOptions

    root = tmp_path_factory.mktemp("gorepo")
    write_files(root, FILES)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    report = analyze(root, IndexConfig(), RunOptions(workers=1))
    return root, report


def test_test_files_and_functions(repo):
    from codeimpact.query.index import Index

    root, _ = repo
    with Index.open(root) as index:
        res = index.cypher("MATCH (s:Symbol) WHERE s.is_test RETURN s.uid")
        files = index.cypher("MATCH (f:File) WHERE f.is_test RETURN f.path")
    assert {r[0] for r in res.rows} == {
        "util/util_test.go::",
        "util/util_test.go::TestFunc",
        "util/util_test.go::helperForTests",
    }
    assert {r[0] for r in files.rows} == {"util/util_test.go"}
    facts = golang.extract(b"package x\nfunc TestA(t *T) {}\nfunc Testify() {}\n")
    assert {s.name: s.is_test for s in facts.symbols if s.local} == {
        "TestA": True,
        "Testify": False,
    }


def test_extraction_is_partial_on_syntax_errors_and_keeps_the_rest():
    facts = golang.extract(b"package x\n\nfunc ok() { helper() }\n\nfunc broken( {\n")
    assert facts.status == "partial" and facts.error.startswith("syntax error at line")
    assert [s.local for s in facts.symbols][:2] == ["", "ok"]
    assert ("ok", "helper") in {(c.scope, c.callee) for c in facts.calls}


def test_locals_record_evident_types_only():
    facts = golang.extract(
        b"package x\n"
        b"func f(p *P) {\n"
        b"\ta := &T{}\n\tb := NewT()\n\tvar c T\n\td := p\n\tfor _, e := range xs {}\n"
        b"\tg := new(T)\n}\n"
    )
    locals_ = {(name, typ) for _s, name, typ, _l in facts.extra["locals"]}
    assert locals_ == {("a", "T"), ("c", "T"), ("g", "T")}
    assert {(b.name, b.value, b.is_call) for b in facts.bindings} == {
        ("b", "NewT", True),
        ("d", "p", False),
        ("e", "xs[i]", False),  # an element of xs
    }
    assert next(s for s in facts.symbols if s.local == "f").params == (("p", "P"),)


INCR_FILES = {
    "go.mod": "module example.com/inc\n",
    "shape/shape.go": """
        package shape

        type Shape interface {
            Area() int
            Name() string
        }

        func Describe(s Shape) int { return s.Area() }
        """,
    "shape/square.go": """
        package shape

        type Square struct{}

        func (q Square) Area() int { return 4 }
        """,
}


def _graph(root):
    return {rel: edges(root, rel) for rel in ("CALLS", "IMPLEMENTS", "IMPORTS", "CONTAINS")}


def test_incremental_run_equals_full_when_a_method_set_changes(make_repo, index_repo):
    """Square gains Name() in another file: it now implements Shape, and Describe's call may
    run Square.Area. Neither square.go nor shape.go changed, yet both own edges that change."""
    from codeimpact.indexer.build import analyze
    from codeimpact.indexer.config import IndexConfig, RunOptions

    root = make_repo(INCR_FILES)
    index_repo(root)
    assert ("shape/square.go::Square", "shape/shape.go::Shape") not in edges(root, "IMPLEMENTS")
    write_files(
        root, {"shape/name.go": 'package shape\n\nfunc (q Square) Name() string { return "sq" }\n'}
    )
    report = analyze(root, IndexConfig(), RunOptions(workers=1))
    assert report.mode == "incremental"
    incremental = _graph(root)
    analyze(root, IndexConfig(), RunOptions(workers=1, force=True))
    assert _graph(root) == incremental
    assert ("shape/square.go::Square", "shape/shape.go::Shape") in incremental["IMPLEMENTS"]
    assert (
        "shape/shape.go::Describe",
        "shape/square.go::Square.Area",
        0.7,
        "dispatch",
    ) in incremental["CALLS"]
