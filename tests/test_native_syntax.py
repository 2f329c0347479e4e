"""The native call-site walk (native/syntax.c) against the query path it replaces.

Both paths run in this process on real parses: `extract(source, native=False)` finds the
calls with the query pattern P_CALL, `extract(source)` with `python_calls`. Their facts must
be byte-identical, and `python_calls` must list the calls in the order of the query's
matches. Each blob is taken right after its extraction: marshal writes a string shared
with the chain caches as a reference, so a blob depends on what those caches hold then.
"""

from __future__ import annotations

import os
from importlib import metadata
from pathlib import Path

import pytest
import tree_sitter as ts

from codeimpact.indexer.languages import python as py
from codeimpact.native import syntax
from conftest import fetch_sdist

native = pytest.mark.skipif(
    syntax.python_calls is None,
    reason=f"native walk unavailable (vendored tree-sitter {syntax.VENDORED_TREE_SITTER}, "
    f"installed {metadata.version('tree-sitter')})",
)


def query_calls(source: bytes) -> list[tuple]:
    """What the query path computes per P_CALL match, in match order."""
    root = py._parser().parse(source).root_node
    out = []
    for pattern, caps in ts.QueryCursor(py._query()).matches(root):
        if pattern == py.P_CALL:
            fn = caps["callee"][0]
            args = py._args(caps["args"][0], source)
            out.append((fn.start_byte, fn.end_byte, fn.start_point[0] + 1, args))
    return out


def native_calls(source: bytes) -> list[tuple] | None:
    tree = py._parser().parse(source)
    return syntax.python_calls(tree.root_node, source, py._chain)


def assert_same(source: bytes) -> None:
    calls = native_calls(source)
    assert calls is not None, "the walk gave up on this tree"
    assert calls == query_calls(source)
    native_blob = py.extract(source).to_bytes()
    query_blob = py.extract(source, native=False).to_bytes()
    assert native_blob == query_blob


EDGE_CASES = {
    "nested": "f(g(x), h(i(y)))\n",
    "chained": "g(x).f(y)\n",
    "call_of_call": "a.b(c)(d)\n",
    "call_chain": "x.m(a).n(b).o(c)(d)[e](f)\n",
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
        """,
    "lambdas": "k = lambda x, *r, y=f(z), **kw: x.m(y, r)\nsort(key=lambda e: e.get(n))\n",
    "comprehensions": """
        [x.f(y) for x in xs if g(x)]
        {k: v(k) for k, v in d.items()}
        {s.t(u) for s in ss}
        list(p.q(r) for p in ps)
        [[a.b(c) for a in row] for row in grid]
        """,
    "keywords": "f(a, b=c, d=e.f, g=h(), i=j[k], l=m . n, o=1)\n",
    "splats": "f(a, *b, c, **d, e=f)\ng(*a)\nh(**k)\ni(x, *y, z=w)\nj(p, *q, *r, s)\n",
    "generic": "A[int]()\nB[str, int](x)\nC[D[E]](y=z)\n",
    "empty": "f()\na.b()\nc()()\n",
    "generator_argument": "f(x for x in y)\ng(a.b for a in c)\nsum(v.n for v in w)\n",
    "non_ascii": "café(naïve, ключ=значение)\nobj.método(ñ)\n名前(値, 鍵=値)\n",
    "comments": "f(a,  # one\n  b, # two\n  c=d)\n(g  # three\n)(h)\n",
    "whitespace": "a . b ( c . d , e =\n f . g )\nx(\n    y\n    .z\n)\n",
    "continuation": "f(a.\\\n b)\ng \\\n(c)\n",
    "other_callees": '"".join(x)\n(a or b)(c)\nf(x)[0](y)\nd[k](v)\nawait f(x)\nsuper().__init__(*args, **kwargs)\n',
    "match": "match f(x):\n    case A(b=c):\n        g(c)\n    case _:\n        pass\n",
    "syntax_errors": "f(a, b\ng(c)\ndef x(:\n    h(y)\nf(,)\nf(a b)\nprint x.y(z)\nk(l))\n",
    "missing": "f(x\n",
    "unclosed": "f(g(h(\n",
    "errors_in_arguments": "f(a, $, b=c, `d`)\ng(** , e)\nh(i=)\n",
    "python2": 'print "x" % f(y)\nexec code in g(z)\n',
    "deep": "f(" * 2000 + "x" + ")" * 2000 + "\n" + "a" + "(b)" * 2000 + "\n",
    "no_calls": "x = 1\n",
    "empty_file": "",
}


@native
@pytest.mark.parametrize("name", sorted(EDGE_CASES))
def test_edge_cases(name):
    import textwrap

    assert_same(textwrap.dedent(EDGE_CASES[name]).encode())


@native
def test_order_and_values():
    # the inner call of `g(x).f(y)` finishes first; the arguments of `f(g(x))` are entered
    # before those of g, so f comes first there
    src = b"g(x).f(y)\nf(g(x))\n"
    assert native_calls(src) == [
        (0, 1, 1, ((0, "x"),)),
        (0, 6, 1, ((0, "y"),)),
        (10, 11, 2, ()),
        (12, 13, 2, ((0, "x"),)),
    ]
    src = b"f(a, *b, c, k=v.w, **d)\nf(x for x in y)\n"
    assert native_calls(src) == [(0, 1, 1, ((0, "a"), ("k", "v.w"))), (24, 25, 2, ())]
    assert py.extract(src).calls == py.extract(src, native=False).calls


@native
def test_wrong_objects_raise_type_error():
    src = b"f(x)\n"
    tree = py._parser().parse(src)
    for bad in (tree, None, 1, "f(x)", ts.Point(0, 0), object()):
        with pytest.raises(TypeError):
            syntax.python_calls(bad, src, py._chain)
    with pytest.raises(TypeError):
        syntax.python_calls(tree.root_node, "f(x)\n", py._chain)  # source must be bytes
    with pytest.raises(TypeError):
        syntax.python_calls(tree.root_node, src)


@native
def test_other_grammars_give_none():
    """A grammar without `call` and its fields is not walked: the caller uses its query."""
    from tree_sitter_language_pack import get_parser

    src = b'{"a": [1, 2]}'
    tree = get_parser("json").parse(src)
    assert syntax.python_calls(tree.root_node, src, py._chain) is None


def test_native_is_used_when_the_versions_match():
    if syntax.VENDORED_TREE_SITTER is None:
        pytest.skip("the _syntax extension is not built")
    matches = metadata.version("tree-sitter") == syntax.VENDORED_TREE_SITTER
    assert (syntax.python_calls is not None) == matches


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


@native
def test_django_facts_are_identical(django):
    files = sorted(django.rglob("*.py"))
    assert len(files) > 2000
    differ = []
    calls = 0
    for path in files:
        source = path.read_bytes()
        facts = py.extract(source)
        native_blob = facts.to_bytes()
        query_blob = py.extract(source, native=False).to_bytes()
        calls += len(facts.calls)
        if native_blob != query_blob:
            differ.append(str(path.relative_to(django)))
    assert not differ, f"{len(differ)} files differ, first: {differ[:5]}"
    assert calls > 100_000
