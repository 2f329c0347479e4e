"""native/core_gather.c's gather_file (indexer/full_graph.py FullGraph's gathering) gives the
graph the Python loops (the reference, `FullGraph(native=False)`) give: on the resolved files
of a real build of this repository's code and every language's fixtures, and on rows written
to reach each case (None in every column kind, non-ASCII, another file's edges, external
targets, a uid given twice, several batches)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from codeimpact.graph import layout
from codeimpact.indexer import full_graph
from codeimpact.indexer.build import analyze
from codeimpact.indexer.config import IndexConfig, RunOptions
from codeimpact.indexer.resolved import Edge, ResolvedFile, SymbolRow
from codeimpact.indexer.state import load_graph_state, read_ref

_core = pytest.importorskip("codeimpact.native._core")
if not hasattr(_core, "gather_file"):
    pytest.skip("an extension built before gather_file", allow_module_level=True)

ROOT = Path(__file__).resolve().parents[1]


def _content(tmp_path: Path, native: bool, files: list[tuple[str, bytes]],
             batch: int | None = None, monkeypatch=None) -> full_graph.FullContent:  # fmt: skip
    if batch is not None:
        monkeypatch.setattr(full_graph, "SPILL_ROWS", batch)
        monkeypatch.setattr(full_graph, "BATCH_ROWS", batch)
    scratch = tmp_path / ("native" if native else "python")
    scratch.mkdir(exist_ok=True)
    g = full_graph.FullGraph(scratch, native=native)
    assert (g._gather is _core.gather_file) == native
    for path, blob in files:
        g.add_blob(path, blob)
    return g.finish()


def _same(a: full_graph.FullContent, b: full_graph.FullContent) -> None:
    for f in ("rel", "src", "dst", "confidence", "reason", "line"):
        x, y = getattr(a, f), getattr(b, f)
        assert x.dtype == y.dtype and np.array_equal(x, y), f
    assert a.symbols.schema == b.symbols.schema
    assert a.symbols.to_pylist() == b.symbols.to_pylist()
    assert a.uids.equals(b.uids) and a.reasons.equals(b.reasons)
    assert a.ids == b.ids
    assert list(a.ext_refs.items()) == list(b.ext_refs.items())
    assert a.foreign == b.foreign and a.calls == b.calls
    assert a.pack_spans == b.pack_spans and a.n_resolved == b.n_resolved
    assert a.pack.read_bytes() == b.pack.read_bytes()


def _blobs(repo: Path) -> list[tuple[str, bytes]]:
    gen = layout.read_current(layout.index_dir(repo))
    st = load_graph_state(gen.path)
    return [(p, read_ref(gen.path, ref)) for p, ref in sorted(st.resolved_refs.items())]


def test_a_real_build_gathers_as_the_python_loops(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    shutil.copytree(ROOT / "indexer", repo / "indexer")
    shutil.copytree(ROOT / "tests" / "lang", repo / "lang")
    analyze(str(repo), IndexConfig(), RunOptions(workers=1))
    files = _blobs(repo)
    assert len(files) > 100
    languages = set()
    for batch in (None, 1000):  # one batch, and many (their rows gathered in other batches)
        native = _content(tmp_path, True, files, batch, monkeypatch)
        python = _content(tmp_path, False, files, batch, monkeypatch)
        _same(native, python)
        languages = set(native.symbols["language"].to_pylist())
    assert {"python", "java", "go", "typescript"} <= languages
    assert native.ext_refs  # (another file's edges: the next test)


def _row(uid: str, i: int, **changes) -> SymbolRow:
    path = uid.split("::")[0]
    row = SymbolRow(uid, "function", uid[-2:], uid.replace("::", "."), path, i, i + 3, 10 * i,
                    10 * i + 9, "(x)", i % 2 == 0, i % 3 == 0, "python")  # fmt: skip
    return row._replace(**changes)


def _cases() -> list[ResolvedFile]:
    a = ResolvedFile("a.py")
    a.symbols = [
        _row("a.py::", 0, name="", qualified_name=""),
        _row("a.py::f", 1, signature=None),  # a null in a string column
        _row("a.py::ünï", 2, name="ünï", signature="(é: 日本)"),
        _row("a.py::g", 3, start_line=None, exported=None),  # null int, null bool
        _row("a.py::f", 4, kind="method"),  # the uid again: its last row stays
    ]
    a.edges = [
        Edge("CALLS", "a.py::f", "b.py::h", 1.0, "scope", 3),
        Edge("CALLS", "a.py::f", "<external>::os.path.join", 0.7, "import", 4),
        Edge("CALLS", "a.py::f", "b.py::h", 0.5, "value-flow", 2),  # (a duplicate)
        Edge("REFERENCES", "b.py::h", "a.py::ünï", 0.9, "scope", 9),  # another file's
        Edge("CONTAINS", "a.py::", "a.py::f", 1.0, "scope", 1),
        Edge("CALLS", "a.py::g", "a.py::missing", 1.0, "scope", 5),  # to no symbol
    ]
    a.unresolved = []
    a.calls_total, a.calls_builtin = 7, 1
    b = ResolvedFile("b.py")
    b.symbols = [_row("b.py::h", 5), *(_row(f"b.py::s{i}", i) for i in range(40))]
    b.edges = [Edge("CALLS", "b.py::h", "<external>::os.path.join", 0.7, "import", 1),
               Edge("IMPORTS", "b.py::", "<external>::sys", 1.0, "import", 1)]  # fmt: skip
    b.symbols.append(_row("b.py::", 0))
    return [a, b]


def test_each_case_gathers_as_the_python_loops(tmp_path, monkeypatch):
    a, b = _cases()
    files = []
    for rf in (a, b):
        from codeimpact.indexer.state import resolved_blob

        files.append((rf.path, resolved_blob(rf)))
    for batch in (None, 3):
        native = _content(tmp_path, True, files, batch, monkeypatch)
        python = _content(tmp_path, False, files, batch, monkeypatch)
        _same(native, python)
    rows = {r["uid"]: r for r in native.symbols.to_pylist()}
    assert rows["a.py::f"]["kind"] == "method" and rows["a.py::f"]["start_line"] == 4
    assert rows["a.py::g"]["start_line"] is None and rows["a.py::g"]["exported"] is None
    assert rows["a.py::ünï"]["signature"] == "(é: 日本)"
    assert native.foreign == {("REFERENCES", "b.py::h", "a.py::ünï"): ["a.py"]}
    assert native.ext_refs == {"<external>::os.path.join": 2, "<external>::sys": 1}


def test_the_rows_and_edges_gathered_wait_in_files_until_finish(tmp_path, monkeypatch):
    """While the resolvers run, the builder holds at most SPILL_ROWS gathered rows and the
    edges gathered with them: the rest wait in files beside the index, which `finish` takes
    back (the graph the Python loops give) and removes; `abandon` removes them too."""
    from codeimpact.indexer.state import resolved_blob

    monkeypatch.setattr(full_graph, "SPILL_ROWS", 4)
    files = [(rf.path, resolved_blob(rf)) for rf in _cases()]
    files += [(f"c{i}.py", resolved_blob(ResolvedFile(
        f"c{i}.py", [_row(f"c{i}.py::f", 1), _row(f"c{i}.py::g", 2)],
        [Edge("CALLS", f"c{i}.py::f", "a.py::f", 1.0, "scope", 3)]))) for i in range(20)]  # fmt: skip
    scratch = tmp_path / "native"
    scratch.mkdir()
    g = full_graph.FullGraph(scratch)
    for path, blob in files:
        g.add_blob(path, blob)
    # in memory: the rows since the last spill (fewer than 4) and their edges (one a file)
    assert len(g._symbol_nos) // 4 == 5 + 42 + 40 and len(g._symbol_nos) // 4 - g._rows_given < 4
    assert not g._batches and len(g._src) // 4 <= 2
    assert sorted(p.name.split("-")[1] for p in scratch.glob("gather-*")) == ["cols", "rows"]
    native = g.finish()
    assert not list(scratch.glob("gather-*"))
    _same(native, _content(tmp_path, False, files))
    failed = tmp_path / "failed"
    failed.mkdir()
    g = full_graph.FullGraph(failed)
    for path, blob in files:
        g.add_blob(path, blob)
    g.abandon()
    assert not list(failed.iterdir())


def test_a_killed_builds_pack_and_spill_are_removed_by_the_next(tmp_path):
    # (a kill -9 runs no cleanup: the next full build, under the same index lock, does)
    left = [tmp_path / "pack-abc.tmp", tmp_path / "gather-rows-abc.tmp",
            tmp_path / "gather-cols-abc.tmp"]  # fmt: skip
    for p in left:
        p.write_bytes(b"x" * 100)
    keep = tmp_path / "pack-1.bin"
    keep.write_bytes(b"y")
    g = full_graph.FullGraph(tmp_path)
    assert not any(p.exists() for p in left) and keep.exists()
    g.abandon()


def test_add_takes_the_same_way(tmp_path):
    """`add` (a resolution in this process) gathers a ResolvedFile's rows as `add_blob`."""
    rf = ResolvedFile("a.py", [_row("a.py::f", 1)], [Edge("CALLS", "a.py::f", "a.py::f", 1.0,
                                                          "scope", 2)])  # fmt: skip
    for native in (True, False):
        g = full_graph.FullGraph(tmp_path, native=native)
        g.add(rf)
        c = g.finish()
        assert c.symbols["uid"].to_pylist() == ["a.py::f"] and c.src.tolist() == [0]


