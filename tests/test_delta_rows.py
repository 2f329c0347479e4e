"""A delta's statements by key, row by row, on a large table (graph/delta.py row_limit).

On the kernel's 2.2M symbols a statement joined with `UNWIND` scans the whole table, so a
delta runs row by row up to a share of the Symbol table's rows. These tests make that share
cover every row of a small repository, so the row-by-row path writes deltas of dozens of
rows in each statement (inserts, updates, edge deletes and creates), and hold each
generation to a full build's."""

from __future__ import annotations

import os
import time
from pathlib import Path

import kuzu
import pytest
from test_incremental import assert_same_as_full, run

from codeimpact.graph import delta as graph_delta
from codeimpact.graph import layout
from codeimpact.indexer import spare_leveller
from conftest import write_files

N = 40
# every function calls the next and is shifted by a line inserted at the top of the file:
# each of them gets a new row (lines), a new CALLS edge (its line) and its CONTAINS edge
CHAIN = "".join(f"def f{i}():\n    return f{i + 1}()\n\n\n" for i in range(N)) + (
    f"def f{N}():\n    return 0\n"
)


@pytest.fixture
def chain_repo(tmp_path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    # files the edits leave alone: one file of two changed would be rebuilt in full
    others = {f"o{i}.py": "def o():\n    return 1\n" for i in range(8)}
    write_files(repo, {"chain.py": CHAIN, **others,
                       "use.py": "from chain import f0\n\n\ndef main():\n    f0()\n"})  # fmt: skip
    assert run(repo).mode == "full"
    return repo


def _limit(repo: Path) -> int:
    gen = layout.read_current(layout.index_dir(repo))
    db = kuzu.Database(str(gen.db_path), read_only=True)
    try:
        return graph_delta.row_limit(kuzu.Connection(db))
    finally:
        db.close()


def test_the_limit_follows_the_symbol_table(chain_repo, monkeypatch):
    assert _limit(chain_repo) == graph_delta.ROW_BY_ROW_MAX  # a small table: the floor
    monkeypatch.setattr(graph_delta, "SYMBOLS_PER_ROW", 1)
    assert _limit(chain_repo) > N  # one a symbol: every statement below runs by row


@pytest.mark.parametrize("per_row", [1, 10**9], ids=["by-row", "joined"])
def test_a_wide_delta_by_row_equals_a_full_build(chain_repo, tmp_path, monkeypatch, per_row):
    monkeypatch.setattr(graph_delta, "SYMBOLS_PER_ROW", per_row)
    edits = [
        "# a line above every function\n" + CHAIN,  # every row and edge of the file moves
        CHAIN.replace("return f20()", "return f0()"),  # an edge goes, another comes
        CHAIN + "".join(f"\n\ndef g{i}():\n    return f{i}()\n" for i in range(N)),  # rows added
        CHAIN,  # and removed again
    ]
    for text in edits:
        (chain_repo / "chain.py").write_text(text)
        report = run(chain_repo)
        assert report.mode == "incremental", report.reason
        rows = sum(report.delta[k] for k in ("symbols_updated", "symbols_inserted",
                                               "symbols_deleted"))  # fmt: skip
        assert rows > graph_delta.ROW_BY_ROW_MAX, report.delta  # wider than the floor
        assert_same_as_full(chain_repo, tmp_path, with_answers=False)


def test_an_edge_whose_row_is_the_same_is_not_written_again(chain_repo, tmp_path, monkeypatch):
    # a line above every function moves each function down: its CALLS edge gets another
    # line (a column: set in place), its CONTAINS edge only another line of the resolver's
    # (not a column: the same row, left in the database as it is)
    from codeimpact.graph import wal_store

    monkeypatch.setenv(spare_leveller.CHECKPOINT_DB_ENV, "0")  # (the levellers leave their logs)
    (chain_repo / "chain.py").write_text("# a line above every function\n" + CHAIN)
    report = run(chain_repo)
    assert report.mode == "incremental", report.reason
    assert report.delta["symbols_updated"] >= N
    assert report.delta["edges_deleted"] == report.delta["edges_inserted"] == 0, report.delta
    assert report.delta["edges_updated"] == N, report.delta  # CALLS only
    assert_same_as_full(chain_repo, tmp_path, with_answers=True)
    # back up a line, the spare's WAL (those updates, replayed) checkpointed by the writer
    monkeypatch.setattr(wal_store, "COMPACT_WAL_BYTES", 0)  # (the writer is forked)
    for text in (CHAIN, "# two lines\n# above\n" + CHAIN):
        (chain_repo / "chain.py").write_text(text)
        report = run(chain_repo)
        assert report.delta["edges_updated"] == N and report.delta["compacted"], report.delta
        assert_same_as_full(chain_repo, tmp_path, with_answers=True)


def _send_once(monkeypatch, flag: Path) -> None:
    """The run hands its delta over once the writer made `flag` (or after 30 s)."""
    from codeimpact.indexer import delta_write

    real_send = delta_write.EarlyWrite.send

    def send(self, *args, **kwargs):
        deadline = time.monotonic() + 30
        while not flag.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        return real_send(self, *args, **kwargs)

    monkeypatch.setattr(delta_write.EarlyWrite, "send", send)


def test_the_writer_warms_up_before_the_delta_without_writing(chain_repo, tmp_path, monkeypatch):
    """The prestarted writer runs each kind of statement once, matching nothing, while it
    waits for the run's delta (graph/delta.py warm_up): nothing reaches the database."""
    from codeimpact.graph import store, wal_store

    warmed = tmp_path / "warmed"
    real = wal_store.warm_up_statements

    def warm_up(conn, stop=lambda: False, then=()) -> None:  # (in the forked writer: its
        idx = layout.index_dir(chain_repo)  # database is the new generation's)
        wal = idx / layout.read_marker(idx).dir / (layout.DB_FILENAME + ".wal")
        size = lambda: wal.stat().st_size if wal.exists() else 0  # noqa: E731
        before = (store.count_rows(conn), size())
        real(conn, stop, then)
        warmed.write_text(str(before == (store.count_rows(conn), size())))

    monkeypatch.setattr(wal_store, "warm_up_statements", warm_up)
    # the run hands its delta over once the writer warmed up (on so small a tree the delta
    # is often there first, and the writer then goes straight to it)
    _send_once(monkeypatch, warmed)
    (chain_repo / "chain.py").write_text(CHAIN.replace("return f20()", "return f0()"))
    report = run(chain_repo)
    assert report.mode == "incremental" and report.forks["delta writer"] == "forked"
    assert warmed.read_text() == "True"
    assert_same_as_full(chain_repo, tmp_path, with_answers=False)
    # and on its own: a database warmed up holds what it held, its WAL unchanged
    gen = layout.read_current(layout.index_dir(chain_repo))
    opened = wal_store.Opened(gen.db_path, 64 << 20)
    rows = store.count_rows(opened.conn)
    real(opened.conn)
    assert store.count_rows(opened.conn) == rows
    opened.close_checkpointed()


def test_the_warm_up_runs_each_kind_of_edge_statement_on_one_table(chain_repo, monkeypatch):
    """Kùzu's first statement of a kind costs its parser ~15 ms, the same statement on any
    other table ~1.6 ms more: the warm-up runs each kind once (edges with properties and
    without: deleted, created, updated), not once per table (the deltas on the tables it
    does not warm: the other tests here and test_incremental's)."""
    from codeimpact.graph import wal_store
    from codeimpact.graph.schema import REL_TABLES

    ran: list[tuple[str, str]] = []
    for name in ("_delete_edges", "_create_edges", "_update_edges"):
        real = getattr(graph_delta, name)

        def record(conn, rel, *args, _name=name, _real=real, **kwargs):
            ran.append((_name, rel))
            return _real(conn, rel, *args, **kwargs)

        monkeypatch.setattr(graph_delta, name, record)
    run(chain_repo)
    gen = layout.read_current(layout.index_dir(chain_repo))
    opened = wal_store.Opened(gen.db_path, 64 << 20)
    ran.clear()
    try:
        graph_delta.warm_up(opened.conn)
        warmed = list(ran)  # (the close below rewrites an edge of every group)
    finally:
        opened.close_checkpointed()
    kinds = {bool(REL_TABLES[rel][2]) for rel in graph_delta.WARMED_RELS}
    assert kinds == {True, False}  # one table with properties, one without
    assert sorted(warmed) == sorted(
        [(f, rel) for rel in graph_delta.WARMED_RELS for f in ("_delete_edges", "_create_edges")]
        + [("_update_edges", rel) for rel in graph_delta.WARMED_RELS if REL_TABLES[rel][2]]
    )


def test_a_delta_is_written_by_kuzu_on_one_thread(chain_repo):
    """A delta's statements are a few rows each: Kùzu's other threads did none of their work
    and, on a busy machine, their hand-offs waited for a core (graph/wal_store.py)."""
    from codeimpact.graph import wal_store

    run(chain_repo)
    gen = layout.read_current(layout.index_dir(chain_repo))
    opened = wal_store.Opened(gen.db_path, 64 << 20)
    try:
        got = opened.conn.execute("CALL current_setting('threads') RETURN *").get_next()
    finally:
        opened.close_checkpointed()
    assert wal_store.DELTA_THREADS == 1 and [str(v) for v in got] == ["1"]


def test_the_writer_stops_its_warm_up_when_the_delta_comes(chain_repo, tmp_path, monkeypatch):
    """The warm-up asks before each statement whether the run's delta came, and ends there:
    the delta does not wait for the rest of it (~40 ms of CPU on Django at load)."""
    from codeimpact.graph import delta as graph_delta
    from codeimpact.graph import wal_store

    started, answers = tmp_path / "started", tmp_path / "answers"
    real, real_delete = wal_store.warm_up_statements, graph_delta._delete_edges

    def warm_up(conn, stop=None, then=()) -> None:  # (in the forked writer)
        started.write_text("")

        def asked() -> bool:
            yes = stop()
            with open(answers, "a") as fh:
                fh.write(f"{yes} ")
            return yes

        if stop is not None:
            real(conn, asked, then)

    def slow_delete(*args, **kwargs):  # each warm-up step takes a while
        time.sleep(0.1)
        return real_delete(*args, **kwargs)

    monkeypatch.setattr(wal_store, "warm_up_statements", warm_up)
    monkeypatch.setattr(graph_delta, "_delete_edges", slow_delete)
    _send_once(monkeypatch, started)  # once the warm-up began
    (chain_repo / "chain.py").write_text(CHAIN.replace("return f20()", "return f0()"))
    report = run(chain_repo)
    assert report.mode == "incremental" and report.forks["delta writer"] == "forked"
    said = answers.read_text().split()
    assert said[-1] == "True" and said.count("True") == 1, said
    assert_same_as_full(chain_repo, tmp_path, with_answers=True)


def test_the_writer_runs_the_delta_before_the_meta_comes(chain_repo, tmp_path, monkeypatch):
    """The run hands its delta over before it computes the Meta (which waits for the working
    tree's fields): the writer runs the statements meanwhile, and the Meta, sent then, ends
    the same transaction."""
    from codeimpact.indexer import incremental_run, wal_commit

    ran = tmp_path / "ran"
    real_meta_of = wal_commit._meta_of

    def meta_of(fh):  # (in the forked writer)
        meta = real_meta_of(fh)

        def after_the_statements():
            ran.write_text("ok")
            return meta()

        return after_the_statements

    monkeypatch.setattr(wal_commit, "_meta_of", meta_of)
    real_meta = incremental_run.generation_meta

    def generation_meta(*args, **kwargs):  # (in the run) once the writer ran the delta
        deadline = time.monotonic() + 30
        while not ran.exists():
            assert time.monotonic() < deadline, "the writer had not the delta before the Meta"
            time.sleep(0.01)
        return real_meta(*args, **kwargs)

    monkeypatch.setattr(incremental_run, "generation_meta", generation_meta)
    (chain_repo / "chain.py").write_text(CHAIN.replace("return f20()", "return f0()"))
    report = run(chain_repo)
    assert report.mode == "incremental" and report.forks["delta writer"] == "forked"
    assert_same_as_full(chain_repo, tmp_path, with_answers=True)


def test_the_writer_counts_the_rows_before_the_meta_comes(chain_repo, tmp_path, monkeypatch):
    """The rows are counted inside the delta's transaction before the Meta is read from the
    run (Meta is no counted table): the count is off the wait that follows the Meta, and
    what it counts is what the commit leaves (a full build's graph, row for row)."""
    from codeimpact.graph import wal_store
    from codeimpact.indexer import wal_commit

    order = tmp_path / "order"
    real_count, real_meta_of = wal_store._count, wal_commit._meta_of

    def count(conn, table):  # (in the forked writer)
        with open(order, "a") as fh:
            fh.write("count ")
        return real_count(conn, table)

    def meta_of(fh):
        meta = real_meta_of(fh)

        def read():
            with open(order, "a") as out:
                out.write("meta ")
            return meta()

        return read

    monkeypatch.setattr(wal_store, "_count", count)
    monkeypatch.setattr(wal_commit, "_meta_of", meta_of)
    (chain_repo / "chain.py").write_text(CHAIN.replace("return f20()", "return f0()"))
    report = run(chain_repo)
    assert report.mode == "incremental" and report.forks["delta writer"] == "forked"
    # (the node tables at least are counted after the delta; the edges maybe before it)
    assert order.read_text().split()[-3:] == ["count", "count", "meta"]
    assert_same_as_full(chain_repo, tmp_path, with_answers=True)


def test_the_side_files_are_written_while_the_tree_fields_come(chain_repo, tmp_path, monkeypatch):
    """A run whose tree-fields child is not done when the delta is handed over writes the
    side files that need no Meta meanwhile; the files state (it holds the Meta's commit) once
    the fields came."""
    from codeimpact.indexer import incremental_run, worktree
    from codeimpact.indexer.run import Run

    real_fields, order = incremental_run._tree_fields, []

    def slow_fields(run, prev):  # (in the forked child)
        time.sleep(1.0)
        return real_fields(run, prev)

    def spy(cls, name):
        real = getattr(cls, name)

        def call(*args, **kwargs):
            out = real(*args, **kwargs)
            order.append(name)
            return out

        monkeypatch.setattr(cls, name, call)

    monkeypatch.setattr(incremental_run, "_tree_fields", slow_fields)
    for cls, name in ((Run, "save_side_files"), (Run, "save_files_meta"),
                      (worktree.EarlyFields, "result")):  # fmt: skip
        spy(cls, name)
    (chain_repo / "chain.py").write_text(CHAIN.replace("return f20()", "return f0()"))
    report = run(chain_repo)
    assert report.mode == "incremental" and report.forks["tree fields"] == "forked"
    assert order == ["save_side_files", "result", "save_files_meta"]
    assert_same_as_full(chain_repo, tmp_path, with_answers=True)


def test_a_run_failing_after_it_sent_the_delta_commits_nothing(chain_repo, tmp_path, monkeypatch):
    from codeimpact.indexer import incremental_run

    idx = layout.index_dir(chain_repo)
    live = layout.read_current(idx)

    def generation_meta(*args, **kwargs):
        raise RuntimeError("the Meta failed")

    monkeypatch.setattr(incremental_run, "generation_meta", generation_meta)
    (chain_repo / "chain.py").write_text(CHAIN.replace("return f20()", "return f0()"))
    with pytest.raises(RuntimeError, match="the Meta failed"):
        run(chain_repo)
    assert layout.read_current(idx) == live
    children = Path(f"/proc/self/task/{os.getpid()}/children").read_text().split()
    assert not [c for c in children if Path(f"/proc/{c}").exists()]  # none left, no zombie
    monkeypatch.undo()
    report = run(chain_repo)
    assert report.mode == "incremental", report.reason
    assert_same_as_full(chain_repo, tmp_path, with_answers=False)


def test_an_edit_makes_each_files_state_once(chain_repo, monkeypatch):
    # the File rows' diff and the files state read one path -> FileState made per run
    # (Run.file_states): each file's state was made twice by an edit (2,930 x 2 on Django)
    from codeimpact.indexer import run as run_module

    made, real = [], run_module.file_state

    def file_state(record):
        made.append(record.path)
        return real(record)

    monkeypatch.setattr(run_module, "file_state", file_state)
    (chain_repo / "chain.py").write_text(CHAIN.replace("return f20()", "return f0()"))
    report = run(chain_repo)
    assert report.mode == "incremental"
    assert sorted(made) == sorted(set(made)) and len(made) == report.files


def test_the_writer_counts_the_edges_while_it_waits_for_the_delta(
    chain_repo, tmp_path, monkeypatch
):
    """Counting the relationship tables after the delta was ~10-25 ms of the writer's CPU on
    Django while the run waited for its answer: they are counted while the writer waits for
    the delta, and after it a table's rows are that count plus the edges the delta's
    statements made less those they deleted (the run checks them against its own totals:
    wrong, it would not publish)."""
    from codeimpact.graph import wal_store
    from codeimpact.graph.schema import REL_TABLES

    log, counted = tmp_path / "counts", tmp_path / "counted"
    real_count, real_write = wal_store._count, wal_store.write_delta

    def count(conn, table):  # (in the forked writer)
        with open(log, "a") as fh:
            fh.write(table + " ")
        if set(REL_TABLES) <= set(log.read_text().split()):
            counted.write_text("")
        return real_count(conn, table)

    def write_delta(*args, **kwargs):
        with open(log, "a") as fh:
            fh.write("| ")
        return real_write(*args, **kwargs)

    monkeypatch.setattr(wal_store, "_count", count)
    monkeypatch.setattr(wal_store, "write_delta", write_delta)
    _send_once(monkeypatch, counted)
    (chain_repo / "chain.py").write_text(CHAIN.replace("return f20()", "return f0()"))
    report = run(chain_repo)
    assert report.mode == "incremental" and report.forks["delta writer"] == "forked"
    before, after = log.read_text().split("|")
    assert set(before.split()) == set(REL_TABLES) and not set(after.split()) & set(REL_TABLES)
    assert report.delta["edges_inserted"] and report.delta["edges_deleted"], report.delta
    assert_same_as_full(chain_repo, tmp_path, with_answers=False)


def test_an_edge_the_database_could_not_make_is_a_lost_row(chain_repo, monkeypatch):
    # an edge whose end the database lacks is made by no statement: the rows the writer
    # reports fall short of the run's totals and nothing is published
    from codeimpact.indexer import delta_write

    real_send = delta_write.EarlyWrite.send

    def send(self, delta, *args, **kwargs):
        delta.rels_insert["CALLS"] = [("\0gone", *row[1:]) for row in delta.rels_insert["CALLS"]]
        return real_send(self, delta, *args, **kwargs)

    monkeypatch.setattr(delta_write.EarlyWrite, "send", send)
    (chain_repo / "chain.py").write_text(CHAIN.replace("return f20()", "return f0()"))
    report = run(chain_repo)
    assert report.mode == "full", report.reason
    assert report.reason.startswith("the delta lost database rows (CALLS"), report.reason
