"""A fact engine made from another engine's exported steps (native/runner_steps.c) instead of
compiling its query: the same facts, refused for another query or damaged bytes,
its query compiled only when the cursor has to run, and an edit takes the steps from the
facts cache a full build left them in (native/facts.py keep_steps)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import codeimpact.indexer.lang.python.extract as python_extract
from codeimpact.indexer.lang.grammars import get_language
from codeimpact.indexer.lang.queries import query_text
from codeimpact.native.facts import fact_engine, keep_steps
from codeimpact.native.runner import native_syntax

pytestmark = pytest.mark.skipif(native_syntax() is None, reason="the native path does not run")

QUERY = query_text("codeimpact.indexer.lang.python", "queries.scm")
ROOT = Path(python_extract.__file__).resolve().parents[3]


def engine(query: str = QUERY, grammar: str = "python", store: dict | None = None):
    args = (get_language(grammar), query, python_extract.RULES, python_extract._HOOKS,
            python_extract._TYPES)  # fmt: skip
    if store is None:
        return fact_engine(*args)
    with keep_steps(store.get, store.__setitem__):
        return fact_engine(*args)


def facts_by(made, source: bytes) -> bytes:
    tree = python_extract._parser().parse(source)
    before = python_extract._engine
    python_extract._engine = lambda: made
    try:
        return python_extract.facts_of_tree(tree.root_node, source).to_bytes()
    finally:
        python_extract._engine = before


def test_an_engine_made_from_exported_steps_makes_the_same_facts():
    store: dict = {}
    compiled, again = engine(store=store), engine(store=store)
    assert not compiled.from_steps and again.from_steps and len(store) == 1
    assert again.steps() == compiled.steps()
    sources = [*sorted((ROOT / "indexer").rglob("*.py")), *sorted((ROOT / "graph").glob("*.py"))]
    assert len(sources) > 150
    for path in sources:
        data = path.read_bytes()
        assert facts_by(again, data) == facts_by(compiled, data), path


def test_steps_of_another_query_or_damaged_bytes_are_compiled_over():
    steps = engine().steps()
    other = QUERY + "\n(pass_statement) @reference.type\n"
    store = {}
    made = engine(other, store=store)  # the store holds no steps of this query yet
    assert not made.from_steps
    for bad in (steps, steps[:-1], steps[:40], b"", b"\0" * len(steps),
                steps[:-5] + bytes(5)):  # fmt: skip
        store = {k: bad for k in store}
        assert not engine(other, store=store).from_steps


def test_a_query_the_walk_cannot_run_is_compiled_when_the_cursor_first_runs():
    # a negated field: the walk does not implement it, so the cursor runs every file
    query = "(call function: (_) @callee !arguments) @reference.call\n" + QUERY
    store: dict = {}
    compiled, again = engine(query, store=store), engine(query, store=store)
    assert again.from_steps and not again.walkable
    source = (ROOT / "indexer" / "extraction.py").read_bytes()
    assert facts_by(again, source) == facts_by(compiled, source)


PROBE = """
import json, sys
from codeimpact.cli import main
from codeimpact.indexer.lang.python import extract
try:
    main(["analyze", "--index-only", "--json", sys.argv[1]])
except SystemExit as e:
    assert not e.code, e.code
print(json.dumps(extract._engine().from_steps))
"""


def test_an_edit_takes_the_compiled_query_from_the_facts_cache(make_repo):
    files = {f"pkg/m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(6)}
    repo = make_repo({**files, "pkg/a.py": "def f():\n    return 1\n"})

    def analyze() -> tuple[dict, bool]:
        out = subprocess.run([sys.executable, "-c", PROBE, str(repo)], capture_output=True,
                             text=True, check=True).stdout.splitlines()  # fmt: skip
        return json.loads("\n".join(out[:-1])), json.loads(out[-1])

    report, from_steps = analyze()
    assert report["mode"] == "full" and not from_steps  # compiled, and kept
    (repo / "pkg/a.py").write_text("def f():\n    return 2\n\n\ndef g():\n    return f()\n")
    report, from_steps = analyze()
    assert report["mode"] == "incremental" and report["parsed"] == 1 and from_steps


def test_steps_kept_in_the_facts_cache_are_handed_to_the_file_at_once(tmp_path):
    """The extraction workers are forked right after the engines are made: a child holding
    the pack writer's buffered bytes would write them a second time (FactsCache.settle)."""
    from codeimpact.indexer.extraction import _own
    from codeimpact.indexer.facts_cache import FactsCache

    cache = FactsCache(tmp_path, "0123456789abcdef0123")
    put = _own(cache)
    put("engine:python:0", b"steps")
    assert not cache._buffered and cache.get("engine:python:0") == b"steps"
    assert (cache.root / cache._pack).read_bytes() == b"steps"  # in the file, not a buffer
