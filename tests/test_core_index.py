"""native/core_index.c's index_passes (index.py `index_file`) makes the tables the Python loops
(`_index_file`, the reference) make, on every Python file of this repository and its
Python fixtures, and on facts written to reach each rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from codeimpact.indexer.lang.api import BindingFact, FileFacts, ImportFact, ReturnFact, SymbolFact
from codeimpact.indexer.lang.python import index
from codeimpact.indexer.lang.python.extract import extract

_core = pytest.importorskip("codeimpact.native._core")
if not hasattr(_core, "index_passes"):
    pytest.skip("an extension built before index_passes", allow_module_level=True)

ROOT = Path(__file__).resolve().parents[1]
TABLES = ("syms", "parent", "names", "params", "members", "star_imports", "parametrized",
          "loops", "writes", "contexts", "self_attrs", "getattr_bound", "param_attrs",
          "returns", "yields", "_adds", "_aliases", "_item_aliases", "_items")  # fmt: skip


def _tables(facts: FileFacts, native: bool) -> dict:
    fi = index.FileIndex("pkg/m.py", "pkg.m", "pkg", facts)
    if native:
        index.index_file(fi)
    else:
        index._index_file(fi)
    d = fi.__dict__
    # (names: the lists in their order, as sorted by ScopeTable.finish)
    return {t: (dict(d[t]) if t == "names" else d[t]) for t in TABLES}


def _same(facts: FileFacts) -> None:
    assert index.index_file.__module__ == index.__name__
    native, python = _tables(facts, True), _tables(facts, False)
    for t in TABLES:
        assert native[t] == python[t], t


def test_native_passes_are_loaded():
    index.index_file(index.FileIndex("a.py", "a", "", FileFacts(language="python")))
    assert index._passes is _core.index_passes


@pytest.mark.parametrize("part", ["indexer", "query", "codeimpact", "tests/lang/python"])
def test_every_table_is_the_python_loops(part):
    files = sorted((ROOT / part).rglob("*.py"))
    assert files
    for path in files:
        _same(extract(path.read_bytes()))


def test_each_rule():
    def sym(local, kind="function", params=(), decorators=(), line=1):
        name = local.rpartition(".")[2]
        return SymbolFact(local, kind, name, line, line + 1, 0, 1, "", True, False, params,
                          decorators)  # fmt: skip

    f = FileFacts(language="python")
    f.symbols += [
        SymbolFact("", "module", "", 1, 9, 0, 9, "", True, False, (), ()),
        sym("C", "class"),
        sym("C.__init__", "method", (("self", ""), ("cb", "Callable"), ("*items", ""))),
        sym("C.p", "method", (("self", ""),), ("property",)),
        sym("C.p", "method", (("self", ""), ("v", "")), ("p.setter",), 4),
        sym("C.x", "variable"),
        sym("f", "function", (("**kw", ""), ("t", "dict"), ("t", "list"))),
        sym("f.g", "function", (("a", ""),)),
    ]
    f.imports += [
        ImportFact("", "os.path", 0, "", "", 1),
        ImportFact("", "a.b", 0, "", "ab", 2),
        ImportFact("", "m", 1, "x", "", 3),
        ImportFact("", "m", 1, "x", "y", 4),
        ImportFact("", "star", 0, "*", "", 5),
        ImportFact("f", "star", 0, "*", "", 6),
        ImportFact("f", "é.ü", 0, "", "", 7),
    ]
    f.bindings += [
        BindingFact("C.__init__", "self.cb", "cb", False, 2),
        BindingFact("C.__init__", "self.made", "cb", True, 3),
        BindingFact("C.__init__", "self.items[]", "item:k:cb", False, 4),
        BindingFact("C.__init__", "h", "items", False, 5),
        BindingFact("C.__init__", "for_", "iter:-1:items", False, 6),
        BindingFact("C.__init__", "for_", "iter:-1:items", False, 6),
        BindingFact("C.__init__", "k", "key:go:items", False, 7),
        BindingFact("C.__init__", "self.k", "key:go:items", False, 7),
        BindingFact("C.__init__", "", "enter:lock", False, 8),
        BindingFact("C.__init__", "w", "aenter:open", True, 9),
        BindingFact("C.__init__", "", "set:self.p", False, 10),
        BindingFact("f", "a", "param:0:f", False, 11),
        BindingFact("f", "m", "getattr", True, 12),
        BindingFact("f", "n", "getattr", False, 13),
        BindingFact("f", "o", "t", False, 14),
        BindingFact("f", "self.z", "t", False, 15),
        BindingFact("f.g", "q", "ann:int", False, 16),
        BindingFact("", "x", "y", False, 17),
        BindingFact("", "x", "z", False, 1),
        BindingFact("", "ü", "é", False, 18),
    ]
    f.returns += [
        ReturnFact("f", "yield:a", False, 3),
        ReturnFact("f", "b", True, 4),
        ReturnFact("f.g", "ann:int", False, 5),
    ]
    _same(f)
    fi = index.FileIndex("pkg/m.py", "pkg.m", "pkg", f)
    index.index_file(fi)
    assert fi.params["f"] == {"kw": (0, ""), "t": (2, "list")}
    assert fi.members == {"C": {"__init__": "C.__init__", "p": "C.p"}}
    assert [c[0] for c in fi.names[""]["x"]] == [1, 3, 17]  # sorted by line
    assert fi.__dict__["_item_aliases"] == {("C.__init__", "for_"): "items",
                                            ("C.__init__", "k"): "items"}  # fmt: skip


def test_bad_facts_raise():
    f = FileFacts(language="python")
    f.bindings.append(BindingFact("", "x", "iter:nochain", False, 1))
    fi = index.FileIndex("m.py", "m", "", f)
    with pytest.raises(IndexError):
        index.index_file(fi)
    with pytest.raises(IndexError):
        index._index_file(index.FileIndex("m.py", "m", "", f))
    with pytest.raises(TypeError):
        _core.index_passes(fi, [("x",)], [], [], [])
    with pytest.raises(TypeError):
        _core.index_passes(fi, [], [], [BindingFact("", 1, "v", False, 1)], [])


def test_a_definitions_parent_is_the_local_of_the_definition_around_it():
    # (the str object itself: no new str per definition, hashed again as a key)
    source = b"class A:\n    def b(self):\n        def c():\n            pass\n    x = 1\n\n\ndef d():\n    pass\n"
    fi = index.FileIndex("pkg/m.py", "pkg.m", "pkg", extract(source))
    index.index_file(fi)
    assert fi.parent == {"A": "", "A.b": "A", "A.b.c": "A.b", "d": ""}
    syms = fi.syms
    assert fi.parent["A.b"] is syms["A"].local
    assert fi.parent["A.b.c"] is syms["A.b"].local
    assert next(k for k in fi.names if k == "A.b") is syms["A.b"].local


@pytest.mark.parametrize("native", [True, False])
def test_a_name_bound_once_is_a_one_tuple(native, monkeypatch):
    """fi.names holds a name bound once in its scope as a 1-tuple (a list and its items are
    twice the memory), a list sorted by line from its second binding, in both passes."""
    if not native:
        monkeypatch.setattr(index, "_passes", False)  # (the Python loops)
    f = FileFacts(language="python")
    f.bindings += [
        BindingFact("", "once", "a", False, 4),
        BindingFact("", "twice", "b", False, 9),
        BindingFact("", "twice", "c", False, 2),  # (out of line order: sorted)
        BindingFact("", "thrice", "d", False, 1),
        BindingFact("", "thrice", "e", False, 5),
        BindingFact("", "thrice", "f", False, 3),
    ]
    fi = index.FileIndex("m.py", "m", "", f)
    index.index_file(fi)
    names = fi.names[""]
    assert names["once"] == ((4, "bind", f.bindings[0]),)
    assert type(names["twice"]) is list and [c[0] for c in names["twice"]] == [2, 9]
    assert [c[2].value for c in names["thrice"]] == ["d", "f", "e"]


@pytest.mark.parametrize("native", [True, False])
def test_getattr_bound_is_made_by_its_first_name(native, monkeypatch):
    """fi.getattr_bound is the class's shared empty frozenset until a name is bound to what
    getattr returns (most files bind none), then a set of the file's own, in both passes."""
    if not native:
        monkeypatch.setattr(index, "_passes", False)  # (the Python loops)
    none, some = FileFacts(language="python"), FileFacts(language="python")
    none.bindings.append(BindingFact("", "x", "len", True, 1))
    some.bindings += [BindingFact("", "m", "getattr", True, 1),
                      BindingFact("f", "n", "getattr", True, 2)]  # fmt: skip
    fis = [index.FileIndex(f"{i}.py", str(i), "", f) for i, f in enumerate((none, some, some))]
    for fi in fis:
        index.index_file(fi)
    assert fis[0].getattr_bound is index.FileIndex.getattr_bound == frozenset()
    assert type(fis[1].getattr_bound) is set and fis[1].getattr_bound == {"m", "n"}
    assert fis[1].getattr_bound is not fis[2].getattr_bound
