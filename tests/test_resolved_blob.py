"""resolved_blob (native/core_blob.c) writes marshal bytes that load as what the Python way
(`state._resolved_blob`) writes, and hands over to it what it does not write itself."""

from __future__ import annotations

import marshal
import random

from codeimpact.indexer.resolved import Edge, ResolvedFile, SymbolRow, Unresolved
from codeimpact.indexer.state import _resolved_blob, resolved_blob, resolved_from_blob
from codeimpact.native import _core

_UIDS = [
    "a.py::f",
    "a.py::",
    "é.py::ünï",
    "z.py::日本",
    "b.py::" + "C" * 300,
    "<external>::os.path",
]


def _file(seed: int) -> ResolvedFile:
    rng = random.Random(seed)
    rf = ResolvedFile("a.py")
    for i, uid in enumerate(_UIDS):
        rf.symbols.append(SymbolRow(uid, "function", uid[-3:], uid[::-1], uid.split("::")[0],
                                    i, i + 2, 0, 40, None if i % 2 else "(x)", i % 2 == 0,
                                    i % 3 == 0, "python"))  # fmt: skip
    for _ in range(200):
        conf = rng.choice([1.0, 0.7, 0.5, 0.0, -0.0])
        # fresh strings equal to shared ones, as resolvers make them
        src = "".join(rng.choice(_UIDS))
        rf.edges.append(Edge(rng.choice(["CALLS", "REFERENCES"]), src, rng.choice(_UIDS), conf,
                             rng.choice(["scope", "value-flow"]), rng.randint(1, 1 << 20)))  # fmt: skip
    for _ in range(20):
        rf.unresolved.append(Unresolved(rng.choice(_UIDS), rng.choice(["get", "ünï"]), 3))
    rf.calls_total, rf.calls_builtin = 220, 7
    return rf


def _loaded_equal(a: bytes, b: bytes) -> bool:
    x, y = marshal.loads(a), marshal.loads(b)
    # (marshal.loads equality, and the signs of the zeros a confidence may be)
    return x == y and repr(x) == repr(y)


def test_loads_as_the_python_blob():
    for seed in range(5):
        rf = _file(seed)
        blob = _core.resolved_blob(rf.symbols, rf.edges, rf.unresolved, rf.calls_total,
                                   rf.calls_builtin)  # fmt: skip
        assert blob is not None
        assert _loaded_equal(blob, _resolved_blob(rf))
        assert resolved_blob(rf) == blob
        back = resolved_from_blob("a.py", blob)
        assert (back.symbols, back.edges, back.unresolved) == (rf.symbols, rf.edges, rf.unresolved)
        assert [type(e) for e in back.edges] == [Edge] * len(rf.edges)


def test_each_distinct_string_once():
    rf = _file(1)
    blob = resolved_blob(rf)
    for uid in _UIDS[2:5]:  # (the others are inside longer ones)
        assert blob.count(uid.encode()) == 1, uid


def test_what_c_does_not_write_goes_the_python_way():
    for odd in (1 << 40, "a.py::\udcff", b"bytes", (1, 2)):
        rf = _file(2)
        rf.unresolved.append(Unresolved("a.py::f", odd, 3))
        assert _core.resolved_blob(rf.symbols, rf.edges, rf.unresolved, rf.calls_total,
                                   rf.calls_builtin) is None  # fmt: skip
        assert resolved_blob(rf) == _resolved_blob(rf)
        assert marshal.loads(resolved_blob(rf))[2][-1][1] == odd


def test_empty_file():
    rf = ResolvedFile("e.py")
    assert _loaded_equal(resolved_blob(rf), _resolved_blob(rf))


def test_many_strings_once_each_and_files_after():
    # thousands of distinct strings (past the table's first 1,024 slots), each written as
    # fresh equal objects and as the same one, and confidences equal by value: each is
    # written once; a file after it shares nothing with it
    big = ResolvedFile("a.py")
    uids = [f"m{i % 31}.py::C{i}.f" for i in range(5000)]
    for i, uid in enumerate(uids):
        conf = float(f"0.{i % 3 + 5}")  # (fresh floats, equal by value)
        big.edges.append(Edge("CALLS", "".join(uid), uid, conf, "scope", i))
        big.edges.append(Edge("CALLS", uid, "".join(uid), conf, "scope", i + 1))
    blob = resolved_blob(big)
    assert _loaded_equal(blob, _resolved_blob(big))
    assert blob.count(b"m3.py::C34.f") == 1  # (no uid holds it but itself)
    small = _file(4)
    assert _loaded_equal(resolved_blob(small), _resolved_blob(small))
