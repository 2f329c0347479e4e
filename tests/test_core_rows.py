"""native/core_rows.c: Python definitions' rows and CONTAINS edges (`symbol_rows`, called by
playback.py `Playback.definitions`) are the ones its Python loop `_definitions` makes, and the
facts' lists decoded by `typed_list` (api.py `_list_makers`) are tuple.__new__'s: the same
values, the same named tuple types, in the same order."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest

from codeimpact import indexer
from codeimpact.indexer.lang import api
from codeimpact.indexer.lang.api import CallFact, FileFacts, SymbolFact
from codeimpact.indexer.lang.engine.edges import Edges
from codeimpact.indexer.lang.python import SPEC
from codeimpact.indexer.resolved import Edge, SymbolRow, strip_dup
from codeimpact.native import _core


def _both(project, fi, is_test: bool):
    rows, edges, py_rows, py_edges = [], Edges(), [], Edges()
    project.definitions(fi, rows, edges, is_test)
    project._definitions(fi, py_rows, py_edges, is_test)
    return (rows, edges), (py_rows, py_edges)


def _typed(made) -> list:
    return [(type(x), x) for part in made for x in part]


def test_rows_of_real_files_as_the_python_loop():
    files = _facts_of_indexer()
    assert len(files) > 50
    project = SPEC.make_project(files)
    made = 0
    for path in files:
        fi = project.files[path]
        for is_test in (False, True):
            c, py = _both(project, fi, is_test)
            assert _typed(c) == _typed(py), path
            made += len(c[0])
    assert made > 1000


def _sym(local: str, name: str, line: int = 1) -> SymbolFact:
    kind = "module" if not local else "function"
    return SymbolFact(local, kind, name, line, line + 1, 0, 10, "", True, False, (), ())


@pytest.mark.parametrize("path", ["pkg/mod.py", "script.py", "pkg/__init__.py", "pkg/ünï.py"])
def test_module_symbol_duplicates_and_nesting(path):
    facts = SPEC.extract(b"def f():\n    pass\n")
    facts.symbols = [_sym("", ""), _sym("f", "f"), _sym("f#2", "f", 3), _sym("f#2.inner", "inner"),
                     _sym("C.m#3.x", "x"), _sym("日本", "日本"), _sym("a.b.c", "c")]  # fmt: skip
    files = {"pkg/__init__.py": SPEC.extract(b""), path: facts}
    project = SPEC.make_project(files)
    fi = project.files[path]
    c, py = _both(project, fi, False)
    assert _typed(c) == _typed(py)
    rows, edges = c
    assert rows[0].name == project.module_symbol_name(fi)  # (the empty name)
    assert rows[0].qualified_name == fi.module
    assert [r.qualified_name.rpartition(fi.module + ".")[2] for r in rows[3:5]] == [
        "f.inner", "C.m.x"]  # fmt: skip
    assert [(e.src, e.dst) for e in edges][-1] == (f"{path}::a.b", f"{path}::a.b.c")


def test_bad_arguments_raise():
    with pytest.raises(TypeError):
        _core.symbol_rows([("x",)], [], [], "p", "", "python", False, 1.0, str, strip_dup,
                          SymbolRow, Edge)  # fmt: skip
    with pytest.raises(TypeError):
        _core.symbol_rows([], [], [], "p", "", "python", False, 1.0, str, strip_dup, dict, Edge)


def _facts_of_indexer() -> dict[str, FileFacts]:
    root = Path(indexer.__file__).parent
    return {p.relative_to(root.parent).as_posix(): SPEC.extract(p.read_bytes())
            for p in sorted(root.rglob("*.py"))}  # fmt: skip


def _lists(facts: FileFacts) -> list:
    return [(type(x), x) for part in (facts.symbols, facts.imports, facts.calls, facts.heritage,
            facts.references, facts.bindings, facts.returns) for x in part]  # fmt: skip


def test_decoded_facts_as_tuple_new(monkeypatch):
    blobs = [f.to_bytes() for f in _facts_of_indexer().values()]
    in_c = [_lists(FileFacts.from_bytes(b)) for b in blobs]
    python = tuple(partial(api._mapped, partial(tuple.__new__, k)) for k in api._KINDS)
    monkeypatch.setattr(api, "_lists", python)
    assert in_c == [_lists(FileFacts.from_bytes(b)) for b in blobs]
    assert sum(map(len, in_c)) > 10000


def test_typed_list_of_any_items():
    call = ("", "f", 3, "call", (), ())
    made = _core.typed_list(CallFact, [call, list(call), iter(call)])
    assert made == [call] * 3 and {type(x) for x in made} == {CallFact}
    assert _core.typed_list(CallFact, ()) == []
    with pytest.raises(TypeError):
        _core.typed_list(dict, [])
    with pytest.raises(TypeError):
        _core.typed_list(CallFact, [1])


def test_typed_list_retypes_the_tuples_only_its_list_holds():
    # (marshal's: made the fact type in place, not copied; a tuple held elsewhere too is
    # copied, and stays the plain tuple its holder has)
    import gc
    import marshal

    decoded = marshal.loads(
        marshal.dumps([("", "f", 3, "call", (), ()), ("", "g", 4, "call", (), ())])
    )
    ids = [id(x) for x in decoded]
    held = decoded[1]
    made = _core.typed_list(CallFact, decoded)
    assert [type(x) for x in made] == [CallFact, CallFact]
    assert id(made[0]) == ids[0] and made[1] is not held and type(held) is tuple
    assert made == [("", "f", 3, "call", (), ()), ("", "g", 4, "call", (), ())]
    assert made[0].callee == "f" and made[1].line == 4
    del decoded, held
    gc.collect()
    assert made[0] == ("", "f", 3, "call", (), ())