def test_the_symbol_table_is_given_out_as_soon_as_it_is_made(tmp_path):
    """A full build sends the Symbol table to its database writer from inside `finish`, as
    soon as it is made (the writer COPYs it while the edges are deduplicated): the table
    given out is the content's, whole, once."""
    g = full_graph.FullGraph(tmp_path)
    for rf in _cases():
        g.add(rf)
    given = []
    c = g.finish(given.append)
    assert len(given) == 1 and given[0] is c.symbols and c.n_nodes > 0
    assert [t.num_rows for _, t in full_graph.symbol_slices(given[0])] == [c.n_nodes]


def test_a_bad_row_is_refused(tmp_path):
    g = full_graph.FullGraph(tmp_path)
    with pytest.raises(TypeError):
        g._gather(g._g, full_graph.KINDS, "a.py", "<external>::", [_row("a.py::f", 1, name=3)],
                  [])  # fmt: skip
    with pytest.raises(KeyError):
        g._gather(g._g, full_graph.KINDS, "a.py", "<external>::", [],
                  [("NOPE", "a.py::f", "a.py::f", 1.0, "scope", 1)])  # fmt: skip
    g.abandon()


@pytest.mark.parametrize("ids", [5000, 1 << 31])  # the packed keys, and the plain lexsort
@pytest.mark.parametrize("repeated", [True, False])  # keys given more than once, or none
def test_best_first_is_the_seven_key_lexsort(ids, repeated):
    """finish's edge order (full_graph._best_first) is np.lexsort of the seven keys, ties and
    all: equal keys, negative and int32-extreme lines, -0.0 and 0.0, relays, every rank; and
    it says which place is the first of its key."""
    rng = np.random.default_rng(7)
    n = 5000
    rel = rng.integers(0, len(full_graph.RELS), n).astype(np.int8)
    src = rng.integers(0, 50, n).astype(np.int64) if repeated else rng.permutation(n)
    dst = rng.integers(0, 50, n).astype(np.int64)
    conf = rng.choice([1.0, 0.9, 0.5, 0.0, -0.0], n)
    relay = rng.random(n) < 0.3
    line = rng.choice([-(1 << 31), -3, 0, 1, 2, 7, (1 << 31) - 1], n).astype(np.int64)
    rank = rng.integers(0, (1 << 15) - 1, n).astype(np.int64)
    rank[::3] = 4  # (ties down to the last key)
    reason = np.arange(n)  # (a reason per edge: its relay and rank)
    got, first = full_graph._best_first(rel, src, dst, conf, line, reason, relay, rank, ids)
    want = np.lexsort((rank, line, relay, -conf, dst, src, rel))
    assert np.array_equal(got, want)
    keys = list(zip(rel[want].tolist(), src[want].tolist(), dst[want].tolist()))
    assert first.tolist() == [i == 0 or k != keys[i - 1] for i, k in enumerate(keys)]


