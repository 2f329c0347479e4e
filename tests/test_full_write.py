"""The full build's database written by a process of its own (graph/full_write.py): what it
raised comes back as such, and a writer that dies is an error, never a half-written answer.
Each test runs with a writer started at the write (a fresh interpreter) and with one forked
beforehand (`prestart`, as a full build does before it resolves)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pyarrow as pa
import pytest

from codeimpact.graph import layout
from codeimpact.graph.arrow import arrow_table
from codeimpact.graph.full_write import WriterDied, prestart, write_generation
from codeimpact.graph.schema import NODE_TABLES, REL_TABLES
from codeimpact.graph.store import count_rows
from codeimpact.indexer.lifeline import die_with_parent

FILE_ROW = ("a.py", "python", "0" * 16, 10, 1, False, "ok")


def _gen(tmp_path: Path, number: int = 1) -> layout.Generation:
    folder = tmp_path / layout.generation_dirname(number)
    folder.mkdir()
    return layout.Generation(number, folder)


def _children() -> list[int]:
    pids = []
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        pids += [int(p) for p in (task / "children").read_text().split()]
    return pids


@pytest.fixture(params=["at the write", "prestarted"])
def writer(request):
    """The `writer=` argument: None (started by write_generation) or a prestarted one."""
    if request.param == "at the write":
        yield None
        return
    w = prestart(die_with_parent)
    yield w
    w.cancel()


def test_the_tables_and_meta_are_written_and_counted(tmp_path, writer):
    gen = _gen(tmp_path)
    rows = write_generation(gen, [("File", arrow_table(NODE_TABLES["File"], [FILE_ROW]))],
                            {"generation": 1, "mode": "full"}, 64 << 20,
                            writer=writer)  # fmt: skip
    assert rows["File"] == 1 and rows["Symbol"] == 0
    import kuzu

    db = kuzu.Database(str(gen.db_path), read_only=True)
    conn = kuzu.Connection(db)
    assert count_rows(conn) == rows
    res = conn.execute("MATCH (m:Meta {key: 'mode'}) RETURN m.value")
    assert res.get_next()[0] == '"full"'
    if writer is not None:
        writer.cancel()  # (a prestarted one that answered is left to exit: this reaps it)
    assert _children() == []  # waited for


def test_a_begun_writer_makes_the_database_before_the_tables_come(tmp_path):
    # a full build names the generation as its resolution ends: the writer makes the
    # database and its schema while the builder still makes the tables
    gen = _gen(tmp_path)
    w = prestart(die_with_parent)
    try:
        w.begin(gen, 64 << 20)
        deadline = time.monotonic() + 60
        while not gen.db_path.exists():  # made by the child alone: nothing else sent yet
            assert time.monotonic() < deadline, "the begun writer made no database"
            time.sleep(0.01)
        rows = write_generation(gen, [("File", arrow_table(NODE_TABLES["File"], [FILE_ROW]))],
                                {"generation": 1, "mode": "full"}, 64 << 20,
                                writer=w)  # fmt: skip
    finally:
        w.cancel()
    assert rows["File"] == 1 and rows["Symbol"] == 0
    assert _children() == []


def test_what_the_writer_raised_is_raised_here(tmp_path, writer):
    with pytest.raises(ValueError, match=r"File: columns \['x'\] != schema"):
        write_generation(_gen(tmp_path), [("File", pa.table({"x": [1]}))], {}, 64 << 20,
                         writer=writer)  # fmt: skip
    assert _children() == []  # waited for


def test_a_prestarted_writer_that_is_not_used_is_stopped(tmp_path):
    w = prestart(die_with_parent)
    assert _children() == [w.pid]
    w.cancel()
    assert _children() == []  # stopped and waited for
    assert list(tmp_path.iterdir()) == []  # it wrote nothing


def test_a_killed_writer_is_an_error(tmp_path, writer):
    def tables():
        yield "File", arrow_table(NODE_TABLES["File"], [FILE_ROW])
        for pid in _children():  # the writer, started before the first table was taken
            os.kill(pid, signal.SIGKILL)
        yield "File", arrow_table(NODE_TABLES["File"], [])

    with pytest.raises(WriterDied, match="without an answer"):
        write_generation(_gen(tmp_path), tables(), {}, 64 << 20, writer=writer)
    assert _children() == []


def test_a_table_cut_short_is_the_builder_gone(tmp_path):
    """The tables go as Arrow IPC streams straight into the pipe (no byte count ahead): a
    stream that ends before its end marker is the builder gone in the middle of a table,
    never a table written."""
    import io
    import json

    from codeimpact.graph.full_write import _rows, _write_stream

    sink = io.BytesIO()
    _write_stream(sink, arrow_table(NODE_TABLES["File"], [FILE_ROW] * 50))
    stream = sink.getvalue()
    gen = _gen(tmp_path)
    w = prestart(die_with_parent)
    head = {"folder": str(gen.path), "number": gen.number, "buffer_pool": 64 << 20}
    w.to_child.write(json.dumps(head).encode() + b"\n" + b'{"table": "File"}\n')
    w.to_child.write(stream[: len(stream) // 2])
    w.to_child.close()
    line = w.from_child.read().strip().splitlines()[-1]
    with pytest.raises(RuntimeError, match="in the middle of a table"):  # (its text, sent)
        _rows(line, w._reap(), w.err)
    w.cancel()
    assert _children() == []


class _Said:
    """A Kùzu connection that records the statements run through it."""

    def __init__(self, conn):
        self.conn, self.said = conn, []

    def execute(self, query, *args):
        self.said.append(query)
        return self.conn.execute(query, *args)

    def close(self):
        self.conn.close()


@pytest.mark.parametrize("after", [False, True], ids=["nothing after", "a write after"])
def test_a_writer_checkpoints_again_at_close_only_after_a_write(tmp_path, after):
    # the writer checkpoints (and counts) once, after Meta: closing then finds an empty WAL,
    # so it runs no second CHECKPOINT; a write after that checkpoint is checkpointed by close
    import kuzu

    from codeimpact.graph.store import Writer

    gen = _gen(tmp_path)
    w = Writer(gen, 64 << 20, 1)
    w.create_schema()
    w.copy("File", arrow_table(NODE_TABLES["File"], [FILE_ROW]))
    w.conn = spy = _Said(w.conn)  # after the COPY: it reads its table from its caller's frame
    w.write_meta({"mode": "full"})
    assert w.checkpoint()["File"] == 1
    if after:
        w.execute("CREATE (:File {path: 'b.py', language: 'python', content_hash: '1', "
                  "size: 1, lines: 1, is_test: false, status: 'ok'})")  # fmt: skip
    w.close()
    assert spy.said.count("CHECKPOINT") == (2 if after else 1)
    db = kuzu.Database(str(gen.db_path), read_only=True)
    assert count_rows(kuzu.Connection(db))["File"] == (2 if after else 1)


def test_a_checkpointed_database_is_final_closing_writes_nothing(tmp_path):
    # what the checkpoint wrote is the file readers get: the close writes no byte of it
    # again (Kùzu's own checkpoint at close rewrote its header), and an edit's delta
    # committed to its WAL afterwards (graph/wal_store.py) is what a reader then replays
    import kuzu

    from codeimpact.graph.store import Writer

    gen = _gen(tmp_path)
    w = Writer(gen, 64 << 20, 1)
    w.begin()
    w.create_schema()
    w.copy("File", arrow_table(NODE_TABLES["File"], [FILE_ROW]))
    w.copy_meta({"mode": "full"})
    assert w.checkpoint(read_back=False)["File"] == 1
    written, stat = gen.db_path.read_bytes(), gen.db_path.stat()
    w.close()
    assert gen.db_path.read_bytes() == written
    assert gen.db_path.stat().st_mtime_ns == stat.st_mtime_ns
    assert sorted(p.name for p in gen.path.iterdir()) == [layout.DB_FILENAME]
    # an edit's writer: its delta committed to the WAL, the process ended without a close
    edit = (
        "import kuzu, os, sys\n"
        "db = kuzu.Database(sys.argv[1], auto_checkpoint=False, max_num_threads=1)\n"
        "kuzu.Connection(db).execute(\"CREATE (:File {path: 'b.py', language: 'python', "
        "content_hash: '1', size: 1, lines: 1, is_test: false, status: 'ok'})\")\n"
        "os._exit(0)\n"
    )
    subprocess.run([sys.executable, "-c", edit, str(gen.db_path)], check=True)
    assert gen.db_path.read_bytes() == written
    assert Path(str(gen.db_path) + ".wal").stat().st_size > 0
    reader = kuzu.Database(str(gen.db_path), read_only=True)
    assert count_rows(kuzu.Connection(reader))["File"] == 2


def test_a_prestarted_writer_takes_its_first_tables_before_the_rest(tmp_path):
    # a full build sends the node tables as its graph is finished (the writer COPYs them
    # while the builder makes Meta and the relations), the rest with Meta at the write
    file_table = [("File", arrow_table(NODE_TABLES["File"], [FILE_ROW]))]
    gen = _gen(tmp_path)
    w = prestart(die_with_parent)
    with pytest.raises(ValueError, match="send before begin"):
        w.send(file_table)
    w.begin(gen, 64 << 20)
    w.send(file_table)
    symbols = [("Symbol", arrow_table(NODE_TABLES["Symbol"], []))]
    rows = write_generation(gen, symbols, {"generation": 1}, 64 << 20, writer=w)
    w.cancel()  # (reaps it: a writer that answered is left to exit, see below)
    assert (rows["File"], rows["Symbol"], _children()) == (1, 0, [])


def test_a_table_sent_ahead_to_a_writer_that_has_not_read_yet_does_not_hold_the_builder(tmp_path):
    # the builder sends File with `begin` and Symbol as soon as it is made, and goes on with
    # its graph: a writer not yet scheduled (stopped here) must not hold it there, whatever
    # the table's size (Django's Symbol: 14 MB; a pipe holds 1 MB at most): the table goes
    # as a file of the generation, which the writer maps, then removes
    rows = [(f"pkg/m{i:05d}.py", "python", f"{i:016x}", 10, 1, False, "ok") for i in range(40000)]
    files = arrow_table(NODE_TABLES["File"], rows)
    assert files.nbytes > 2 << 20  # more than any pipe holds
    gen = _gen(tmp_path)
    w = prestart(die_with_parent)
    os.kill(w.pid, signal.SIGSTOP)
    try:
        w.begin(gen, 64 << 20)
        sending = threading.Thread(target=w.send, args=([("File", files)],), daemon=True)
        sending.start()
        sending.join(60)
        held = sending.is_alive()
    finally:
        os.kill(w.pid, signal.SIGCONT)
    symbols = [("Symbol", arrow_table(NODE_TABLES["Symbol"], []))]
    written = write_generation(gen, symbols, {"generation": 1}, 64 << 20, writer=w)
    w.cancel()
    assert not held
    assert written["File"] == 40000
    assert sorted(p.name for p in gen.path.iterdir() if ".arrow" in p.name) == []


def test_a_begun_writer_checkpoints_its_copies_once_at_the_end(tmp_path):
    # Kùzu 0.11 checkpoints at the end of each COPY's own transaction (the pages go into
    # graph.kz at once); in the writer's one transaction nothing reaches graph.kz (still
    # its 4 KB header) until `checkpoint` commits it, and then every row is there
    import kuzu

    from codeimpact.graph.store import Writer

    gen = _gen(tmp_path)
    w = Writer(gen, 64 << 20, 1)
    header = gen.db_path.stat().st_size
    w.begin()
    w.create_schema()
    w.copy("File", arrow_table(NODE_TABLES["File"], [FILE_ROW]))
    w.copy("Symbol", arrow_table(NODE_TABLES["Symbol"], []))
    w.write_meta({"mode": "full"})
    assert gen.db_path.stat().st_size == header  # no COPY checkpointed on its own
    w.conn = spy = _Said(w.conn)  # after the COPYs: they read their tables from this frame
    assert w.checkpoint()["File"] == 1
    w.close()
    # the COMMIT checkpointed (a COPY forces it) and left no WAL: no CHECKPOINT after it
    assert "COMMIT" in spy.said and "CHECKPOINT" not in spy.said
    assert gen.db_path.stat().st_size > header
    db = kuzu.Database(str(gen.db_path), read_only=True)
    conn = kuzu.Connection(db)
    assert count_rows(conn)["File"] == 1
    assert conn.execute("MATCH (m:Meta {key: 'mode'}) RETURN m.value").get_next()[0] == '"full"'


def test_meta_copied_into_a_new_database_is_the_meta_merged_key_by_key(tmp_path):
    # a full write COPYs Meta into its new database (one statement); an in-place write
    # MERGEs it key by key: the same rows, and the same values kept in files beside it
    import kuzu

    from codeimpact.graph.meta_files import meta_from_files
    from codeimpact.graph.store import Writer

    meta = {"mode": "full", "generation": 3, "stats": {"files": 1, "edges": {"CALLS": 2}},
            "tree_signature": {"a.py": [1, 2]}, "incomplete": [{"code": "binary", "path": "x"}],
            "empty": None, "text": "it's \"quoted\""}  # fmt: skip
    seen = []
    for number, way in ((1, Writer.copy_meta), (2, Writer.write_meta)):
        gen = _gen(tmp_path, number)
        w = Writer(gen, 64 << 20, 1)
        w.begin()
        w.create_schema()
        way(w, meta)
        w.checkpoint()
        w.close()
        conn = kuzu.Connection(kuzu.Database(str(gen.db_path), read_only=True))
        res = conn.execute("MATCH (m:Meta) RETURN m.key, m.value")
        rows = {}
        while res.has_next():
            key, value = res.get_next()
            rows[key] = value
        seen.append((rows, meta_from_files(gen.path)))
    assert seen[0] == seen[1]
    assert set(seen[0][0]) == set(meta) - {"tree_signature", "incomplete"}
    assert seen[0][1] == {"tree_signature": {"a.py": [1, 2]},
                          "incomplete": [{"code": "binary", "path": "x"}]}  # fmt: skip


def test_a_begun_writer_commits_before_its_copies_pass_a_share_of_the_pool(tmp_path):
    # what a transaction's COPYs wrote stays in the buffer pool until its COMMIT: past
    # pool / TRANSACTION_POOL_SHARE of Arrow bytes the writer commits and begins again, so a
    # graph larger than that share of a small pool still writes
    import kuzu

    from codeimpact.graph.store import TRANSACTION_POOL_SHARE, Writer

    pool = 16 << 20

    def symbols(first: int, n: int) -> pa.Table:
        rows = [(f"m.f{i}", i, "function", f"f{i}", f"m.f{i}", "a.py", 1, 2, 0, 9, "x" * 200,
                 False, False, "python") for i in range(first, first + n)]  # fmt: skip
        return arrow_table(NODE_TABLES["Symbol"], rows)

    half = symbols(0, 10_000)
    assert half.nbytes * 2 > pool // TRANSACTION_POOL_SHARE > half.nbytes
    gen = _gen(tmp_path)
    w = Writer(gen, pool, 1)
    w.begin()
    w.create_schema()
    w.copy("File", arrow_table(NODE_TABLES["File"], [FILE_ROW]))
    w.copy("Symbol", half)
    w.conn = spy = _Said(w.conn)
    w.copy("Symbol", symbols(10_000, 10_000))
    columns = [("from", "STRING"), ("to", "STRING"), *REL_TABLES["CALLS"][2]]
    calls = arrow_table(columns, [("m.f1", "m.f2", 1.0, "direct", 3)])
    w.copy("CALLS", calls)
    w.write_meta({"mode": "full"})
    rows = w.checkpoint()
    w.close()
    assert spy.said.count("COMMIT") == 2  # before the second half, and at the end
    assert (rows["File"], rows["Symbol"], rows["CALLS"]) == (1, 20_000, 1)
    db = kuzu.Database(str(gen.db_path), read_only=True)
    assert count_rows(kuzu.Connection(db)) == rows


def test_a_prestarted_writer_that_answered_is_left_to_exit_then_reaped_by_cancel(tmp_path):
    """Its answer read, the build goes on while the writer exits (its memory freed by the
    kernel: not waited for on the build's serial end); `cancel`, at the build's scope end,
    reaps it: no child left."""
    w = prestart(die_with_parent)
    try:
        rows = write_generation(_gen(tmp_path), [("File", arrow_table(NODE_TABLES["File"],
                                                                    [FILE_ROW]))],
                                {"generation": 1, "mode": "full"}, 64 << 20, writer=w)  # fmt: skip
        assert rows["File"] == 1
        assert w.pid in _children()  # (exiting or a zombie: not waited for)
    finally:
        w.cancel()
    assert _children() == []


def _sent(tables: list[pa.Table], meta: dict | None = None) -> bytes:
    """What a builder sends for `tables` (each as a File table), then `meta` if given."""
    import io
    import json

    from codeimpact.graph.full_write import _write_stream

    sink = io.BytesIO()
    for table in tables:
        sink.write(json.dumps({"table": "File"}).encode() + b"\n")
        _write_stream(sink, table)
    if meta is not None:
        sink.write(json.dumps({"meta": meta}).encode() + b"\n")
    return sink.getvalue()


def _files(n: int) -> pa.Table:
    return arrow_table(NODE_TABLES["File"], [(f"f{i}.py", *FILE_ROW[1:]) for i in range(n)])


def _send_all(fd: int, data: bytes) -> threading.Thread:
    """A builder thread writing `data` into the pipe `fd` (blocking while it is full)."""

    def send() -> None:
        with os.fdopen(fd, "wb") as sink:
            sink.write(data)

    thread = threading.Thread(target=send)
    thread.start()
    return thread


def test_the_writer_reads_the_tables_ahead_of_its_copies():
    # the builder never waits on a full pipe while a COPY runs: the tables after the one
    # being copied are read in the meantime (here: while the first is held, never done)
    from codeimpact.graph.full_write import _ReadAhead

    data = _sent([_files(5000), _files(6000), _files(7000)], {"mode": "full"})
    assert len(data) > 4 * (1 << 16)  # more than a pipe holds: the builder would block
    r, w = os.pipe()
    with os.fdopen(r, "rb") as source:
        ahead = _ReadAhead(source, 64 << 20)
        builder = _send_all(w, data)
        name, first = ahead.next()
        assert (name, first.num_rows) == ("File", 5000)
        builder.join(60)  # all sent while the first table is still being copied
        assert not builder.is_alive()
        assert [ahead.next()[1].num_rows for _ in range(2)] == [6000, 7000]
        assert ahead.next() == ("meta", {"mode": "full"})


def test_the_writer_reads_no_further_ahead_than_its_bound():
    # a table larger than the bound (a large tree's) is read only once the COPY before it is
    # done: the writer holds one such table at a time, as without reading ahead
    import fcntl

    from codeimpact.graph.full_write import _ReadAhead

    r, w = os.pipe()
    with os.fdopen(r, "rb") as source:
        ahead = _ReadAhead(source, 1)  # any table fills the bound
        sender = _send_all(os.dup(w), _sent([_files(4000)]))
        name, got = ahead.next()
        sender.join(60)
        assert not sender.is_alive() and got.num_rows == 4000
        # the second table now, without blocking: nothing reads it while the first is held,
        # so the pipe fills before all of it is in
        rest = _sent([_files(4000)], {"mode": "full"})
        fcntl.fcntl(w, fcntl.F_SETFL, fcntl.fcntl(w, fcntl.F_GETFL) | os.O_NONBLOCK)
        written = 0
        with pytest.raises(BlockingIOError):
            while written < len(rest):
                written += os.write(w, rest[written:])
        fcntl.fcntl(w, fcntl.F_SETFL, fcntl.fcntl(w, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        del got  # the first table copied: the next `next` lets the second be read
        sender = _send_all(w, rest[written:])
        assert ahead.next()[1].num_rows == 4000
        assert ahead.next() == ("meta", {"mode": "full"})
        sender.join(60)


def _symbols(first: int, n: int) -> pa.Table:
    rows = [(f"a.py::f{i}", i, "function", f"f{i}", f"a.f{i}", "a.py", 1, 2, 0, 9, "", True,
             False, "python") for i in range(first, first + n)]  # fmt: skip
    return arrow_table(NODE_TABLES["Symbol"], rows)


def test_the_rows_a_writer_answers_are_the_rows_its_database_holds(tmp_path, writer):
    # the answer sums what each COPY wrote (a table may come in slices: Symbol does), each
    # COPY's count checked against its Arrow table; read back here from the closed file
    gen = _gen(tmp_path)
    files = arrow_table(NODE_TABLES["File"], [FILE_ROW])
    defines = pa.table({"from": ["a.py"] * 3, "to": [f"a.py::f{i}" for i in range(3)]})
    contains = pa.table({"from": ["a.py::f0"] * 4, "to": [f"a.py::f{i}" for i in range(1, 5)]})
    tables = [("File", files), ("Symbol", _symbols(0, 3)), ("Symbol", _symbols(3, 2)),
              ("DEFINES", defines), ("CONTAINS", contains)]  # fmt: skip
    rows = write_generation(gen, tables, {"generation": 1}, 64 << 20, writer=writer)
    import kuzu

    conn = kuzu.Connection(kuzu.Database(str(gen.db_path), read_only=True))
    assert rows == count_rows(conn)
    assert (rows["File"], rows["Symbol"], rows["DEFINES"], rows["CONTAINS"]) == (1, 5, 3, 4)


def test_a_copy_that_wrote_other_rows_than_it_was_sent_is_an_error(tmp_path):
    from codeimpact.graph.errors import CorruptIndex
    from codeimpact.graph.store import Writer, copied_rows

    w = Writer(_gen(tmp_path), 64 << 20, 1)
    w.create_schema()
    rows = _symbols(0, 3)  # noqa: F841 - Kùzu's COPY reads it by name
    said = w.conn.execute("COPY Symbol FROM rows")
    assert copied_rows(said) == 3
    said = w.conn.execute("MATCH (s:Symbol) RETURN count(*)")
    assert copied_rows(said) is None  # (an answer that is no COPY's)
    one = _symbols(3, 1)  # noqa: F841
    said = w.conn.execute("COPY Symbol FROM one")
    with pytest.raises(CorruptIndex, match="wrote 1 of the 2 rows sent"):
        w._count_copied("Symbol", said, 2)  # (as if two had been sent)
    w.close()
