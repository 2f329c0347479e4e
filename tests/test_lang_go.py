"""Go: a multi-package module indexed into a real Kùzu database, checked construct by construct."""

from __future__ import annotations

import pytest

from codeimpact.indexer.lang.go import extract as golang
from conftest import edges, git, symbols, write_files

GO_MOD = """
    module example.com/app

    go 1.22
    """

STORE = """
    package store

    import "io"

    // Base is embedded by Store.
    type Base struct {
        closed bool
    }

    func (b *Base) Close() error {
        b.closed = true
        return nil
    }

    type Store struct {
        Base
        items map[string]int
        log   *Logger
    }

    type Getter interface {
        Get(key string) int
    }

    type ReadGetter interface {
        io.Reader
        Get(key string) int
    }

    type ID = string

    type Count int

    var Default = NewStore()

    const Limit, Other = 10, 20

    func NewStore() *Store {
        return &Store{items: map[string]int{}}
    }

    func (s *Store) Get(key string) int {
        s.log.Printf("get")
        s.Close()
        return s.lookup(key)
    }
    """

LOOKUP = """
    package store

    type Logger struct{}

    func (l *Logger) Printf(format string) {}

    func (s *Store) lookup(key string) int {
        return s.items[key] + helper()
    }

    func helper() int { return Limit }

    type Stores []*Store

    func (ss Stores) Each() {
        for _, s := range ss {
            s.Close()
        }
        ss[0].lookup("z")
    }

    func Open() (*Store, error) { return NewStore(), nil }

    func All() Stores { return nil }
    """

CACHE = """
    package store

    type Cache struct{}

    func (c Cache) Get(key string) int { return 0 }

    type Partial struct{}

    func (p *Partial) Get(key string) int { return 1 }

    func (p *Partial) Read(b []byte) (int, error) { return 0, nil }

    // Odd has a Get, but not Getter's: arities differ
    type Odd struct{}

    func (o Odd) Get() int { return 2 }

    func (c Cache) IsNil() bool { return false }
    """

UTIL = """
    package util

    import "fmt"

    func Func() string { return fmt.Sprint(1) }

    func init() {}
    """

UTIL_TEST = """
    package util

    import "testing"

    func TestFunc(t *testing.T) {
        if Func() == "" {
            t.Fatal("empty")
        }
    }

    func helperForTests() {}
    """

MAIN = """
    package main

    import (
        "os"
        "reflect"

        "example.com/app/store"
        u "example.com/app/util"
        _ "example.com/app/util"
    )

    type App struct {
        st *store.Store
        g  store.Getter
    }

    func (a *App) Run(g store.Getter) {
        g.Get("b")
        u.Func()
        os.Exit(len("e"))
        n := store.Count(3)
        _ = n
        mystery().Get("i")
    }

    func (a *App) Fields() {
        a.st.Get("a")
    }

    func (a *App) Locals() {
        x := store.NewStore()
        x.Close()
        var c store.Cache
        c.Get("d")
    }

    func (a *App) Literal() {
        y := &store.Store{}
        y.Get("c")
    }

    func (a *App) Global() {
        store.Default.Get("f")
    }

    func (a *App) Assert(r interface{}) {
        r.(*store.Store).Get("g")
    }

    func (a *App) Results() {
        s, err := store.Open()
        s.Get("j")
        _ = err.Error()
        for _, st := range store.All() {
            st.Get("k")
        }
        list := store.All()
        list[0].Close()
    }

    func (a *App) Unknown(v interface{}) {
        reflect.ValueOf(v).Elem().IsNil()
        nowhere().IsNil()
    }

    func main() {
        app := &App{}
        app.Run(nil)
    }
    """

DOT = """
    package dot

    import . "example.com/app/util"

    func Use() string { return Func() }
    """

FILES = {
    "go.mod": GO_MOD,
    "store/store.go": STORE,
    "store/lookup.go": LOOKUP,
    "store/cache.go": CACHE,
    "util/util.go": UTIL,
    "util/util_test.go": UTIL_TEST,
    "app/main.go": MAIN,
    "dot/dot.go": DOT,
}


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


def calls_from(repo, src):
    return {(d, c, r) for s, d, c, r in edges(repo, "CALLS") if s == src}


