"""The native match walk (native/syntax.c) against the query path it replaces.

Both paths run in this process on real parses: `extract(source, native=False)` gets its
matches from QueryCursor.matches over python.scm, `extract(source)` from `python_matches`.
The walk must yield the very matches of the query, in its order (the call sites as tuples,
the other patterns' captured nodes, the first syntax error's line), and the facts of both
paths must be byte-identical. Each blob is taken right after its extraction: marshal writes
a string shared with the chain caches as a reference, so a blob depends on what those
caches hold then.
"""

from __future__ import annotations

import os
import random
import textwrap
from importlib import metadata
from pathlib import Path

import pytest
import tree_sitter as ts

from codeimpact.indexer.lang.api import CallFact, FileFacts
from codeimpact.indexer.lang.python import extract as py
from codeimpact.native import syntax
from conftest import fetch_sdist

native = pytest.mark.skipif(
    syntax.python_matches is None,
    reason=f"native walk unavailable (vendored tree-sitter {syntax.VENDORED_TREE_SITTER}, "
    f"installed {metadata.version('tree-sitter')})",
)


def _node(n: ts.Node) -> tuple:
    """A captured node as comparable data (the id, its subtree's address, tells apart the
    nodes of one span in one tree)."""
    return (n.type, n.start_byte, n.end_byte, n.id)


def query_walk(source: bytes, root: ts.Node | None = None) -> tuple[list, list, int | None]:
    """What the query path computes, in match order: the P_CALL tuples, the other matches
    as (pattern, captured nodes in `_CAPTURES` order), and the first error's line."""
    if root is None:
        root = py._parser().parse(source).root_node
    calls, matches = [], []
    for pattern, caps in ts.QueryCursor(py._query()).matches(root):
        assert all(len(nodes) == 1 for nodes in caps.values())
        if pattern == py.P_CALL:
            fn = caps["callee"][0]
            args = py._args(caps["args"][0], source)
            calls.append((fn.start_byte, fn.end_byte, fn.start_point[0] + 1, args))
        else:
            matches.append((pattern, tuple(_node(caps[n][0]) for n in py._CAPTURES[pattern])))
    return calls, matches, py._first_error(root) if root.has_error else None


def native_walk(source: bytes, root: ts.Node | None = None) -> tuple[list, list, int | None] | None:
    if root is None:
        root = py._parser().parse(source).root_node
    found = syntax.python_matches(root, source, py._chain)
    if found is None:
        return None
    calls, matches, error_line = found
    assert all(type(n) is ts.Node for _, nodes in matches for n in nodes)
    return calls, [(p, tuple(_node(n) for n in nodes)) for p, nodes in matches], error_line


def patterns(source: bytes) -> list[int]:
    """The pattern of each non-call match of the native walk, in order."""
    return [p for p, _ in native_walk(source)[1]]


def assert_same(source: bytes) -> None:
    tree = py._parser().parse(source)
    found = native_walk(source, tree.root_node)
    assert found is not None, "the walk gave up on this tree"
    calls, matches, error_line = found
    q_calls, q_matches, q_error_line = query_walk(source, tree.root_node)
    assert calls == q_calls
    assert matches == q_matches
    assert error_line == q_error_line
    facts = py.extract(source)
    native_blob = facts.to_bytes()
    query_blob = py.extract(source, native=False).to_bytes()
    assert native_blob == query_blob
    assert all(type(c) is CallFact for c in facts.calls)


