"""The native fact engine (native/facts.c) against the query path it stands in for.

Both paths run in this process on real parses: `extract(source, native=False)` makes the
Python facts from py-tree-sitter's QueryCursor matches of queries.scm with the Python
rules of indexer/lang/python/extract.py, `extract(source)` runs the native engine over the
same query with the language's node roles. The facts of both must be byte-identical, on
hand-made corner cases, on mutated sources and on every file of Django and of the standard
library; the runner's matches must be the query's (its walk, query.c's own cursor and
py-tree-sitter's QueryCursor). Each blob is taken right after its extraction: marshal
writes a string shared with the chain caches as a reference, so a blob depends on what
those caches hold then.
"""

from __future__ import annotations

import os
import random
import sysconfig
import textwrap
from pathlib import Path

import pytest
import tree_sitter as ts
from tree_sitter_language_pack import get_language

from codeimpact.indexer.lang import api
from codeimpact.indexer.lang.api import CallFact, FileFacts
from codeimpact.indexer.lang.python import chain_syntax, chains
from codeimpact.indexer.lang.python import extract as py
from codeimpact.indexer.lang.queries import query_text
from codeimpact.native.runner import native_status, native_syntax
from conftest import fetch_sdist
from python_edge_cases import EDGE_CASES

native = pytest.mark.skipif(not native_status().used, reason=native_status().reason)


def _node(n: ts.Node | None) -> tuple | None:
    """A captured node as comparable data (the id, its subtree's address, tells apart the
    nodes of one span in one tree)."""
    return None if n is None else (n.type, n.start_byte, n.end_byte, n.id)


class Matches:
    """python's queries.scm three ways: the native walk, query.c's cursor in the native
    runner, and py-tree-sitter's QueryCursor."""

    def __init__(self) -> None:
        text = query_text(py.__package__, "queries.scm")
        self.native = native_syntax().Query(get_language("python"), text)
        self.reference = ts.Query(get_language("python"), text)
        self.names = [self.native.pattern_captures(p) for p in range(self.native.pattern_count)]

    def three_ways(self, root: ts.Node) -> tuple[list, list, list]:
        walk = [(p, tuple(map(_node, nodes))) for p, nodes in self.native.matches(root)]
        cursor = [
            (p, tuple(map(_node, nodes))) for p, nodes in self.native.matches(root, cursor=True)
        ]
        reference = [
            (p, tuple(_node(caps[n][0]) if n in caps else None for n in self.names[p]))
            for p, caps in ts.QueryCursor(self.reference).matches(root)
        ]
        return walk, cursor, reference


def test_plain_tuples_are_the_comprehensions(monkeypatch):
    """plain_tuples (FileFacts.to_bytes) gives `[tuple(x) for x in items]` object for object:
    an exact tuple is itself, a fact's items go into a new plain tuple (marshal writes a
    shared object as a reference, so the blobs depend on it)."""
    ext = native_syntax()
    if ext is None:
        pytest.skip(native_status().reason)
    fact = CallFact("f", "g", 3, "call", (), ())
    exact, other = ("a", 1), CallFact("", "h", 1, "call", ((0, "x"),), ())
    items = [fact, exact, other, [1, 2]]
    out = ext.plain_tuples(items)
    assert out == [tuple(x) for x in items]
    assert [type(t) for t in out] == [tuple] * 4
    assert out[1] is exact and out[0] is not fact
    assert all(a is b for a, b in zip(out[0], fact, strict=True))
    with pytest.raises(TypeError):
        ext.plain_tuples((fact,))
    source = (Path(__file__).parent / "python_edge_cases.py").read_bytes()
    facts = py.extract(source)
    monkeypatch.setattr(api, "_facts_dumps", lambda: None)  # (marshal's way, which they feed)
    blob = facts.to_bytes()
    monkeypatch.setattr(api, "_plain_tuples", lambda: api._plain)
    assert facts.to_bytes() == blob


@pytest.fixture(scope="module")
def matches() -> Matches:
    return Matches()


def same_facts(source: bytes, root: ts.Node | None = None) -> bool:
    if root is None:
        root = py._parser().parse(source).root_node
    facts = py.facts_of_tree(root, source)
    native_blob = facts.to_bytes()
    query_blob = py.facts_of_tree(root, source, native=False).to_bytes()
    assert all(type(c) is CallFact for c in facts.calls)
    return native_blob == query_blob


def assert_same(source: bytes, matches: Matches) -> None:
    root = py._parser().parse(source).root_node
    walk, cursor, reference = matches.three_ways(root)
    assert walk == reference
    assert cursor == reference
    assert same_facts(source, root)


@native
@pytest.mark.parametrize("name", sorted(EDGE_CASES))
def test_edge_cases(name, matches):
    assert_same(textwrap.dedent(EDGE_CASES[name]).encode(), matches)


