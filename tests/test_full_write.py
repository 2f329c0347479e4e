"""The full build's database written by a process of its own (graph/full_write.py): what it
raised comes back as such, and a writer that dies is an error, never a half-written answer."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pyarrow as pa
import pytest

from codeimpact.graph import layout
from codeimpact.graph.arrow import arrow_table
from codeimpact.graph.full_write import WriterDied, write_generation
from codeimpact.graph.schema import NODE_TABLES
from codeimpact.graph.store import count_rows

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


def test_the_tables_and_meta_are_written_and_counted(tmp_path):
    gen = _gen(tmp_path)
    rows = write_generation(gen, [("File", arrow_table(NODE_TABLES["File"], [FILE_ROW]))],
                            {"generation": 1, "mode": "full"}, 64 << 20)  # fmt: skip
    assert rows["File"] == 1 and rows["Symbol"] == 0
    import kuzu

    db = kuzu.Database(str(gen.db_path), read_only=True)
    conn = kuzu.Connection(db)
    assert count_rows(conn) == rows
    res = conn.execute("MATCH (m:Meta {key: 'mode'}) RETURN m.value")
    assert res.get_next()[0] == '"full"'


def test_what_the_writer_raised_is_raised_here(tmp_path):
    with pytest.raises(ValueError, match=r"File: columns \['x'\] != schema"):
        write_generation(_gen(tmp_path), [("File", pa.table({"x": [1]}))], {}, 64 << 20)
    assert _children() == []  # waited for


def test_a_killed_writer_is_an_error(tmp_path):
    def tables():
        yield "File", arrow_table(NODE_TABLES["File"], [FILE_ROW])
        for pid in _children():  # the writer, started before the first table was taken
            os.kill(pid, signal.SIGKILL)
        yield "File", arrow_table(NODE_TABLES["File"], [])

    with pytest.raises(WriterDied, match="without an answer"):
        write_generation(_gen(tmp_path), tables(), {}, 64 << 20)
    assert _children() == []
