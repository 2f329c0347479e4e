"""native/core_names.c `test_uses` reads what lang/python/pytest_names.py implicit_names read
of a file's symbols and calls in a Python loop (the reference below), in the same order."""

from __future__ import annotations

from pathlib import Path

import pytest

from codeimpact.indexer.lang.api import CallFact, FileFacts, SymbolFact
from codeimpact.indexer.lang.python import SPEC
from codeimpact.indexer.lang.python import pytest_names as pn
from codeimpact.native import _core


def _python_way(facts: FileFacts) -> tuple[set[str], bool]:
    """implicit_names' loops as they were written before test_uses (the reference)."""
    uses: set[str] = set()
    fixtures = False
    for s in facts.symbols:
        if s.kind in pn._FUNCTION_KINDS:
            fixture = bool(s.decorators) and pn.is_fixture(s)
            fixtures = fixtures or fixture
            if s.is_test or fixture:
                uses.update(name.lstrip("*") for name, _ in s.params)
                if s.is_test:
                    uses.add(pn.AUTOUSE)
    for c in [c for c in facts.calls if c.literals]:
        callee = c.callee
        if callee.rpartition(".")[2] in pn._MARKS:
            uses.update(text for k, text in c.literals if isinstance(k, int))
        elif callee == "getattr":
            uses.update(text for k, text in c.literals if k == 1)
    return uses, fixtures


def _c_way(facts: FileFacts) -> tuple[set[str], bool]:
    return _core.test_uses(facts.symbols, facts.calls, pn._FIELDS, pn._FUNCTION_SET,
                           pn._MARKS, pn.AUTOUSE)  # fmt: skip


def test_every_test_file_of_this_repository_as_the_python_loops():
    files = sorted(Path(__file__).parent.glob("test_*.py"))
    assert len(files) > 50
    found = fixtures = 0
    for path in files:
        facts = SPEC.extract(path.read_bytes())
        want = _python_way(facts)
        assert _c_way(facts) == want, path
        found += len(want[0])
        fixtures += want[1]
    assert found > 300 and fixtures > 5


def test_each_form():
    def fn(local, decorators=(), is_test=False, params=(("self", ""),), kind="function"):
        return SymbolFact(local, kind, local, 1, 2, 0, 0, "", True, is_test, params, decorators)

    symbols = [
        fn("test_a", is_test=True, params=(("db", ""), ("*args", ""), ("**kw", "x.Y"))),
        fn("C.test_b", is_test=True, kind="method"),
        fn("client", decorators=("pytest.fixture()",), params=(("settings", ""),)),
        fn("other", decorators=("fixture_x", "a.fixture.b", "unfixture"), params=(("no", ""),)),
        fn("cls", decorators=("pytest.fixture",), kind="class", params=(("nope", ""),)),
    ]
    calls = [
        CallFact("test_a", "pytest.mark.usefixtures", 1, "decorator", (), ((0, "u1"), (1, "u2"))),
        CallFact("test_a", "request.getfixturevalue", 2, "call", (), (("name", "kw"), (0, "g"))),
        CallFact("test_a", "getattr", 3, "call", (), ((0, "obj"), (1, "get"), (True, "t"))),
        CallFact("test_a", "x.getattr", 4, "call", (), ((1, "no1"),)),
        CallFact("test_a", "usefixturesx", 5, "call", (), ((0, "no2"),)),
        CallFact("test_a", "f", 6, "call", (), ()),
    ]
    facts = FileFacts("python", symbols=symbols, calls=calls)
    uses, fixtures = _c_way(facts)
    assert (uses, fixtures) == _python_way(facts)
    assert fixtures
    assert uses == {"db", "args", "kw", "self", pn.AUTOUSE, "settings", "u1", "u2", "g", "get",
                    "t"}  # fmt: skip
    assert _c_way(FileFacts("python", symbols=symbols[3:], calls=[])) == (set(), False)


def test_refuses_rows_of_other_shapes():
    with pytest.raises(TypeError):
        _core.test_uses([("a",)], [], pn._FIELDS, pn._FUNCTION_SET, pn._MARKS, pn.AUTOUSE)
    with pytest.raises(TypeError):
        _core.test_uses([], [], pn._FIELDS[:3], pn._FUNCTION_SET, pn._MARKS, pn.AUTOUSE)