@pytest.mark.parametrize("native_path", [True, False])
def test_a_long_call_chain_makes_facts_linear_in_its_length(native_path):
    """Each call of `a.b().b()...` names the chain of all before it: without
    chain_syntax.MAX_GROUPS, 4,000 calls (16 KB) made 32 MB of facts."""
    if native_path and native_syntax() is None:
        pytest.skip(native_status().reason)
    facts = py.extract(b"x = a" + b".b()" * 4000 + b"\n", native=native_path)
    assert len(facts.calls) == 4000
    # the callee of the k-th call is `b` on a receiver of k - 1 steps: `?.b` past the limit
    assert sum(c.callee == "?.b" for c in facts.calls) == 4000 - chain_syntax.MAX_GROUPS - 1
    assert len(facts.to_bytes()) < 1 << 20
    # in their arguments' order, the innermost first (natively: sorted past add_call's reach)
    assert [c.callee for c in facts.calls[:3]] == ["a.b", "a.b().b", "a.b().b().b"]


@native
def test_items_nested_past_the_limit_are_not_recorded():
    """Both paths cut item facts at items.py MAX_DEPTH (test_edge_cases: alike), deep
    enough that no real container loses its items."""
    from codeimpact.indexer.lang.python.items import MAX_DEPTH

    source = textwrap.dedent(EDGE_CASES["deep_items"]).encode()
    facts = py.extract(source)
    depths = {b.name: b.name.count("[") for b in facts.bindings if b.name[0] in "xy"}
    assert max(depths.values()) == MAX_DEPTH  # its last item is `item:0:[]`, no deeper
    values = {b.value for b in facts.bindings if b.name == "x" + "[0]" * MAX_DEPTH}
    assert values == {"lit:", "item:0:[]"}
    assert "a" not in {b.name for b in facts.bindings}  # 40 patterns deep: cut too


@native
def test_every_construct_is_covered(matches):
    found = set()
    for source in EDGE_CASES.values():
        root = py._parser().parse(textwrap.dedent(source).encode()).root_node
        found.update(p for p, _ in matches.native.matches(root))
    assert found == set(range(matches.native.pattern_count))


@native
def test_mutated_sources(matches):
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
        assert_same(s.encode(), matches)


@native
def test_calls_and_their_arguments():
    # the inner call of `g(x).f(y)` finishes first; the arguments of `f(g(x))` are entered
    # before those of g, so f comes first there
    facts = py.extract(b"g(x).f(y)\nf(g(x))\nf(a, *b, c, k=v.w, **d)\nf(x for x in y)\n")
    assert [(c.callee, c.line, c.args) for c in facts.calls] == [
        ("g", 1, ((0, "x"),)),
        ("g().f", 1, ((0, "y"),)),
        ("f", 2, ()),
        ("g", 2, ((0, "x"),)),
        ("f", 3, ((0, "a"), ("k", "v.w"), ("**", "d"))),  # `**d` spreads d's items as keywords
        ("f", 4, ()),
    ]


@native
def test_error_lines():
    assert py.extract(b"x = 1\n").error == ""
    assert py.extract(b"x = 1\ndef f(:\n    pass\n").error == "syntax error at line 2"
    assert py.extract(b"x = (\n").error == "syntax error at line 1"
    # a MISSING node at byte 0 is no capture of QueryCursor.captures, so no line either way
    assert py.extract(b":\n    x.y(1)\n").error == "syntax error"
    assert py.extract(b":\n    x.y(1)\n", native=False).error == "syntax error"


@native
def test_engine_refuses_bad_input():
    """The engine checks its arguments before it adds anything to the facts."""
    src = b"def f():\n    g(x)\n"
    tree = py._parser().parse(src)
    root = tree.root_node
    engine = py._engine()
    json_root = ts.Parser(get_language("json")).parse(b"[1]").root_node
    for args in [
        (root, "f(x)", set()),  # source must be bytes
        (root, src, []),  # module_vars must be a set
        (tree, src, set()),  # not a Node
        (None, src, set()),
    ]:
        facts = FileFacts(language="python")
        with pytest.raises(TypeError):
            engine.facts(args[0], args[1], facts, args[2])
        assert facts == FileFacts(language="python")
    with pytest.raises(ValueError, match="another language"):
        engine.facts(json_root, b"[1]", FileFacts(language="python"), set())
    facts = FileFacts(language="python")
    assert engine.facts(root, src, facts, set()) == 0  # no syntax error
    assert [(s.local, s.kind) for s in facts.symbols] == [("f", "function")]
    assert facts.calls == [CallFact("f", "g", 2, "call", ((0, "x"),))]
    with pytest.raises(ValueError):  # a source that is not the tree's: an error, no crash
        engine.facts(root, b"f(", FileFacts(language="python"), set())
    broken = py._parser().parse(b"x = 1\nf(:\n").root_node
    assert engine.facts(broken, b"x = 1\nf(:\n", FileFacts(language="python"), set()) == 2