EDGE_CASES = {
    # calls
    "nested": "f(g(x), h(i(y)))\n",
    "chained": "g(x).f(y)\n",
    "call_of_call": "a.b(c)(d)\n",
    "call_chain": "x.m(a).n(b).o(c)(d)[e](f)\n",
    "lambdas": "k = lambda x, *r, y=f(z), **kw: x.m(y, r)\nsort(key=lambda e: e.get(n))\n",
    "keywords": "f(a, b=c, d=e.f, g=h(), i=j[k], l=m . n, o=1)\n",
    "splats": "f(a, *b, c, **d, e=f)\ng(*a)\nh(**k)\ni(x, *y, z=w)\nj(p, *q, *r, s)\n",
    "generic": "A[int]()\nB[str, int](x)\nC[D[E]](y=z)\n",
    "empty": "f()\na.b()\nc()()\n",
    "generator_argument": "f(x for x in y)\ng(a.b for a in c)\nsum(v.n for v in w)\n",
    "non_ascii": "café(naïve, ключ=значение)\nobj.método(ñ)\n名前(値, 鍵=値)\n",
    "comments": "f(a,  # one\n  b, # two\n  c=d)\n(g  # three\n)(h)\n",
    "whitespace": "a . b ( c . d , e =\n f . g )\nx(\n    y\n    .z\n)\n",
    "continuation": "f(a.\\\n b)\ng \\\n(c)\n",
    "other_callees": '"".join(x)\n(a or b)(c)\nf(x)[0](y)\nd[k](v)\nawait f(x)\n'
    "super().__init__(*args, **kwargs)\n",
    # definitions
    "decorators": """
        @app.route("/x", methods=m)
        @dec
        @d(a)(b)
        @outer(inner(k=v))
        def f(p=g(q)) -> h(r):
            return s(t)

        @register(Model)
        class C(Base(x)):
            @property
            def p(self):
                return self.q(z)

            @p.setter
            def p(self, value: int) -> None:
                self._p = value
        """,
    "decorator_arguments": """
        @a.b(c(d), e=f.g(h))
        @i(lambda j: j.k(), [m.n() for m in o])
        @(p or q)(r)
        def s():
            @t(u())
            class V:
                @w(x.y(z))
                def v(self): return self.v(u())
            return V(t(1))

        class W:
            @staticmethod
            @cache(maxsize=size())
            async def w(): await w.x()
            w2 = w()
        f(after())
        """,
    "local_renames": """
        x = [a.b() for a in c if a.d(e)]
        a.b()
        y = {k.m(): v.n(k) for k, v in d.items() if k.p()}
        z = [[q.r(p) for q in p.s()] for p in t(u)]
        w = lambda g, h=1, *i, j, **k: g.l(h.m(), i.n(), j.o(), k.p(), q.r())
        g.l()
        sorted(xs, key=lambda s: s.strip().lower())
        [lambda a: a.b() for a in c]
        (lambda f: [f.g(f) for f in f.h()])(f.i())
        def fn(a):
            return [a.b(b) for b in a.c()], a.d()
        class K:
            def m(self):
                return {self.n(s) for s in self.t()} | {s.u() for s in ()}
        """,
    "unknown_callees": """
        (a or b)(c)
        (lambda: 1)()
        (lambda: 2)()
        "".join(x)
        b"x".decode()
        f"{y}".format(z)
        "a" "b".c1()
        1 .real()
        [1][0]()
        (yield)()
        g(x)(y)(z)
        h[i](j)
        k.l2_3()
        m . n ()
        obj.método(ñ)
        café()
        x.é1()
        (x)()
        (x.y)()
        (x.y)\
            .z()
        def f():
            (a or b)(c)
            "".join(x)
        """,
    "nested_scopes": """
        def f(a=g(), *, b=h.i()):
            j()
            class C(D(k())):
                x = l()
                def m(self, n=o()):
                    p()
                    def q():
                        r()
                    s()
                t()
            def f():
                u()
            v()
        def f():
            w()
        class C:
            def m(self): y()
            def m(self): z()
        aa()
        if x:
            def g(): bb()
        else:
            def g(): cc()
        dd()
        """,
    "classes_and_functions": """
        class A(B, metaclass=M):
            x = 1
            class Inner:
                def m(self): pass
            async def n(self, *, k): return await k
        def f(a, /, b, *c, d, **e):
            def g(): return a
            return g
        class E[T](Base[T]):
            def k[U](self, u: U) -> T: ...
        """,
    "definitions_with_errors": """
        class A(:
            pass
        def f(x:
            return x
        class B
            def g(self): return 1
        def h() -> :
            pass
        def (self): pass
        class : pass
        def k(a: int, b: = 2) -> str:
            return a
        """,
    # assignments and annotations
    "assignments": """
        a = b = c
        a = b = c = f()
        x, y = z = w
        self.a = self.b = None
        [p, q] = r
        (s, t) = u, v
        x.y += 1
        d[k] = v
        __all__ = ["a", "b"]
        __all__ = ("c",  # comment
                   "d")
        """,
    "annotated": """
        x: int = 1
        y: "Forward"
        self.z: Optional[T] = None
        a.b: int
        (p): int = 2
        c: dict[str, list[int]] = {}
        d: A | None = e
        e: int = f: str = 1
        """,
    "annotations_in_parameters": """
        def f(a: int, b: list[str] = [], *args: A, c: B.C = d, **kw: "E") -> F | None:
            g: G = h
            return a
        async def g(self, x: Callable[[int], str]) -> AsyncIterator[T]: ...
        lambda a, b=1: a
        """,
    "type_alias": "type X = int\ntype Y[T] = list[T]\nx: type = type\n",
    "comprehensions_in_targets": """
        d[[k for k in ks][0]] = v
        x[i for i in j] = 1
        [x for x in y] = z
        {a: b for a, b in c}[k]: int = 2
        a = [x.m() for x in y if x] = b
        """,
    # control flow
    "returns": """
        def f():
            return
        def g():
            return x
        def h():
            return a, b
        def i():
            return f(x)
        def j():
            return (  # c
                x)
        def k():
            return x  # c
        def l():
            return # c
        def m():
            return \\
                x
        def n():
            return lambda: (yield)
        return x
        """,
    "returns_with_errors": """
        def f():
            return a b
        def g():
            return a, $ b
        def h():
            return return x
        def i():
            return (a  # c
        """,
    "walrus": """
        if (n := len(a)) > 1: pass
        with (y := f()) as z: pass
        with f(w := g()) as v: pass
        x = (y := g())
        [(z := i) for i in r]
        while (chunk := read(n := 1)):
            pass
        f(a := b.c, d := e)
        """,
    "with_items": """
        with open(p) as f, lock:
            pass
        with a as (b, c):
            pass
        with a as b.c, d as e[0]:
            pass
        with (a as b, c() as d):
            pass
        async def f():
            async with s() as t, u.v as w:
                pass
        with a as b, c as d, e:
            pass
        with a as b as c:
            pass
        with (a, b) as c:
            pass
        """,
    "for_loops": """
        for i in x:
            pass
        for i, j in y.items():
            pass
        for (a, b) in z:
            pass
        async def f():
            async for q in aiter():
                pass
        for x in a, b:
            pass
        else:
            pass
        for x.y in z: pass
        for [p, *q] in r: pass
        """,
    "comprehensions": """
        [x.f(y) for x in xs if g(x)]
        {k: v(k) for k, v in d.items()}
        {s.t(u) for s in ss}
        list(p.q(r) for p in ps)
        [[a.b(c) for a in row] for row in grid]
        [y for x in xs for y in x.children]
        [x async for x in aiter()]
        """,
    "imports": """
        import a
        import a.b as c, d
        from . import x
        from ..m import (a as b, c)
        from m import *
        from __future__ import annotations
        def f():
            import g
            from h import i
        import
        from import x
        """,
    "match": "match f(x):\n    case A(b=c):\n        g(c)\n    case _:\n        pass\n",
    # broken input
    "syntax_errors": "f(a, b\ng(c)\ndef x(:\n    h(y)\nf(,)\nf(a b)\nprint x.y(z)\nk(l))\n",
    "missing": "f(x\n",
    "missing_at_start": ":\n    x.y(1)\n",  # a MISSING node at byte 0: captures() skips it
    "unclosed": "f(g(h(\n",
    "errors_in_arguments": "f(a, $, b=c, `d`)\ng(** , e)\nh(i=)\n",
    "python2": 'print "x" % f(y)\nexec code in g(z)\n',
    # valid Python that tree-sitter recovers from with a class body starting after its
    # methods' (the stdlib's test_compile.py): the scope intervals are not in start order
    "unsorted_scopes": (
        "class T:\n    def check(self):\n        pass\n\n    def test_weird(self):\n"
        "        def f():\n            (bar.\n        baz)\n            (bar.\n"
        "        baz(\n        ))\n            files().setdefault(\n                0\n"
        "            ).update(\n                **{\n                    'a': 1,\n"
        "                }\n            )\n"
    ),
    "deep": "f(" * 2000 + "x" + ")" * 2000 + "\n" + "a" + "(b)" * 2000 + "\n",
    "deep_blocks": "".join("    " * i + f"def f{i}(a: int) -> A{i}:\n" for i in range(100))
    + "    " * 100
    + "return x\n",
    "no_calls": "x = 1\n",
    "only_comment": "# nothing\n",
    "empty_file": "",
}