def test_a_blob_is_read_from_its_bytes_whoever_wrote_it(tmp_path, monkeypatch):
    """add_blob reads a resolved blob's bytes in C (gather_blob) as the C writer makes it and
    as marshal does (indexer/state.py `_resolved_blob`: other string codes, references to
    ints, strings not shared), and one it does not read (an int beyond 32 bits: marshal's
    long) is decoded into tuples first: the graph is the Python loops' each way."""
    from codeimpact.indexer.state import _resolved_blob, resolved_blob

    a, b = _cases()
    big = ResolvedFile("c.py", [_row("c.py::big", 1, start_byte=1 << 40)],
                       [Edge("CALLS", "c.py::big", "a.py::f", 0.5, "scope", 1 << 20)])  # fmt: skip
    plain = ResolvedFile("d.py", [tuple(_row("d.py::p", 2))],
                         [tuple(Edge("CALLS", "d.py::p", "b.py::h", 1, "scope", 3))])  # fmt: skip
    by_c = [(rf.path, resolved_blob(rf)) for rf in (a, b)]
    by_marshal = [(rf.path, _resolved_blob(rf)) for rf in (a, b, plain)]
    unread = [(big.path, resolved_blob(big))]
    scratch = full_graph.FullGraph(tmp_path)
    read = [_core.gather_blob(scratch._g, full_graph.KINDS, p, "<external>::", blob)
            for p, blob in by_c + by_marshal + unread]  # fmt: skip
    scratch.abandon()
    assert [r is None for r in read] == [False] * 5 + [True]
    for files in (by_c, by_marshal, by_c + by_marshal + unread):
        for batch in (None, 2):
            native = _content(tmp_path, True, files, batch, monkeypatch)
            python = _content(tmp_path, False, files, batch, monkeypatch)
            _same(native, python)
    rows = {r["uid"]: r for r in native.symbols.to_pylist()}
    assert rows["c.py::big"]["start_byte"] == 1 << 40
    assert native.foreign == {("REFERENCES", "b.py::h", "a.py::ünï"): ["a.py", "a.py"]}
    assert native.calls == {"total": 14, "builtin": 2, "unresolved": 0, "resolved": 12}