@native
def test_engine_refuses_a_query_outside_the_vocabulary():
    ext = native_syntax()
    lang = get_language("python")
    rules = py.RULES
    good = "(call function: (_) @callee arguments: (_) @arguments) @reference.call"

    def engine(query, roles=rules.roles, fields=rules.fields, options=rules.options):
        return ext.FactEngine(
            lang, query, dict(roles), dict(fields), dict(options), py._HOOKS, py._TYPES
        )

    engine(good)
    with pytest.raises(ValueError, match="capture name"):
        engine("(call) @call")
    with pytest.raises(ValueError, match="construct captures"):
        engine("(call function: (_) @callee)")  # no construct
    with pytest.raises(ValueError, match="construct captures"):
        engine("(call function: (_) @callee) @reference.call @decorator")
    with pytest.raises(ValueError, match="several nodes"):
        engine("(argument_list (identifier)* @name) @reference.call")
    with pytest.raises(ValueError, match="node role"):
        engine(good, roles={"identifier": "nobody"})
    with pytest.raises(ValueError, match="node type"):
        engine(good, roles={"no_such_node": "name"})
    with pytest.raises(ValueError, match="field"):
        engine(good, fields={"body": "no_such_field"})
    with pytest.raises(ValueError, match="option"):
        engine(good, options={"colour": "blue"})
    with pytest.raises(ValueError, match="invalid query"):
        engine("(call")
    with pytest.raises(TypeError):
        ext.FactEngine(lang, good, {}, {}, {}, py._HOOKS[:-1], py._TYPES)


@native
def test_binding_value_forms_are_the_languages():
    """The forms of binding values are the language's options, not text in C: other forms
    given, the engine writes them (the Python ones are the query path's: the tests above)."""
    forms = {"value_enter": "E/", "value_enter_async": "AE/", "value_store": "S/",
             "value_iteration": "I/", "value_literal": "L/", "value_item": "K/",
             "value_position": "P/", "names_suffix": ""}  # fmt: skip
    rules = py.RULES
    engine = native_syntax().FactEngine(
        get_language("python"), query_text(py.__package__, "queries.scm"), dict(rules.roles),
        dict(rules.fields), {**rules.options, **forms}, py._HOOKS, py._TYPES,
    )  # fmt: skip
    src = textwrap.dedent("""\
        __all__ = [g]
        a, b = f()
        async def h():
            async with k() as c:
                for d in e:
                    self.x = d
                    with m:
                        pass
        """).encode()  # fmt: skip
    facts = FileFacts(language="python")
    engine.facts(py._parser().parse(src).root_node, src, facts, set())
    assert [(b.name, b.value) for b in facts.bindings] == [
        ("__all__", "L/"), ("__all__", "K/0:g"), ("a", "P/0:f"), ("b", "P/1:f"),
        ("c", "AE/k"), ("d", "I/-1:e"), ("", "S/self.x"), ("self.x", "d"), ("", "E/m"),
    ]  # fmt: skip
    assert [(b.name, b.value) for b in py.extract(src).bindings] == [
        ("a", "at:0:f"), ("b", "at:1:f"), ("c", "aenter:k"), ("d", "iter:-1:e"),
        ("", "set:self.x"), ("self.x", "d"), ("", "enter:m"),
    ]  # fmt: skip


def test_chain_functions_are_pythons():
    """chain_text and callee_chain_text answer as the Python versions (the reference), on
    token soups that mix names, dots, brackets, quotes, escapes and odd bytes."""
    ext = native_syntax()
    if ext is None:
        pytest.skip(native_status().reason)
    rng = random.Random(11)
    tokens = [b"a", b"b_1", b".", b" ", b"\n", b"(", b")", b"[", b"]", b"'", b'"', b"'''",
              b'"""', b"\\", b"1", b"\xc3\xa9", b"#", b",", b"\t", b"\x0b", b"\x1c"]  # fmt: skip
    for _ in range(20000):
        text = b"".join(rng.choice(tokens) for _ in range(rng.randint(0, 12)))
        assert ext.chain_text(text) == chains._py_chain(text), text
        assert ext.callee_chain_text(text, chains._py_chain) == chains._py_callee_chain(text), text
    # a one-character chain is the runtime's shared string, as bytes.decode() makes it
    assert ext.chain_text(b"x") is b"x".decode()
    assert ext.callee_chain_text(b"a . b [c] (d)", chains._py_chain) == "a.b[]()"
    # chain_syntax.MAX_GROUPS bracket steps at most (every call of `a.b().b()...` holds all
    # before it: 20,000 of them made 800 MB of facts)
    most = chain_syntax.MAX_GROUPS
    for groups in (most, most + 1, 20_000):
        text = b"a" + b".b(x)" * groups
        want = "a" + ".b()" * groups if groups <= most else None
        assert ext.callee_chain_text(text, chains._py_chain) == want
        assert chains._py_callee_chain(text) == want
    with pytest.raises(TypeError):
        ext.chain_text("a.b")


