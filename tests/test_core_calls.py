"""native/core_calls.c's index_calls_pass (index.py `index_calls`' loop) makes the call tables
the Python loop (`_index_calls`, the reference) makes, in the same order, on every Python file
of this repository and its Python fixtures, and on facts written to reach each rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from codeimpact.indexer.lang.api import BindingFact, CallFact, FileFacts, SymbolFact
from codeimpact.indexer.lang.python import index
from codeimpact.indexer.lang.python.extract import extract
from codeimpact.indexer.reading import extract_source

_core = pytest.importorskip("codeimpact.native._core")
if not hasattr(_core, "index_calls_pass"):
    pytest.skip("an extension built before index_calls_pass", allow_module_level=True)

ROOT = Path(__file__).resolve().parents[1]
TABLES = (*index.CALL_TABLES, "param_items")


def _ordered(x):
    """A table with its sets as lists in their iteration order (the same insertions in the
    same order: the same order)."""
    if isinstance(x, dict):
        return [(k, _ordered(v)) for k, v in x.items()]
    if isinstance(x, (set, frozenset)):
        return ("set", list(x))
    if isinstance(x, (list, tuple)):
        return [_ordered(v) for v in x]
    return x


def _tables(facts: FileFacts, native: bool, monkeypatch) -> dict:
    monkeypatch.setattr(index, "_calls_pass", _core.index_calls_pass if native else False)
    fi = index.FileIndex("pkg/m.py", "pkg.m", "pkg", facts)
    index.index_file(fi)
    index.index_calls(fi)
    return {t: _ordered(fi.__dict__[t]) for t in TABLES}


def _same(facts: FileFacts, monkeypatch) -> dict:
    native, python = _tables(facts, True, monkeypatch), _tables(facts, False, monkeypatch)
    for t in TABLES:
        assert native[t] == python[t], t
    return python


def test_native_loop_is_loaded():
    fi = index.FileIndex("a.py", "a", "", FileFacts(language="python"))
    index.index_file(fi)
    index.index_calls(fi)
    assert index._calls_pass is _core.index_calls_pass


@pytest.mark.parametrize("part", ["indexer", "query", "codeimpact", "tests/lang/python"])
def test_every_call_table_is_the_python_loop(part, monkeypatch):
    files = sorted((ROOT / part).rglob("*.py"))
    assert files
    made = 0
    for path in files:
        made += any(_same(extract(path.read_bytes()), monkeypatch).values())
    assert made  # (some file has a table that is not empty)


def test_plain_calls_of_a_blob_make_the_same_tables(monkeypatch):
    """Calls not decoded are read as the blob's plain tuples: the tables are the same, and
    what they keep are CallFacts; the file's calls stay undecoded."""
    source = (ROOT / "indexer/lang/python/index.py").read_bytes()
    blob = extract_source("python", source)
    kept = 0
    for native in (True, False):
        facts = FileFacts.from_bytes(blob)
        tables = _tables(facts, native, monkeypatch)
        assert not facts.decoded()
        assert tables == _tables(FileFacts.from_bytes(blob), False, monkeypatch)
    fi = index.FileIndex("pkg/m.py", "pkg.m", "pkg", FileFacts.from_bytes(blob))
    index.index_file(fi)
    monkeypatch.setattr(index, "_calls_pass", _core.index_calls_pass)
    for table in ("literal_calls", "decorator_calls", "name_calls"):
        for calls in getattr(fi, table).values():
            assert all(type(c) is CallFact for c in calls)
            kept += len(calls)
    assert kept and fi.item_adds["stored"]  # (`stored.append(b)`: by the Python helper)


def _sym(local, kind="function", params=(), decorators=()):
    return SymbolFact(local, kind, local.rpartition(".")[2], 1, 2, 0, 1, "", True, False,
                      params, decorators)  # fmt: skip