@native
@pytest.mark.parametrize("name", sorted(EDGE_CASES))
def test_edge_cases(name):
    assert_same(textwrap.dedent(EDGE_CASES[name]).encode())


@native
def test_every_pattern_is_covered():
    found = set()
    for source in EDGE_CASES.values():
        found.update(patterns(textwrap.dedent(source).encode()))
    assert found == set(range(16)) - {py.P_CALL}


@native
def test_mutated_sources():
    """Broken code: pieces of the edge cases with characters cut, repeated and inserted."""
    rng = random.Random(5)
    tokens = ["(", ")", ":", "=", " as ", "lambda ", "return ", "# c\n", "\n", "    ", ":=", ","]
    sources = [textwrap.dedent(s) for s in EDGE_CASES.values() if len(s) < 2000]
    for _ in range(300):
        s = rng.choice(sources)
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(s) + 1)
            if rng.random() < 0.4:
                s = s[:i] + s[i + rng.randint(1, 10) :]
            else:
                s = s[:i] + rng.choice(tokens) + s[i:]
        assert_same(s.encode())


@native
def test_order_and_values():
    # the inner call of `g(x).f(y)` finishes first; the arguments of `f(g(x))` are entered
    # before those of g, so f comes first there
    src = b"g(x).f(y)\nf(g(x))\n"
    calls, matches, error_line = native_walk(src)
    assert calls == [
        (0, 1, 1, ((0, "x"),)),
        (0, 6, 1, ((0, "y"),)),
        (10, 11, 2, ()),
        (12, 13, 2, ((0, "x"),)),
    ]
    assert matches == [] and error_line is None
    src = b"f(a, *b, c, k=v.w, **d)\nf(x for x in y)\n"
    calls, matches, _ = native_walk(src)
    assert calls == [(0, 1, 1, ((0, "a"), ("k", "v.w"))), (24, 25, 2, ())]
    assert [p for p, _ in matches] == [py.P_COMPFOR]
    assert py.extract(src).calls == py.extract(src, native=False).calls


