"""TS/JS extraction over its two query paths, on real parses.

The extractor reads its query's matches as (pattern, nodes) tuples, run by the native
runner's walk (native/walk.c) or, with the native path off, by py-tree-sitter's QueryCursor.
Both must give the same facts, value for value, on the repository's TS/JS fixtures, the
recorded fixture projects' sources (benchmarks/spec) and mutations of them (syntax errors).
Also checked here: the assumptions the fast path rests on (a pattern's handler key is fixed
by the pattern; the module-level declarators found from the top are those whose ancestors
say so; a file's blob does not depend on the files extracted before it).
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest
from test_native_runner import mutations
from tree_sitter_language_pack import get_parser

from codeimpact.indexer.lang.typescript import syntax
from codeimpact.indexer.reading import extract_source
from codeimpact.native.runner import native_status

tx = importlib.import_module("codeimpact.indexer.lang.typescript.extract")

ROOT = Path(__file__).resolve().parent
GRAMMARS = {".ts": "typescript", ".tsx": "tsx", ".js": "javascript", ".jsx": "javascript"}
# what the fixtures have few of: namespaces (nested, `declare`d, string-named), exported and
# ambient declarations, wrapped function literals, declarators in and out of module level
EXTRA_TS = b"""
export const a = 1, b = () => 2;
declare const c: number;
let d = require("m"), {e, f: g} = require("n");
namespace N { export const h = 1; namespace M { const i = 2; } function j() { const k = 3; } }
declare module "x" { const l: string; export let m: number; }
declare namespace O { let p: string; }
export default class { q = () => 1; }
const W = wrap(function () { return 1; }), V = wrap(() => 2);
module.exports = { a, b: c.d };
exports.f = function () {};
"""


def _sources() -> list[tuple[str, bytes]]:
    out = [
        (GRAMMARS[p.suffix], p.read_bytes())
        for p in sorted((ROOT / "lang").glob("*script/*"))
        if p.suffix in GRAMMARS
    ]
    sys.path.insert(0, str(ROOT.parent / "benchmarks"))
    try:
        import graph_dump
    finally:
        sys.path.remove(str(ROOT.parent / "benchmarks"))
    if graph_dump.FIXTURES.is_file():
        for fx in graph_dump.load_fixtures().values():
            for path, text in sorted(fx["files"].items()):
                grammar = GRAMMARS.get(Path(path).suffix)
                if grammar and isinstance(text, str):
                    out.append((grammar, text.encode()))
    out += [("typescript", EXTRA_TS), ("tsx", EXTRA_TS)]
    for grammar in sorted({g for g, _ in out}):
        texts = [t for g, t in out if g == grammar]
        out += [(grammar, t) for t in mutations(texts, 70, seed=len(grammar))]
    return out


SOURCES = _sources()


@pytest.mark.skipif(not native_status().used, reason=native_status().reason)
def test_the_native_walk_and_the_python_cursor_give_the_same_facts():
    assert len({g for g, _ in SOURCES}) == 3 and len(SOURCES) > 250
    partial = 0
    for grammar, source in SOURCES:
        native = tx.extract_with(tx._runner(grammar), grammar, source)
        python = tx.extract_with(tx._runner(grammar, native=False), grammar, source)
        assert tx._runner(grammar).native and not tx._runner(grammar, native=False).native
        assert native == python, source[:300]
        assert native.to_bytes() == python.to_bytes()
        partial += native.status == "partial"
    assert partial > 50  # the mutations' syntax errors were read too


def test_a_patterns_handler_key_is_fixed_by_the_pattern():
    """extract reads _key_of once per pattern (_plans): every match must agree with it."""
    seen = 0
    for native in (True, False):
        for grammar, source in SOURCES:
            runner = tx._runner(grammar, native=native)
            plans = tx._plans(runner)
            tx.extract_with(runner, grammar, source)  # the plans of the patterns it matched
            root = get_parser(grammar).parse(source).root_node
            for p, nodes in runner.tuples(root):
                construct = runner.construct(p)
                caps = dict(zip(runner.names(p), nodes))
                assert tx._key_of(construct, caps[construct], caps) == plans[p][0]
                seen += 1
    assert seen > 5_000


def _module_level(declarator) -> bool:
    """The definition, from the declarator upwards."""
    decl = declarator.parent
    if decl is None or decl.type not in syntax._DECL_WRAPPERS:
        return False
    p = decl.parent
    while p is not None and p.type in ("export_statement", "ambient_declaration"):
        p = p.parent
    if p is None:
        return False
    if p.type == "program":
        return True
    return (
        p.type == "statement_block"
        and p.parent is not None
        and p.parent.type
        in (
            "internal_module",
            "module",
        )
    )


def test_module_level_declarators_are_those_whose_ancestors_say_so():
    both = 0
    for grammar, source in SOURCES:
        root = get_parser(grammar).parse(source).root_node
        declarators, bodies, stack = [], [], [root]
        while stack:
            node = stack.pop()
            if node.type == "variable_declarator":
                declarators.append(node)
            elif node.type in ("internal_module", "module"):
                body = node.child_by_field_name("body")
                if body is not None:
                    bodies.append(body)
            stack.extend(node.children)
        found = syntax.module_level_declarators(root, bodies)
        expected = {d.start_byte for d in declarators if _module_level(d)}
        assert found == expected, source[:300]
        both += bool(expected) and len(expected) < len(declarators)
    assert both > 20  # files with declarators on both sides


def test_a_files_blob_does_not_depend_on_the_files_before_it(monkeypatch):
    """The chain texts kept between files (syntax._plain_seen) are emptied only between two
    files: within one, one text stays one string object, which marshal writes once."""
    monkeypatch.setattr(syntax, "_PLAIN_KEPT", 3)
    texts = [s for g, s in SOURCES if g == "javascript"][:40]
    syntax._plain_seen.clear()
    first = [extract_source("javascript", s) for s in texts]
    again = [extract_source("javascript", s) for s in reversed(texts)][::-1]
    assert first == again
    assert len(syntax._plain_seen) > 3  # one file's texts outgrew the bound, not cut


@pytest.mark.skipif(not native_status().used, reason=native_status().reason)
def test_native_call_sites_read_what_the_python_reading_reads():
    """native/call_sites.c reads every call and `new` site of a file in one call: the same
    (start, line, callee chain, plain arguments) as _read_call, and the very chain strings
    the language's `chain` keeps (syntax._plain_seen: one object per text, which marshal
    shares), hits and misses alike."""
    sites = kept = 0
    for grammar, source in SOURCES:
        runner, reader = tx._runner(grammar), tx._call_sites(grammar)
        root = get_parser(grammar).parse(source).root_node
        calls, news = [], []
        for p, nodes in runner.tuples(root):
            construct, caps = runner.construct(p), dict(zip(runner.names(p), nodes))
            if construct == "reference.call":
                calls.append(caps[construct])
            elif construct == "reference.new":
                news.append((caps[construct], caps["callee"]))
        if len(syntax._plain_seen) > 1000:
            syntax._plain_seen.clear()
        calls = tx._call_parts(calls)
        read = reader.read(calls, source, syntax._plain_seen, syntax.chain)
        read += reader.read(news, source, syntax._plain_seen, syntax.chain)
        args = [a for _, _, a in calls] + [n.child_by_field_name("arguments") for n, _ in news]
        for (node, callee, *_), arguments, got in zip(calls + news, args, read):
            c, out = tx._read_call(callee, arguments)  # (after: its chains are kept ones)
            assert got == (node.start_byte, node.start_point[0] + 1, c, out)
            for mine, theirs in zip([got[2], *(a for _, a in got[3])], [c, *(a for _, a in out)]):
                if theirs is not None and syntax._plain_seen.get(theirs.encode()) is theirs:
                    assert mine is theirs  # a kept text: its one object
                    kept += 1
            sites += 1
    assert sites > 1_000 and kept > 1_000


@pytest.mark.skipif(not native_status().used, reason=native_status().reason)
def test_call_sites_refuse_what_the_grammar_lacks():
    from tree_sitter_language_pack import get_language

    from codeimpact.native import _syntax

    with pytest.raises(ValueError, match="no field"):
        _syntax.CallSites(get_language("javascript"), ("identifier",), "arguments", "nope")
    with pytest.raises(TypeError, match="a site is"):
        tx._call_sites("javascript").read([(None,)], b"", {}, syntax.chain)


# the call sites whose rules are not "a chain called": function literals called at once, the
# imports `import()` / `require()` (of a string or not), callees without a chain, `new` of a
# function literal, a tagged template (no argument list: no site), a decorator
SPECIAL_CALLS = b"""
(function () { inner(); })();
(() => other())();
((function () {}))();
const m = require("m"), n = require(name);
import("x").then(done);
require(dynamic)(1);
(a || b)(c);
f().g.h(x, y.z);
new (function () {})();
new Foo.Bar(arg);
tag`text ${v}`;
class C { @dec method() { this.m(); } @wrap() other() {} }
"""


@pytest.mark.skipif(not native_status().used, reason=native_status().reason)
def test_the_special_call_sites_are_read_alike_in_c_and_python():
    for grammar in ("typescript", "javascript", "tsx"):
        native = tx.extract_with(tx._runner(grammar), grammar, SPECIAL_CALLS)
        python = tx.extract_with(tx._runner(grammar, native=False), grammar, SPECIAL_CALLS)
        assert native == python and native.to_bytes() == python.to_bytes()
        calls = {(c.callee, c.kind) for c in native.calls}
        # the literals' own bodies hold calls; calling a literal is none, nor is an import
        assert {("inner", "call"), ("other", "call")} <= calls
        assert not {c for c, _ in calls if c in ("import", "tag") or c.startswith("import")}
        # `require(name)` is no import: a call like any other (`require(dynamic)(1)` too)
        assert {("require", "call"), ("require()", "call")} <= calls
        assert sum(c.callee == "require" for c in native.calls) == 2  # not require("m")
        # a callee without a chain keeps its member, else is "?", a construction too
        assert {("?.then", "call"), ("?", "call"), ("?", "new")} <= calls
        assert {("f().g.h", "call"), ("Foo.Bar", "new")} <= calls
        assert {(i.module, i.alias) for i in native.imports} == {("m", "m"), ("x", "")}
        if grammar != "javascript":
            assert {("dec", "decorator"), ("wrap", "decorator")} <= calls


@pytest.mark.parametrize("native", [True, False])
def test_chained_calls_keep_the_order_of_their_arguments(native):
    """A call is matched alone (its parts are its fields); the facts keep the order of a
    pattern that captured its arguments, which completes as they are entered: `f(a)(b)` gives
    the inner call first though the outer one starts first (same line, same scope: the
    order is the blob's)."""
    if native and not native_status().used:
        pytest.skip(native_status().reason)
    source = b"f(a)(b); g(c).h(d).k(e); m(n(o), p(q));\n"
    facts = tx.extract_with(tx._runner("javascript", native=native), "javascript", source)
    assert [c.callee for c in facts.calls] == [
        "f", "f()", "g", "g().h", "g().h().k", "m", "n", "p"
    ]  # fmt: skip