def test_kept_chain_answers_are_the_extractors_chains():
    """chains.py's `_chain` and `callee_chain` are native/chains.c's kept answers, which the
    fact engine reads without a Python call: the Python versions' answers, one object per
    text (the facts' marshalled bytes share a string only when it is the same object), a
    callee's plain chain the chain's own object, also once the kept answers were emptied."""
    ext = native_syntax()
    if ext is None:
        pytest.skip(native_status().reason)
    assert chains._chain is ext.cached_chain
    assert chains.callee_chain is ext.cached_callee_chain
    rng = random.Random(12)
    tokens = [b"a", b"b_1", b".", b" ", b"(", b")", b"[", b"]", b"'", b"1", b","]
    for _ in range(5000):
        text = b"".join(rng.choice(tokens) for _ in range(rng.randint(0, 8)))
        assert ext.cached_chain(text) == chains._py_chain(text), text
        assert ext.cached_callee_chain(text) == chains._py_callee_chain(text), text
        assert ext.cached_chain(text) is ext.cached_chain(bytes(text))
    engine = py._engine()
    if engine is None:
        pytest.skip("no native fact engine")
    src = b"a . b(a.b)\nc = a.b\n"
    for _ in range(2):
        facts = FileFacts(language="python")
        engine.facts(py._parser().parse(src).root_node, src, facts, set())
        (call,) = facts.calls
        assert call.callee == "a.b"
        assert call.callee is ext.cached_callee_chain(b"a . b") is ext.cached_chain(b"a . b")
        # past the bound, the next file empties both: the callee's chain stays the chain's
        for i in range(40000):
            ext.cached_chain(b"n%d" % i)
    with pytest.raises(TypeError):
        ext.cached_chain("a.b")
    with pytest.raises(TypeError):
        ext.cached_callee_chain("a.b")


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
def test_django_matches_and_facts_are_identical(django, matches):
    """Every Django file: the runner's walk and cursor yield the query's matches in its
    order, and the facts of both paths are byte-identical."""
    files = sorted(django.rglob("*.py"))
    assert len(files) > 2000
    differ, facts_differ = [], []
    count = 0
    for path in files:
        name = str(path.relative_to(django))
        source = path.read_bytes()
        root = py._parser().parse(source).root_node
        walk, cursor, reference = matches.three_ways(root)
        count += len(walk)
        if walk != reference or cursor != reference:
            differ.append(name)
        if not same_facts(source, root):
            facts_differ.append(name)
    assert not differ, f"{len(differ)} files' matches differ, first: {differ[:5]}"
    assert not facts_differ, f"{len(facts_differ)} files' facts differ: {facts_differ[:5]}"
    assert count > 300_000


@pytest.mark.slow
@native
def test_stdlib_facts_are_identical():
    """Every .py file of this interpreter's standard library (site-packages left out)."""
    root = Path(sysconfig.get_paths()["stdlib"])
    files = sorted(p for p in root.rglob("*.py") if "site-packages" not in p.parts)
    if len(files) < 500:
        pytest.skip(f"no full standard library under {root}")
    differ = []
    for path in files:
        try:
            source = path.read_bytes()
        except OSError:
            continue
        if not same_facts(source):
            differ.append(str(path.relative_to(root)))
    assert not differ, f"{len(differ)} of {len(files)} files' facts differ: {differ[:5]}"


@pytest.mark.parametrize("native_path", [True, False])
def test_calls_matched_alone_keep_the_order_of_their_arguments(native_path):
    """A call is matched alone (its callee and arguments are its fields); the facts keep the
    order of a pattern that captured the arguments, which completes as they are entered:
    `f(a)(b)` gives the inner call first though the outer one starts first (same line, same
    scope: the order is the blob's, and the chain caches read the texts in it)."""
    if native_path and not native_status().used:
        pytest.skip(native_status().reason)
    source = b"f(a)(b)\ng(c).h(d).k(e)\nm(n(o), p(q))\n"
    facts = py.extract(source, native=native_path)
    assert [c.callee for c in facts.calls] == [
        "f", "f()", "g", "g().h", "g().h().k", "m", "n", "p"
    ]  # fmt: skip