@native
def test_match_order():
    """A match comes out when the walk reaches its last captured node; on one node, the
    match whose pattern root is higher up first, then the lower pattern index."""
    # the parameter annotations and the return annotation finish before the function
    # (at its body), the return statement after it
    assert patterns(b"def f(a: int) -> str:\n    return a\n") == [
        py.P_ANNOTATION,
        py.P_ANNOTATION,
        py.P_FUNCTION,
        py.P_RETURN,
    ]
    # x: int = 1 -- the annotated assignment and the annotation both finish at `int`, the
    # assignment at `1`
    assert patterns(b"x: int = 1\n") == [py.P_ANNASSIGN, py.P_ANNOTATION, py.P_ASSIGN]
    # a = b = c -- the outer assignment finishes on entering the inner one
    _, matches, _ = native_walk(b"a = b = c\n")
    assert [(p, nodes[0][1:3]) for p, nodes in matches] == [
        (py.P_ASSIGN, (0, 9)),
        (py.P_ASSIGN, (4, 9)),
    ]
    # the walrus in a with item finishes at its value, before the item (at its name)
    assert patterns(b"with (y := f()) as z:\n    pass\n") == [py.P_WALRUS, py.P_WITH]
    # a decorator comes before its function, whose class finishes before it (at its body)
    src = b"class C:\n    @d\n    def f(self): pass\n"
    assert patterns(src) == [py.P_CLASS, py.P_DECORATOR, py.P_FUNCTION]
    # a return statement with two named children (a line continuation is one) matches
    # once per child; an ERROR child is no `(_)`
    src = b"def f():\n    return \\\n        x\n    return a b\n"
    root = py._parser().parse(src).root_node
    assert [p for p, _ in native_walk(src, root)[1]].count(py.P_RETURN) == 3
    assert native_walk(src, root)[1] == query_walk(src, root)[1]


