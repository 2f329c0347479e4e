"""native/core_fields.c's tuple_fields: the fact types' fields (lang/api.py) read as slots once
facts are decoded, the same objects as their items, on facts made every way; a type it
cannot serve so is left as it was; typed_list refuses a fact missing a field."""

from __future__ import annotations

import dis
import pickle
from collections import namedtuple
from pathlib import Path

import pytest

from codeimpact.indexer.lang import api
from codeimpact.indexer.lang.api import CallFact, FileFacts, SymbolFact
from codeimpact.indexer.reading import extract_source

_core = pytest.importorskip("codeimpact.native._core")
if not hasattr(_core, "tuple_fields"):
    pytest.skip("an extension built before tuple_fields", allow_module_level=True)

ROOT = Path(__file__).resolve().parents[1]


def _decoded(path: Path) -> FileFacts:
    f = FileFacts.from_bytes(extract_source("python", path.read_bytes()))
    f.calls, f.references  # noqa: B018 (decoded)
    return f


def test_decoded_facts_read_their_fields_as_slots():
    facts = _decoded(ROOT / "indexer" / "lang" / "python" / "resolve.py")
    for kind in api._KINDS:
        for name in kind._fields:
            assert type(kind.__dict__[name]).__name__ == "member_descriptor", (kind, name)
    lists = (facts.symbols, facts.imports, facts.calls, facts.heritage, facts.references,
             facts.bindings, facts.returns)  # fmt: skip
    assert all(lists[:3]) and facts.bindings and facts.returns
    for items in lists:
        for fact in items:
            assert all(getattr(fact, n) is fact[i] for i, n in enumerate(fact._fields))


def test_facts_made_every_way_read_the_same_items():
    api._list_makers()  # (installs the slots)
    made = CallFact("f", "g", 3, "call", ((0, "x"),))  # (literals: the default)
    assert made.literals == () and made.callee == "g" and made.line == 3
    assert made._replace(line=4).line == 4 and made._replace(line=4).scope == "f"
    assert CallFact._make(["a", "b", 1, "decorator", (), ("x",)]).literals == ("x",)
    assert pickle.loads(pickle.dumps(made)).args == ((0, "x"),)
    (typed,) = _core.typed_list(CallFact, [("s", "c", 9, "call", (), ())])
    assert (typed.scope, typed.callee, typed.line, typed.literals) == ("s", "c", 9, ())
    assert made._asdict()["kind"] == "call"
    with pytest.raises(AttributeError):
        made.line = 5
    with pytest.raises(AttributeError):
        del made.scope


def test_typed_list_refuses_a_fact_of_another_size():
    with pytest.raises(ValueError, match="5 items for the 6 fields"):
        _core.typed_list(CallFact, [("s", "c", 9, "call", ())])
    with pytest.raises(ValueError):
        _core.typed_list(CallFact, [("s", "c", 9, "call", (), (), "more")])
    assert _core.typed_list(tuple, [[1, 2], (3,)]) == [(1, 2), (3,)]  # (no fields: any size)


def test_types_it_cannot_serve_are_left_unchanged():
    Plain = namedtuple("Plain", "a b")
    assert _core.tuple_fields(Plain) is True
    before = dict(Plain.__dict__)
    assert _core.tuple_fields(Plain) is True  # (again: nothing to do)
    assert Plain.__dict__ == before

    class Swapped(namedtuple("Swapped", "a b")):  # field a reads item 1
        __slots__ = ()
        a = property(lambda self: self[1])

    class WithDict(namedtuple("WithDict", "a b")):
        pass

    for cls in (Swapped, WithDict, tuple):
        before = dict(cls.__dict__)
        assert _core.tuple_fields(cls) is False
        assert dict(cls.__dict__) == before
    assert Swapped(1, 2).a == 2 and WithDict(1, 2).a == 1


def test_a_field_read_is_specialised():
    if "LOAD_ATTR_SLOT" not in getattr(dis, "_specialized_instructions", ()):
        pytest.skip("an interpreter without LOAD_ATTR_SLOT")
    api._list_makers()

    def read(facts):
        out = 0
        for f in facts:
            out += f.start_line
        return out

    facts = [SymbolFact("a", "function", "a", 1, 2, 0, 9, "", True, False, (), ())] * 8
    for _ in range(64):
        read(facts)
    ops = {i.opname for i in dis.get_instructions(read, adaptive=True)}
    assert "LOAD_ATTR_SLOT" in ops, ops