def test_definitions_kinds_qualified_names_and_containment(repo):
    root, _ = repo
    syms = symbols(root)
    store = {u: v for u, v in syms.items() if u.startswith("store/store.go::")}
    q = "example.com/app/store"
    assert store == {
        "store/store.go::": ("module", q, 1, 47),
        "store/store.go::Base": ("struct", f"{q}.Base", 6, 8),
        "store/store.go::Base.closed": ("variable", f"{q}.Base.closed", 7, 7),
        "store/store.go::Base.Close": ("method", f"{q}.Base.Close", 10, 13),
        "store/store.go::Store": ("struct", f"{q}.Store", 15, 19),
        "store/store.go::Store.items": ("variable", f"{q}.Store.items", 17, 17),
        "store/store.go::Store.log": ("variable", f"{q}.Store.log", 18, 18),
        "store/store.go::Getter": ("interface", f"{q}.Getter", 21, 23),
        "store/store.go::Getter.Get": ("method", f"{q}.Getter.Get", 22, 22),
        "store/store.go::ReadGetter": ("interface", f"{q}.ReadGetter", 25, 28),
        "store/store.go::ReadGetter.Get": ("method", f"{q}.ReadGetter.Get", 27, 27),
        "store/store.go::ID": ("type_alias", f"{q}.ID", 30, 30),
        "store/store.go::Count": ("type_alias", f"{q}.Count", 32, 32),
        "store/store.go::Default": ("variable", f"{q}.Default", 34, 34),
        "store/store.go::Limit": ("variable", f"{q}.Limit", 36, 36),
        "store/store.go::Other": ("variable", f"{q}.Other", 36, 36),
        "store/store.go::NewStore": ("function", f"{q}.NewStore", 38, 40),
        "store/store.go::Store.Get": ("method", f"{q}.Store.Get", 42, 46),
    }
    # a method declared in another file than its type is `Type.Method` there
    assert syms["store/lookup.go::Store.lookup"] == ("method", f"{q}.Store.lookup", 7, 9)
    assert syms["app/main.go::"][:2] == ("module", "example.com/app/app")
    contains = edges(root, "CONTAINS")
    assert ("store/store.go::Store", "store/store.go::Store.Get") in contains
    assert ("store/store.go::Getter", "store/store.go::Getter.Get") in contains
    assert ("store/store.go::Base", "store/store.go::Base.closed") in contains
    # edges belong to the file of their source, so the other file's module holds it
    assert ("store/lookup.go::", "store/lookup.go::Store.lookup") in contains
    assert not any(dst == "store/lookup.go::Store.lookup" and src != "store/lookup.go::"
                   for src, dst in contains)  # fmt: skip


def test_package_scope_spans_the_files_of_a_package(repo):
    root, _ = repo
    assert calls_from(root, "store/lookup.go::Store.lookup") == {
        ("store/lookup.go::helper", 1.0, "scope")
    }
    # a package-level initializer runs in the module
    assert calls_from(root, "store/store.go::") == {("store/store.go::NewStore", 1.0, "scope")}
    # an internal test file is part of its package
    assert calls_from(root, "util/util_test.go::TestFunc") == {
        ("util/util.go::Func", 1.0, "scope"),
        ("<external>::testing.T.Fatal", 0.8, "local-type"),
    }


def test_imports_aliased_dot_blank_and_external(repo):
    root, _ = repo
    imports = edges(root, "IMPORTS")
    assert {(s, d) for s, d in imports if s == "app/main.go::"} == {
        ("app/main.go::", "<external>::os"),
        ("app/main.go::", "<external>::reflect"),
        # the files that define what main.go uses of the package (`store.Cache` is in cache.go)
        ("app/main.go::", "store/store.go::"),
        ("app/main.go::", "store/cache.go::"),
        ("app/main.go::", "store/lookup.go::"),
        # aliased (u.Func) and blank (its init) imports of util
        ("app/main.go::", "util/util.go::"),
    }
    assert ("dot/dot.go::", "util/util.go::") in imports
    assert ("util/util.go::", "<external>::fmt") in imports
    assert calls_from(root, "dot/dot.go::Use") == {("util/util.go::Func", 1.0, "import")}
    assert calls_from(root, "util/util.go::Func") == {("<external>::fmt.Sprint", 1.0, "import")}