@native
def test_error_line():
    assert native_walk(b"x = 1\n")[2] is None
    assert native_walk(b"x = 1\ndef f(:\n    pass\n")[2] == 2
    assert native_walk(b"x = (\n")[2] == 1
    assert native_walk(b":\n    x.y(1)\n")[2] is None  # as QueryCursor.captures has it


@native
def test_wrong_objects_raise_type_error():
    src = b"f(x)\n"
    tree = py._parser().parse(src)
    for bad in (tree, None, 1, "f(x)", ts.Point(0, 0), object()):
        with pytest.raises(TypeError):
            syntax.python_matches(bad, src, py._chain)
    with pytest.raises(TypeError):
        syntax.python_matches(tree.root_node, "f(x)\n", py._chain)  # source must be bytes
    with pytest.raises(TypeError):
        syntax.python_matches(tree.root_node, src)


@native
def test_python_facts_refuses_bad_input():
    """python_facts checks its arguments before it adds anything to the facts."""
    src = b"def f():\n    g(x)\n"
    root = py._parser().parse(src).root_node
    bad = [
        (root, "f(x)", set(), py._ENV),  # source must be bytes
        (root, src, [], py._ENV),  # module_vars must be a set
        (root, src, set(), py._ENV[:-1]),  # env too short
        (root, src, set(), (*py._ENV[:-1], dict)),  # a fact type that is not a tuple
        (None, src, set(), py._ENV),
    ]
    for args in bad:
        facts = FileFacts(language="python")
        with pytest.raises(TypeError):
            syntax.python_facts(args[0], args[1], facts, *args[2:])
        assert facts == FileFacts(language="python")
    facts = FileFacts(language="python")
    assert syntax.python_facts(root, src, facts, set(), py._ENV) == 0  # no syntax error
    assert [(s.local, s.kind) for s in facts.symbols] == [("f", "function")]
    assert facts.calls == [CallFact("f", "g", 2, "call", ((0, "x"),))]
    with pytest.raises(ValueError):  # a source that is not the tree's: an error, no crash
        syntax.python_facts(root, b"f(", FileFacts(language="python"), set(), py._ENV)
    broken = py._parser().parse(b"x = 1\nf(:\n").root_node
    assert syntax.python_facts(broken, b"x = 1\nf(:\n", facts, set(), py._ENV) == 2


def test_chain_functions_are_pythons():
    """chain_text and callee_chain_text answer as python.py's Python versions (the reference),
    on token soups that mix names, dots, brackets, quotes, escapes and odd bytes."""
    if syntax.chain_text is None:
        pytest.skip("the _syntax extension is not built")
    rng = random.Random(11)
    tokens = [b"a", b"b_1", b".", b" ", b"\n", b"(", b")", b"[", b"]", b"'", b'"', b"'''",
              b'"""', b"\\", b"1", b"\xc3\xa9", b"#", b",", b"\t", b"\x0b", b"\x1c"]  # fmt: skip
    for _ in range(20000):
        text = b"".join(rng.choice(tokens) for _ in range(rng.randint(0, 12)))
        assert syntax.chain_text(text) == py._py_chain(text), text
        assert syntax.callee_chain_text(text, py._py_chain) == py._py_callee_chain(text), text
    # a one-character chain is the runtime's shared string, as bytes.decode() makes it
    assert syntax.chain_text(b"x") is b"x".decode()
    assert syntax.callee_chain_text(b"a . b [c] (d)", py._py_chain) == "a.b[]()"
    with pytest.raises(TypeError):
        syntax.chain_text("a.b")


