"""native/core_names.c's rows_prefixed picks the `self.` facts for plan.binder_names and
registries._self_reads: their answers are the Python loops' (the reference below) on every
Python file of this repository and its Python fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

from codeimpact.indexer import plan
from codeimpact.indexer.lang import flow_rules
from codeimpact.indexer.lang.api import FileFacts
from codeimpact.indexer.lang.python import registries
from codeimpact.indexer.reading import extract_source
from codeimpact.native import _core

ROOT = Path(__file__).resolve().parents[1]


def _binder_names(facts: FileFacts) -> set[str]:
    """binder_names as it was written before rows_prefixed (the reference)."""
    rules = flow_rules(facts.language)
    local_of = {s.local: s for s in facts.symbols}
    out = {src[0] for src, _ in rules.registry_binders(facts, local_of)}
    for b in facts.bindings:
        name = b.name
        if "[" in name and name.startswith("self.") and b.scope in local_of:
            out.add(rules.container_of(name)[5:])
    for c in facts.calls:
        if c.args and c.callee.startswith("self.") and c.scope in local_of:
            attr = rules.registry_store(c)
            if attr is not None:
                out.add(attr)
    return out


def _self_reads(facts: FileFacts) -> dict:
    read: dict = {}
    for r in facts.references:
        t = r.target
        if t.startswith("self.") and r.kind == "read" and t.count(".") == 1:
            read.setdefault((r.scope, r.line), set()).add(t[5:])
    return read


@pytest.mark.parametrize("part", ["indexer", "graph", "tests/lang/python"])
def test_binders_and_self_reads_are_the_python_loops(part):
    files = sorted((ROOT / part).rglob("*.py"))
    assert files
    found = 0
    for path in files:
        facts = FileFacts.from_bytes(extract_source("python", path.read_bytes()))
        names = plan.binder_names(facts)
        assert names == _binder_names(facts), path
        reads = registries._self_reads(facts)
        assert list(reads.items()) == list(_self_reads(facts).items()), path
        found += bool(names) + bool(reads)
    assert found


def test_rows_prefixed_keeps_the_order_and_tests_the_needed_item():
    rows = [("self.a", (1,)), ("self.b", ()), ("x.self.c", (2,)), ("self.", (3,)), ("sel", (4,))]
    assert _core.rows_prefixed(rows, 0, "self.", 1) == [rows[0], rows[3]]
    assert _core.rows_prefixed(rows, 0, "self.", -1) == [rows[0], rows[1], rows[3]]
    assert _core.rows_prefixed([("ünï.x",), ("ü",)], 0, "ü", -1) == [("ünï.x",), ("ü",)]
    with pytest.raises(TypeError):
        _core.rows_prefixed([(3,)], 0, "self.", -1)
    with pytest.raises(TypeError):
        _core.rows_prefixed([("self.a",)], 0, "self.", 2)
    with pytest.raises(ValueError):
        _core.rows_prefixed([("a",)], -1, "self.", -1)


def test_rows_prefixed_tests_the_last_dotted_part():
    rows = [("self.x.append",), ("self.append",), ("self.x.appendx",), ("self.x.add",),
            ("self.xappend",), ("self.ü.add",), ("self.ü.ädd",), ("self.x.y.insert",)]  # fmt: skip
    lasts = ("append", "add", "insert")
    assert _core.rows_prefixed(rows, 0, "self.", -1, lasts) == [
        rows[0], rows[1], rows[3], rows[5], rows[7]
    ]  # fmt: skip
    assert _core.rows_prefixed(rows, 0, "self.", -1, None) == rows
    assert _core.rows_prefixed(rows, 0, "self.", -1, ("ädd",)) == [rows[6]]
    with pytest.raises(TypeError):
        _core.rows_prefixed(rows, 0, "self.", -1, ["append"])