def test_each_rule(monkeypatch):
    f = FileFacts(language="python")
    f.symbols += [
        _sym("", "module"),
        _sym("C", "class"),
        _sym("C.__init__", "method", (("self", ""), ("cb", ""), ("*items", ""))),
        _sym("C.run", "method", (("self", ""),)),
        _sym("C.s", "method", (("x", ""),), ("staticmethod",)),
        _sym("C.run.inner", "function", (("z", ""),)),
        _sym("f", "function", (("a", ""), ("**kw", ""))),
        _sym("f.g", "function", (("b", ""),)),
        _sym("é", "function", (("ü", ""),)),
    ]
    f.bindings += [
        BindingFact("C.__init__", "self.cb", "cb", False, 2),
        BindingFact("C.__init__", "h", "cb", False, 3),  # an alias of a parameter
        BindingFact("C.__init__", "for_", "iter:-1:items", False, 4),  # an item of one
        BindingFact("C.__init__", "self.reg[]", "item:k:cb", False, 5),
        BindingFact("f.g", "a", "x", False, 9),  # (a rebinding: g's `a` is not f's)
    ]

    def call(scope, callee, line, args=(), kind="call", literals=()):
        return CallFact(scope, callee, line, kind, args, literals)

    f.calls += [
        call("", "usefixtures", 1, (), "call", ((0, "db"),)),
        call("", "deco", 1, ((0, "f"),), "decorator"),
        call("", "f", 2, ((0, "C"),)),  # by the name of a function
        call("C.__init__", "typing.cast", 3, ((1, "cb"),)),
        call("C.__init__", "functools.wraps()", 3, ((0, "cb"),)),
        call("C.__init__", "pytest.raises", 4, ((0, "cb"),)),
        call("C.__init__", "ü.cast", 4, ((0, "cb"),)),  # not ASCII: the slow path
        call("C.__init__", "seen.append", 5, ((0, "cb"),)),  # an item of seen
        call("C.__init__", "seen.insert", 5, ((0, "x"), (1, "cb"))),
        call("C.__init__", "a.b.append", 5, ((0, "cb"),)),  # (too deep a container)
        call("C.__init__", "self.items.append", 5, ((0, "cb"),)),
        call("C.__init__", "self.reg.setdefault().append", 6, ((0, "cb"),)),
        call("C.__init__", "self.reg[].append", 6, ((0, "cb"),)),
        call("C.__init__", "é.append", 6, ((0, "cb"),)),
        call("C.__init__", "cb", 7),  # a parameter called
        call("C.__init__", "h", 7),  # an alias of one
        call("C.__init__", "items[]", 8),  # an item of one
        call("C.__init__", "for_", 8),
        call("C.run", "self.cb", 9),  # what `self.cb` was stored from
        call("C.run", "self.cb.x", 9),
        call("C.run.inner", "self.cb", 10),
        call("C.run", "run", 11, ((0, "self.cb"), ("k", "self"))),
        call("C.run", "self.go", 11, ((0, "self.cb"), (1, "self.cb.x"))),
        call("C.__init__", "go", 12, ((0, "cb"), (1, "self"), ("k", "items"))),
        call("C.__init__", "self.go", 12, ((0, "cb"),)),
        call("C.__init__", "super().__init__", 12, (("**", "cb"),)),
        call("C.__init__", "cls.go", 12, ((0, "cb"),)),
        call("C.__init__", "make()", 12, ((0, "cb"),)),
        call("C.__init__", "client.delete", 12, ((0, "cb"),)),  # not followed
        call("C.__init__", "é", 13, ((0, "cb"),)),  # not ASCII: passes_on in Python
        call("C.__init__", "self.é", 13, ((0, "cb"),)),
        call("C.__init__", "gé", 13, ((0, "cb"),)),
        call("C.__init__", "self.gé", 13, ((0, "cb"),)),
        call("C.__init__", "1go", 13, ((0, "cb"),)),
        call("C.__init__", "go()x", 13, ((0, "cb"),)),
        call("C.s", "go", 14, ((0, "x"),)),  # a staticmethod's first parameter
        call("C.run", "go", 14, ((0, "self"),)),  # a method's is not
        call("f", "go", 15, ((0, "a"), ("kw", "kw"))),
        call("f.g", "a", 16),  # f's parameter, rebound in f
        call("f.g", "b", 16),
        call("f.g", "go", 16, ((0, "b"), (1, "a"))),
        call("é", "ü", 17, ((0, "ü"),)),
        call("é", "go", 17, ((0, "ü"),)),
    ]
    _same(f, monkeypatch)
    fi = index.FileIndex("pkg/m.py", "pkg.m", "pkg", f)  # (native: loaded above)
    index.index_file(fi)
    assert fi.pass_through[("C.__init__", 3)] == [
        ("typing.cast", ((1, "cb"),)), ("functools.wraps()", ((0, "cb"),))]  # fmt: skip
    assert ("C.__init__", 4) in fi.pass_through  # raises, ü.cast
    assert fi.param_calls["C.__init__"] == {"cb": {"C.__init__"}}
    assert fi.param_item_calls["C.__init__"] == {"items": {"C.__init__"}}
    assert fi.attr_calls["C"]["cb"] == {"C.run", "C.run.inner"}
    assert set(fi.attr_passes["C"]["cb"]) == {("C.run", "run", 0, 11), ("C.run", "self.go", 0, 11)}
    passed = {row[1] for row in fi.param_passes["C.__init__"]["cb"]}
    assert passed == {"go", "self.go", "super().__init__", "cls.go", "make()", "gé", "self.gé"}
    assert "C.s" in fi.param_passes and "C.run" not in fi.param_passes
    assert "a" not in fi.param_calls.get("f", {}) and fi.param_calls["f.g"] == {"b": {"f.g"}}
    assert [b.value for b in fi.item_adds["seen"]] == ["item:*:cb", "item:*:cb"]
    assert fi.param_items["C"]["reg"] == [("C.__init__", "cb")] * 3
    assert fi.literal_calls[""][0].callee == "usefixtures" and fi.decorator_calls[""]
    assert [c.callee for c in fi.name_calls["f"]] == ["f"]


def test_bad_facts_raise(monkeypatch):
    f = FileFacts(language="python")
    f.calls.append(CallFact("", "x", 1, "call", [(0, "a")], ()))  # args not a tuple
    fi = index.FileIndex("m.py", "m", "", f)
    index.index_file(fi)
    with pytest.raises(TypeError):
        index.index_calls(fi)
    kit = index._CALLS_KIT
    with pytest.raises(TypeError):
        _core.index_calls_pass(fi, [("x",)], set(), set(), {}, {}, kit)
    with pytest.raises(TypeError):
        _core.index_calls_pass(fi, [CallFact("", 1, 1, "call", (), ())], set(), set(), {}, {}, kit)
    with pytest.raises(TypeError):
        _core.index_calls_pass(fi, [], set(), set(), {}, {}, kit[:2])
