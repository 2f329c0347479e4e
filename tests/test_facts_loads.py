"""native/core_decode.c facts_loads: a facts blob decoded in one pass (FileFacts.from_bytes)
gives what marshal.loads then typed_list gave: the same values, the same fact types, the
same objects shared across files under shared_values; a blob of a form it does not read
(or broken) is answered None, never misread, and from_bytes decodes it the old way."""

from __future__ import annotations

import marshal

import pytest

from codeimpact.indexer.lang import api
from codeimpact.indexer.lang.api import FileFacts, shared_values
from codeimpact.indexer.lang.python import SPEC
from codeimpact.native import _core

SOURCE = '''
import os.path as osp
from .models import Model, Field as F


class Handler(Model):
    """Ünïcode döc 日本"""
    rate = 1.5
    big = 10 ** 30
    name = "naïve"

    @property
    def run(self, request, *args, key=None, **kw):
        response = request.build(osp.join("a", "b"), key=key)
        self.value = response.value
        return response


def handle_request(request):
    result = Handler().run(request)
    return result
'''


def _blob(source: str = SOURCE) -> bytes:
    """The facts of SOURCE, with the forms extraction seldom writes put in: non-ASCII names
    (shared fields), a float, None, bytes, an int of 31 bits, a nested dict."""
    t = marshal.loads(SPEC.extract(source.encode()).to_bytes())
    sym = [
        s._replace(name=f"{s.name}_ü日本") if s.name else s for s in map(api.SymbolFact._make, t[4])
    ]
    extra = {"rate": 1.5, "none": None, "raw": b"\x00x", "big": 2**31 - 1, "neg": -7,
             "nested": {"é": ("t", 2**20)}}  # fmt: skip
    return marshal.dumps((*t[:4], [tuple(s) for s in sym], *t[5:12], extra))


def _old(data: bytes, sharing=None) -> FileFacts:
    """from_bytes as it was: marshal.loads, then a typed list per list of facts."""
    t = marshal.loads(data)
    sym, imp, _c, her, _r, bind, ret = sharing[0] if sharing else api._list_makers()
    f = FileFacts.__new__(FileFacts)
    f.__dict__.update(language=t[1], status=t[2], lines=t[3], symbols=sym(t[4]),
                      imports=imp(t[5]), _calls=None, _calls_blob=t[6], heritage=her(t[7]),
                      _references=None, _references_blob=t[8], bindings=bind(t[9]),
                      returns=ret(t[10]), error=t[11], extra=t[12])  # fmt: skip
    return f


def _shape(x):
    if isinstance(x, (list, tuple, dict)):
        items = x.items() if isinstance(x, dict) else x
        return type(x), [_shape(y) for y in items]
    return type(x)


LISTS = ("symbols", "imports", "heritage", "bindings", "returns", "calls", "references")


def test_a_blob_decodes_to_the_facts_and_types_marshal_and_typed_list_made(monkeypatch):
    data = _blob()
    new, old = FileFacts.from_bytes(data), _old(data)
    assert new == old
    for name in LISTS:
        assert getattr(new, name) and _shape(getattr(new, name)) == _shape(getattr(old, name))
    assert new.extra["rate"] == 1.5 and any("ü" in s.name for s in new.symbols)
    # and without marshal: the one pass reads every form this blob holds
    monkeypatch.setattr(api, "marshal", None)
    again = FileFacts.from_bytes(data)
    assert again == old and again.calls == old.calls and again.references == old.references


def test_shared_fields_are_the_objects_the_old_decoding_shared():
    a, b = _blob(), _blob()  # (two extractions: no object shared beforehand)
    with shared_values():
        new = [FileFacts.from_bytes(a), FileFacts.from_bytes(b)]
    with shared_values():
        sharing = api._SHARING.get()
        old = [_old(a, sharing), _old(b, sharing)]
    assert new == old

    def same(files):  # (list, fact, field) -> whether the two files hold one object there
        return [x is y
                for name in ("symbols", "imports", "heritage", "bindings", "returns")
                for f1, f2 in zip(getattr(files[0], name), getattr(files[1], name))
                for x, y in zip(f1, f2)]  # fmt: skip

    assert same(new) == same(old) and sum(same(new)) > 30


def _facts(blob_tuple: tuple) -> bytes:
    return marshal.dumps(blob_tuple)


@pytest.mark.parametrize(
    "change",
    [
        lambda t: t[:4] + ([t[4][0] + ("extra",)],) + t[5:],  # a fact of another size
        lambda t: t[:4] + ({1, 2},) + t[5:],  # a set where a list of facts is
        lambda t: t[:12] + ({"n": 10**40},),  # an int past 32 bits (marshal's long form)
        lambda t: t[:12] + ({"s": frozenset({"a"})},),  # a frozenset
    ],
)
def test_a_form_it_does_not_read_is_answered_none_and_decoded_the_old_way(change):
    t = marshal.loads(_blob())
    changed = change(t)
    data = _facts(changed)
    loads, spec = api._decoder()
    assert loads(data, spec, None) is None
    try:
        expected = _old(data)
    except (ValueError, TypeError) as e:  # (typed_list refuses it: so does from_bytes)
        with pytest.raises(type(e)):
            FileFacts.from_bytes(data)
    else:
        assert FileFacts.from_bytes(data) == expected


def test_a_reference_to_a_fact_is_decoded_the_old_way():
    t = marshal.loads(_blob())
    fact = t[4][0]
    data = marshal.dumps(t[:12] + ({"again": fact},))  # (the fact written once, then referred)
    loads, spec = api._decoder()
    assert loads(data, spec, None) is None
    f = FileFacts.from_bytes(data)
    assert type(f.extra["again"]) is tuple and f.symbols[0] == fact


def test_broken_blobs_are_refused_or_read_as_marshal_reads_them():
    data = _blob()
    loads, spec = api._decoder()
    values = _core.SharedValues()
    for cut in range(0, len(data), 7):
        for broken in (data[:cut], data[:cut] + bytes([data[cut] ^ 0x5A]) + data[cut + 1 :]):
            try:
                got = loads(broken, spec, values)
            except (ValueError, TypeError, UnicodeDecodeError, MemoryError):
                continue
            if got is None:
                continue
            assert got == marshal.loads(broken)[: len(got)] or got[0] != api.FACTS_FORMAT


def test_a_list_of_calls_decodes_typed():
    f = FileFacts.from_bytes(_blob())
    blob = f.__dict__["_calls_blob"]
    kind = api.CallFact
    got = _core.facts_loads(blob, (kind, 0, len(kind._fields)), None)
    assert got == api._list_makers()[2](marshal.loads(blob))
    assert got and all(type(c) is kind for c in got)
