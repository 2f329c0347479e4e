"""parse_steps in C (native/core_steps.c) gives the steps index.py's Python parse gives (its
regex: a name of an ASCII letter or `_` then `\\w` or `$`, then `()` and `[]`), for the chains
of real facts and for the odd ones, and keeps them by chain as the Python cache did."""

from __future__ import annotations

from pathlib import Path

import pytest

from codeimpact import indexer
from codeimpact.indexer.lang.python import SPEC, index
from codeimpact.native import _core

_ODD = [
    "", ".", "a", "a.", ".a", "a..b", "a.b.c", "self.assertEqual", "a.b().c[]", "a()[]().b",
    "f()", "f(", "f)", "f()x", "f[]()", "f[)", "(", "[]", "a.(", "1a.b()", "_x$1.y()",
    "ret$0.x[]", "it$12", "$x()", "x.$y()", "ünï.x()", "xü()", "a.日本()", "x٣()", "x²()",
    "x\u00b5()", "lit:'a'.b()", "a b()", "a.b(c)", "iter:-1:self.items()", "x.y[0]",
]  # fmt: skip


def _python(chain: str):
    return index._parse_steps(chain)


def _chains() -> list[str]:
    out = set(_ODD)
    files = sorted(Path(indexer.__file__).parent.rglob("*.py"))
    for path in files[:120]:
        facts = SPEC.extract(path.read_bytes())
        out.update(c.callee for c in facts.calls)
        out.update(chain for c in facts.calls for _, chain in c.args)
        out.update(b.value for b in facts.bindings)
        out.update(r.target for r in facts.references)
    return sorted(out)


def test_the_steps_python_gives():
    chains = _chains()
    assert len(chains) > 2000
    for chain in chains:
        got = _core.parse_steps(chain)
        want = _python(chain)
        assert got == want, chain
        if got is not None:
            assert all(type(a) is str and type(b) is str for a, b in got)


def test_the_one_bound_is_the_native_one_and_kept_by_chain():
    assert index.parse_steps is _core.parse_steps
    chain = "".join(["kept.", "one()"])
    first = index.parse_steps(chain)
    assert index.parse_steps("kept.one()") is first  # (an equal chain: the same steps)
    assert _core.parse_steps_cache()[chain] is first
    assert first[1][1] == "()" and first[0][1] is ""  # noqa: F632 (CPython's one empty str)


def test_refuses_what_is_no_str():
    with pytest.raises(TypeError):
        _core.parse_steps(b"a.b")
