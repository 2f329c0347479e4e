"""plan.used_names (its text scan in C, native/core_names.c `names_of`) finds what the regex
over the joined texts finds: `[A-Za-z_][A-Za-z0-9_]*`, ASCII only; and the strings it holds
are those marshal writes as the regex way's (the lookup keys' bytes)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from codeimpact import indexer
from codeimpact.indexer.lang.api import CallFact, FileFacts, SymbolFact
from codeimpact.indexer.lang.python import SPEC
from codeimpact.indexer.plan import used_names
from codeimpact.native import _core

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _regex_way(facts: FileFacts) -> set[str]:
    """used_names as it was written before the C scan (the reference)."""
    texts = {c.callee for c in facts.calls}
    texts.update(chain for c in facts.calls for _, chain in c.args)
    texts.update(i.module for i in facts.imports)
    texts.update(i.name for i in facts.imports)
    texts.update(h.base for h in facts.heritage)
    texts.update(r.target for r in facts.references)
    texts.update(b.value for b in facts.bindings)
    texts.update(r.value for r in facts.returns)
    for sym in facts.symbols:
        texts.update(ann for _, ann in sym.params)
        texts.update(sym.decorators)
    names = set(_NAME.findall(" ".join(texts)))
    return names | SPEC.implicit_names(facts)[0]


def _scan(*texts: str) -> set[str]:
    return _core.names_of([(t,) for t in texts], 0, 0)


@pytest.mark.parametrize(
    "text",
    ["", "x", "self.assertEqual", "a.b().c[0].d", "x1", "1x", "12", "1_a", "_", "__init__",
     "ret$0", "it$12.x", "lit:'delete'", "iter:-1:self.items()", "std::x", "ünï.päth",
     "a\u00e9b", "日本.x", "x\U0001f600y", "self.x[k].append", "typing.Optional[int]",
     "  a  b  ", "a\tb\nc"],
)  # fmt: skip
def test_one_text_as_the_regex(text):
    assert _scan(text) == set(_NAME.findall(text))


def test_every_text_of_real_facts_as_the_regex():
    files = sorted(Path(indexer.__file__).parent.rglob("*.py"))
    assert len(files) > 50
    found = 0
    for path in files:
        facts = SPEC.extract(path.read_bytes())
        want = _regex_way(facts)
        assert used_names(facts) == want, path
        found += len(want)
    assert found > 1000


def test_every_field_form():
    call = CallFact("f", "os.path.join", 3, "call", ((0, "self.base"), ("sep", "x9.y")))
    sym = SymbolFact("f", "function", "f", 1, 9, 0, 0, "", True, False,
                     (("a", "typing.List"), ("*b", "")), ("app.route()", "staticmethod"))  # fmt: skip
    facts = FileFacts("python", calls=[call], symbols=[sym])
    assert used_names(facts) == _regex_way(facts) >= {"os", "path", "join", "self", "base", "x9",
                                                      "y", "typing", "List", "app", "route",
                                                      "staticmethod"}  # fmt: skip


def test_a_text_again_and_an_equal_text_add_nothing_new():
    text = "kept.one"
    rows = [(text,), (text,), ("kept" + ".one",), ("one",), ("kept",)]
    out = _core.names_of(rows, 0, 0, [("x", (("k", text), ("j", "one.two")))], 1, 1)
    assert out == {"kept", "one", "two"}
    assert _core.names_of([("a.b",)], 0, 0) == {"a", "b"}  # (a new call: a new set)


def test_the_strings_held_are_those_marshal_wrote_before():
    """marshal writes an interned string with another code than an equal one: the lookup
    keys' bytes hold a one-character name as CPython's own (interned) string, a text that is
    one name and interned as itself unless the name was cut out of a text before it, every
    other name as a string that is not interned."""
    single = "Q"  # (a cut of `Q` out of `Q.x` is CPython's one-character str)
    interned = sys.intern("".join(["inter", "ned"]))
    plain = "".join(["plain", "name"])
    texts = ["x.Q", "Q", interned, "pre.interned", plain, "plainname.x", "cut.only"]
    for order in (texts, texts[::-1]):
        got = {n: n for n in _core.names_of([(t,) for t in order], 0, 0)}
        assert set(got) == set(_NAME.findall(" ".join(order)))
        assert got["Q"] is single
        assert (got["interned"] is interned) == (order is texts)  # (else cut: `pre.interned`)
        for name in (
            "plainname",
            "cut",
            "only",
            "pre",
            "x",
            *(["interned"] if order is not texts else []),
        ):
            assert sys.intern("".join([name[:1], name[1:]])) is not got[name]  # (not interned)


def test_refuses_what_is_no_text():
    with pytest.raises(TypeError):
        _core.names_of([(3,)], 0, 0)
    with pytest.raises(TypeError):
        _core.names_of([((("k", None),),)], 0, 1)
    with pytest.raises(IndexError):
        _core.names_of([("a",)], 1, 0)
    with pytest.raises(ValueError):
        _core.names_of([("a",)], 0, 7)
    with pytest.raises(TypeError):
        _core.names_of([("a",)], 0)


def test_a_name_cut_again_is_the_string_made_the_first_time():
    first, again = _scan("self.assertEqual(x)"), _scan("other.assertEqual", "ü.assertEqual")
    (a,) = [n for n in first if n == "assertEqual"]
    (b,) = [n for n in again if n == "assertEqual"]
    assert a is b  # (no new string hashed and freed per text)
    assert again == {"other", "assertEqual"}


def test_names_stay_right_past_the_table_s_bound():
    texts = [f"m.n{i}_{i % 7}" for i in range(70_000)]  # (the table holds 32,768 names)
    assert _scan(*texts) == {"m"} | {t[2:] for t in texts}
    assert _scan("m.n5_5", "m.n69999_6") == {"m", "n5_5", "n69999_6"}


def test_a_far_hook_s_names_only_where_its_method_is_called():
    """`env.get_template()` runs every loader's get_source (entrypoints' far calls): the file's
    used names hold get_source; given the used names, implicit_names searches the callees only
    for the hooked methods a file names, with the same answer as the search of every one."""

    def facts(*callees: str) -> FileFacts:
        return FileFacts("python", calls=[CallFact("f", c, 1, "call", ()) for c in callees])

    called = facts("env.get_template", "os.path.join")
    named = facts("get_template", "x.get_template_names")  # (no `.get_template()` call)
    for f, far in ((called, {"get_source"}), (named, set()), (facts("len"), set())):
        assert used_names(f) & {"get_source", "list_templates"} == far
        assert SPEC.implicit_names(f, used_names(f)) == SPEC.implicit_names(f)
    assert SPEC.implicit_names(facts("len"), {"len"})[0] == set()
