"""native/core_facts_blob.c facts_dumps: FileFacts.to_bytes written from the lists of facts
is, byte for byte, marshal.dumps of the plain tuples to_bytes made before (FACTS_FORMAT 4:
the facts cache and every digest over blobs read these bytes). marshal shares an object by
identity when more than one reference holds it and tells interned strs apart, so the
cases are the ones where that decides: a fact that is an exact tuple (in the plain list as
itself), a str held by one fact only, a pair held once inside a field, interned and
non-interned strs, non-ASCII and long ones. A value it does not write as marshal does is
answered None and to_bytes marshals as before."""

from __future__ import annotations

import marshal
import sys
from pathlib import Path

import pytest

from codeimpact.indexer.lang import LANGUAGES, api, language_name_for
from codeimpact.indexer.lang.api import (
    BindingFact,
    CallFact,
    FileFacts,
    ImportFact,
    ReferenceFact,
    SymbolFact,
)
from codeimpact.native import _core

ROOT = Path(__file__).resolve().parents[1]


def _marshalled(facts: FileFacts, monkeypatch) -> bytes:
    """to_bytes as it was: plain tuples, then marshal.dumps."""
    with monkeypatch.context() as m:
        m.setattr(api, "_facts_dumps", lambda: None)
        return facts.to_bytes()


def _written(facts: FileFacts) -> bytes | None:
    """facts_dumps' answer for to_bytes' tuple (None: it left the facts to marshal)."""
    return _core.facts_dumps(
        (api.FACTS_FORMAT, facts.language, facts.status, facts.lines, facts.symbols,
         facts.imports, api._CALLS.held(facts), facts.heritage, api._REFERENCES.held(facts),
         facts.bindings, facts.returns, facts.error, facts.extra),
        api._BLOB_FORMS,
    )  # fmt: skip


def _sources() -> list[tuple[str, bytes]]:
    """Real files in every language the repository holds: its own code and the language
    tests' sources."""
    out = []
    for path in sorted(ROOT.glob("*/**/*")):
        if not path.is_file() or ".venv" in path.parts or "build" in path.parts:
            continue
        name = language_name_for(path.name)
        if name is not None:
            out.append((name, path.read_bytes()))
    return out


def test_the_blobs_of_real_extractions_are_marshals_byte_for_byte(monkeypatch):
    sources = _sources()
    languages = {name for name, _ in sources}
    assert len(sources) > 300 and {"python", "go", "rust", "typescript"} <= languages
    differ = []
    for name, data in sources:
        facts = LANGUAGES[name].extract(data)
        written = _written(facts)
        assert written is not None  # (what extraction makes, it writes)
        if written != _marshalled(facts, monkeypatch) or facts.to_bytes() != written:
            differ.append(name)
    assert not differ


def _hand_made() -> FileFacts:
    shared = "".join(["sha", "red"])  # (not interned: made at run time)
    once = "".join(["on", "ce"])
    pair = ("x", "".join(["an", "n"]))  # held by the params tuple alone: no reference
    common = (("self", ""),)  # one params tuple in two facts: a reference the second time
    big = 10**6 + 1  # an int object, not a small one: shared by identity only
    f = FileFacts(language="python", lines=300, status="partial", error="syntax error at 3")
    f.symbols = [
        SymbolFact("", "module", "", 1, 300, 0, big, "", True, False, (), ()),
        SymbolFact("A.f", "method", "f", 2, 9, 10, big, "def f(self, x: ann)", True, False,
                   (*common, pair), ("staticmethod",)),
        SymbolFact("A.g", "method", "g", 10, 12, 300, 400, "d" * 300, False, False, common, ()),
        SymbolFact("naïve_日本", "function", "naïve_日本", 13, 14, 401, 450, "", True, True,
                   (), (shared,)),
    ]  # fmt: skip
    f.imports = [ImportFact("", "os.path", 0, "", "osp", 1), ("", "m", 1, "*", "", 2)]
    f.calls = [CallFact("A.f", shared, 3, "call", ((0, shared), ("key", once)), ()),
               CallFact("A.f", "g()", 4, "decorator", (), ((0, "db"),))]  # fmt: skip
    f.references = [ReferenceFact("A.g", shared, 11, "annotation")]
    f.bindings = [BindingFact("A.f", "self.x", "".join(["ite", "r:-1:y"]), False, 5)]
    f.extra = {"all": ["A", shared], "guarded_imports": [[1, "main"]], "raw": b"\x00x",
               "flag": True, "none": None, "nested": {"é": ("t", -(2**31))}}  # fmt: skip
    return f


def test_sharing_and_interning_are_marshals(monkeypatch):
    f = _hand_made()
    written = _written(f)
    assert written is not None and written == _marshalled(f, monkeypatch)
    assert marshal.loads(written)[4][1][10] == (("self", ""), ("x", "ann"))
    # a decoded file (its calls and references kept as the bytes read) is written the same
    read = FileFacts.from_bytes(written)
    assert not read.decoded()
    assert _written(read) == _marshalled(read, monkeypatch)
    # an interned str is written as one ("Z"), the same text made at run time is not ("z"):
    # the language, after the tuple's header (2 bytes) and the format (5)
    kinds = [FileFacts(language=sys.intern("python")), FileFacts(language="".join("python"))]
    assert [_written(k)[7] for k in kinds] == [ord("Z") | 0x80, ord("z") | 0x80]
    for k in kinds:
        assert _written(k) == _marshalled(k, monkeypatch)


def _nested(depth: int) -> list:
    out: list = []
    for _ in range(depth):
        out = [out]
    return out


@pytest.mark.parametrize(
    "change",
    [
        lambda f: f.symbols.append(f.symbols[0]._replace(start_byte=2**40)),  # (a long)
        lambda f: f.extra.update(rate=1.5),  # (a float)
        lambda f: f.extra.update(names={"a"}),  # (a set)
        lambda f: f.calls.append(CallFact("", "\ud800", 1, "call", (), ())),  # (a surrogate)
        lambda f: f.bindings.append(["", "x", "y", False, 1]),  # (not a tuple)
        lambda f: f.extra.update(deep=_nested(150)),  # (deeper than it writes)
    ],
)
def test_a_value_it_does_not_write_is_left_to_marshal(change, monkeypatch):
    f = _hand_made()
    change(f)
    assert _written(f) is None
    blob = f.to_bytes()
    assert blob == _marshalled(f, monkeypatch) and marshal.loads(blob)[0] == api.FACTS_FORMAT


def test_bad_arguments_are_refused():
    with pytest.raises(TypeError):
        _core.facts_dumps([1], b"v")
    with pytest.raises(TypeError):
        _core.facts_dumps((1, 2), b"v")
    with pytest.raises(ValueError):
        _core.facts_dumps((1,), b"x")