def test_calls_through_imports_builtins_and_conversions(repo):
    root, report = repo
    run = calls_from(root, "app/main.go::App.Run")
    assert ("util/util.go::Func", 1.0, "import") in run
    assert ("<external>::os.Exit", 1.0, "import") in run
    # `store.Count(3)` converts: no call, a reference to the type; `len` is a builtin
    assert not any(d.endswith("::Count") for d, _, _ in run)
    refs = edges(root, "REFERENCES")
    assert ("app/main.go::App.Run", "store/store.go::Count", 1.0, "import") in refs
    # `mystery()` is defined nowhere: counted, not guessed; `.Get` on its result neither
    assert report.calls["builtin"] == 3  # and err.Error() below
    assert report.calls["unresolved"] == 5
    assert report.calls["total"] == 39


def test_unknown_receivers_guess_only_when_nothing_says_external(repo):
    root, _ = repo
    # IsNil is defined once in the repository (Cache.IsNil); a reflect.Value is not ours, so
    # reflect.ValueOf(v).Elem().IsNil() stays unresolved, while nowhere().IsNil() may be it
    assert calls_from(root, "app/main.go::App.Unknown") == {
        ("<external>::reflect.ValueOf", 1.0, "import"),
        ("store/cache.go::Cache.IsNil", 0.5, "unique-name"),
    }


def test_receivers_with_evident_types(repo):
    root, _ = repo
    # the method's receiver
    assert calls_from(root, "store/store.go::Store.Get") == {
        ("store/lookup.go::Store.lookup", 0.9, "self"),
        # promoted from the embedded Base
        ("store/store.go::Base.Close", 0.9, "inheritance"),
        # a field's declared type
        ("store/lookup.go::Logger.Printf", 0.8, "local-type"),
    }
    assert calls_from(root, "app/main.go::App.Fields") == {
        ("store/store.go::Store.Get", 0.8, "local-type")
    }
    # x := store.NewStore() (declared result *Store), var c store.Cache
    assert calls_from(root, "app/main.go::App.Locals") == {
        ("store/store.go::NewStore", 1.0, "import"),
        ("store/store.go::Base.Close", 0.8, "local-type"),
        ("store/cache.go::Cache.Get", 0.8, "local-type"),
    }
    assert calls_from(root, "app/main.go::App.Literal") == {
        ("store/store.go::Store.Get", 0.8, "local-type")
    }
    # a package variable typed by its initializer, and a type assertion
    assert calls_from(root, "app/main.go::App.Global") == {
        ("store/store.go::Store.Get", 0.8, "local-type")
    }
    assert calls_from(root, "app/main.go::App.Assert") == {
        ("store/store.go::Store.Get", 0.8, "local-type")
    }
    assert calls_from(root, "app/main.go::main") == {("app/main.go::App.Run", 0.8, "local-type")}


def test_results_and_elements_type_receivers(repo):
    root, _ = repo
    # `s, err := store.Open()`: s is the first result, err the builtin error; elements of a
    # slice-typed result (`type Stores []*Store`) through range and indexing
    assert calls_from(root, "app/main.go::App.Results") == {
        ("store/lookup.go::Open", 1.0, "import"),
        ("store/lookup.go::All", 1.0, "import"),
        ("store/store.go::Store.Get", 0.8, "local-type"),
        ("store/store.go::Base.Close", 0.8, "local-type"),
    }
    assert calls_from(root, "store/lookup.go::Stores.Each") == {
        ("store/store.go::Base.Close", 0.8, "local-type"),
        ("store/lookup.go::Store.lookup", 0.8, "local-type"),
    }


def test_embedding_is_extends(repo):
    root, _ = repo
    assert edges(root, "EXTENDS") == {
        ("store/store.go::Store", "store/store.go::Base"),
        ("store/store.go::ReadGetter", "<external>::io.Reader"),
    }


def test_interface_calls_fan_out_to_structural_implementations(repo):
    root, _ = repo
    run = calls_from(root, "app/main.go::App.Run")
    assert {e for e in run if "Get" in e[0]} == {
        ("store/store.go::Getter.Get", 0.8, "local-type"),
        ("store/store.go::Store.Get", 0.7, "dispatch"),
        ("store/cache.go::Cache.Get", 0.7, "dispatch"),
        ("store/cache.go::Partial.Get", 0.7, "dispatch"),
    }
    # name-based method sets; ReadGetter embeds io.Reader, whose methods we cannot see
    assert edges(root, "IMPLEMENTS") == {
        ("store/store.go::Store", "store/store.go::Getter"),
        ("store/cache.go::Cache", "store/store.go::Getter"),
        ("store/cache.go::Partial", "store/store.go::Getter"),
    }


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