@native
def test_other_grammars_give_none():
    """A grammar without the patterns' symbols and fields is not walked: the caller uses its
    query."""
    from tree_sitter_language_pack import get_parser

    src = b'{"a": [1, 2]}'
    tree = get_parser("json").parse(src)
    assert syntax.python_matches(tree.root_node, src, py._chain) is None
    facts = FileFacts(language="python")
    assert syntax.python_facts(tree.root_node, src, facts, set(), py._ENV) is None
    assert facts == FileFacts(language="python")  # nothing added


def test_native_patterns_are_python_scm():
    """The walk implements python.scm's patterns, with the captures python.py reads."""
    if syntax.VENDORED_TREE_SITTER is None:
        pytest.skip("the _syntax extension is not built")
    text = (Path(py.__file__).parent / "queries.scm").read_text()
    assert py._patterns(text) == syntax.PYTHON_PATTERNS
    assert syntax.PYTHON_CAPTURES == py._CAPTURES
    assert len(py._CAPTURES) == py._query().pattern_count


def test_native_is_used_when_the_versions_match():
    if syntax.VENDORED_TREE_SITTER is None:
        pytest.skip("the _syntax extension is not built")
    matches = metadata.version("tree-sitter") == syntax.VENDORED_TREE_SITTER
    assert (syntax.python_matches is not None) == matches
    assert (syntax.python_facts is not None) == matches
    assert (py._native_walk() is not None) == matches


@pytest.fixture(scope="module")
def django(request, tmp_path_factory) -> Path:
    """Django 5.2.8's sdist, as benchmarks/sources.py finds it: $CODEIMPACT_DJANGO or
    /tmp/corpus first, else `pip download` into the pytest cache; skips offline."""
    for candidate in (os.environ.get("CODEIMPACT_DJANGO"), "/tmp/corpus/django-5.2.8"):
        if candidate and Path(candidate).is_dir():
            return Path(candidate)
    if getattr(request.config, "cache", None) is not None:
        cache = Path(request.config.cache.mkdir("codeimpact-sdists"))
    else:
        cache = tmp_path_factory.mktemp("sdists")
    src = fetch_sdist(cache, "django", "5.2.8")
    if src is None:
        pytest.skip("django 5.2.8 sdist not downloadable (offline?)")
    return src


@pytest.mark.slow
@native
def test_django_facts_are_identical(django):
    """Every Django file: the walk does not give up, yields the query's matches in its
    order, and the facts are byte-identical."""
    files = sorted(django.rglob("*.py"))
    assert len(files) > 2000
    gave_up, differ, facts_differ = [], [], []
    calls = matches = 0
    for path in files:
        name = str(path.relative_to(django))
        source = path.read_bytes()
        root = py._parser().parse(source).root_node
        found = native_walk(source, root)
        if found is None:
            gave_up.append(name)
            continue
        calls += len(found[0])
        matches += len(found[1])
        if found != query_walk(source, root):
            differ.append(name)
        native_blob = py.extract(source).to_bytes()
        query_blob = py.extract(source, native=False).to_bytes()
        if native_blob != query_blob:
            facts_differ.append(name)
    assert not gave_up, f"the walk gave up on {len(gave_up)} files, first: {gave_up[:5]}"
    assert not differ, f"{len(differ)} files' matches differ, first: {differ[:5]}"
    assert not facts_differ, f"{len(facts_differ)} files' facts differ: {facts_differ[:5]}"
    assert calls > 100_000 and matches > 100_000