def test_a_blob_cut_short_is_not_read(tmp_path):
    """A blob whose bytes end early (or run on) is one gather_blob does not read: None, the
    gathered state untouched (add_blob's marshal.loads then says what is wrong with it)."""
    from codeimpact.indexer.state import resolved_blob

    a, _ = _cases()
    blob = resolved_blob(a)
    g = full_graph.FullGraph(tmp_path)
    for bad in (blob[: len(blob) // 2], blob[:-1], blob + b"N", b"", b"[\0\0\0\0"):
        assert _core.gather_blob(g._g, full_graph.KINDS, "a.py", "<external>::", bad) is None
    assert g._uids == [] and not any(len(x) for x in g._g[5:13])
    g.abandon()


def test_the_relation_tables_name_each_uid_once(tmp_path):
    """A relation table's ends are dictionary arrays over the uids its edges name, each once
    (taken as strings, every end was a uid copied: Django's 27 MB, ~10K page faults of the
    builder): the same (source, target, properties) rows as the edges, and a database built
    from them holds those edges."""
    import kuzu
    import pyarrow as pa

    from codeimpact.graph.schema import REL_TABLES
    from codeimpact.graph.store import ddl

    g = full_graph.FullGraph(tmp_path)
    for rf in _cases():
        g.add(rf)
    c = g.finish()
    uids = c.uids.to_pylist()
    tables = dict(full_graph.rel_tables(c))
    db = kuzu.Database(str(tmp_path / "db"))
    conn = kuzu.Connection(db)
    for stmt in ddl():
        conn.execute(stmt)
    _copy(conn, "Symbol", c.symbols)
    for no, name in enumerate(full_graph.RELS):
        at = np.flatnonzero(c.rel == no)
        table = tables[name]
        named = set(c.src[at].tolist()) | set(c.dst[at].tolist())
        for end, ids in (("from", c.src[at]), ("to", c.dst[at])):
            column = table[end].combine_chunks()
            assert pa.types.is_dictionary(column.type), (name, end)
            words = column.dictionary.to_pylist()
            assert len(set(words)) == len(words) == len(named), (name, end)
            assert column.to_pylist() == [uids[i] for i in ids], (name, end)
        if "reason" in table.column_names:
            assert table["reason"].to_pylist() == [c.reasons[i].as_py() for i in c.reason[at]]
        if table.num_rows:
            _copy(conn, name, table)
        got = conn.execute(f"MATCH (a:Symbol)-[r:{name}]->(b:Symbol) RETURN a.uid, b.uid")
        pairs = sorted(tuple(got.get_next()) for _ in range(len(at)) if got.has_next())
        assert pairs == sorted((uids[s], uids[d]) for s, d in zip(c.src[at], c.dst[at]))
    assert set(tables) == set(REL_TABLES)


def _copy(conn, name: str, arrow_rows) -> None:
    conn.execute(f"COPY {name} FROM arrow_rows")  # (Kùzu's COPY scans a variable by name)
