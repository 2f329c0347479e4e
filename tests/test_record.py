"""native/record.py: a record class reads, compares and hashes as the dataclass it replaced,
and the modules an edit imports make no dataclass at import but the few listed."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest

from codeimpact.native.record import Compared, Hashed, Record


@dataclasses.dataclass(frozen=True)
class FrozenDC:
    a: int
    b: str = "x"
    c: tuple = dataclasses.field(default=(), compare=False, repr=False)


class FrozenRec(Hashed):
    __slots__ = ("a", "b", "c")
    _unshown = _uncompared = ("c",)

    def __init__(self, a: int, b: str = "x", c: tuple = ()) -> None:
        self.a, self.b, self.c = a, b, c


@dataclasses.dataclass
class PlainDC:
    a: int
    b: list


class PlainRec(Compared):
    __slots__ = ("a", "b")

    def __init__(self, a: int, b: list) -> None:
        self.a, self.b = a, b


class ChildRec(PlainRec):
    __slots__ = ("c",)

    def __init__(self, a: int, b: list, c: int) -> None:
        super().__init__(a, b)
        self.c = c


class IdentityRec(Record):
    __slots__ = ("a",)

    def __init__(self, a: int) -> None:
        self.a = a


def _named(text: str, dc: type, rec: type) -> str:
    return text.replace(dc.__qualname__, rec.__qualname__)


def test_a_record_reads_compares_and_hashes_as_its_dataclass():
    for args in [(1,), (1, "y"), (1, "y", (2,)), (2, "x", (3,))]:
        dc, rec = FrozenDC(*args), FrozenRec(*args)
        assert repr(rec) == _named(repr(dc), FrozenDC, FrozenRec)
        assert hash(rec) == hash(dc)
        for other in [(1,), (1, "y", (9,)), (2, "x")]:
            assert (rec == FrozenRec(*other)) == (dc == FrozenDC(*other))
    assert FrozenRec(1) != FrozenDC(1) and FrozenRec(1) != (1, "x")
    assert PlainRec(1, [2]) == PlainRec(1, [2]) and PlainRec(1, [2]) != PlainRec(1, [3])
    assert repr(PlainRec(1, [2])) == _named(repr(PlainDC(1, [2])), PlainDC, PlainRec)
    with pytest.raises(TypeError):
        hash(PlainRec(1, [2]))  # unhashable, as an eq dataclass that is not frozen
    assert repr(ChildRec(1, [], 3)) == "ChildRec(a=1, b=[], c=3)"
    assert ChildRec(1, [], 3) != ChildRec(1, [], 4) and ChildRec(1, [], 3) != PlainRec(1, [])
    one = IdentityRec(1)
    assert one == one and one != IdentityRec(1) and repr(one) == "IdentityRec(a=1)"
    with pytest.raises(AttributeError):
        one.b = 2  # slots: no attribute beyond the fields


PROBE = """
import dataclasses, sys
made = []
real = dataclasses._process_class
def counting(cls, *args, **kwargs):
    if cls.__module__.startswith("codeimpact."):
        made.append(cls.__qualname__)
    return real(cls, *args, **kwargs)
dataclasses._process_class = counting
import codeimpact.indexer.pipeline, codeimpact.indexer.incremental_run
import codeimpact.indexer.lang.python.resolve
print(" ".join(sorted(made)))
"""
# made at import on an edit's path still: read by dataclasses.fields (present.to_jsonable),
# replace() and their instances' __dict__
KEPT = {"AnalyzeReport", "FileRecord", "FileFacts", "FileIndex"}


def test_an_edit_imports_no_dataclass_but_the_kept_ones():
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True)
    assert set(out.stdout.split()) <= KEPT, set(out.stdout.split()) - KEPT
