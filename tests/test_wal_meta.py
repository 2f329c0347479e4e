"""An incremental run's delta and its Meta go into the WAL in one commit
(graph/wal_store.py `write_delta`): each commit syncs the WAL (~10-20 ms on these
machines), and a Meta that cannot be written leaves no delta behind it."""

from __future__ import annotations

from pathlib import Path

import pytest

from codeimpact.graph import layout
from codeimpact.graph.arrow import arrow_table
from codeimpact.graph.delta import GraphDelta
from codeimpact.graph.full_write import write_generation
from codeimpact.graph.schema import NODE_TABLES
from codeimpact.graph.store import count_rows
from codeimpact.graph.wal_store import Opened, write_delta

FILE_ROW = ("a.py", "python", "0" * 16, 10, 1, False, "ok")
NEW_ROW = ("b.py", "python", "1" * 16, 20, 2, False, "ok")


def _db(tmp_path: Path) -> Path:
    folder = tmp_path / layout.generation_dirname(1)
    folder.mkdir()
    gen = layout.Generation(1, folder)
    write_generation(gen, [("File", arrow_table(NODE_TABLES["File"], [FILE_ROW]))],
                     {"generation": 1, "mode": "full"}, 64 << 20)  # fmt: skip
    return gen.db_path


def _meta(conn) -> dict[str, str]:
    res = conn.execute("MATCH (m:Meta) RETURN m.key, m.value")
    out = {}
    while res.has_next():
        k, v = res.get_next()
        out[k] = v
    return out


def test_the_delta_and_its_meta_commit_together(tmp_path):
    db_path = _db(tmp_path)
    opened = Opened(db_path, 64 << 20)
    rows = write_delta(opened, db_path, GraphDelta(files_upsert=[NEW_ROW]),
                       {"generation": 2, "mode": "incremental"})  # fmt: skip
    assert rows["File"] == 2
    assert _meta(opened.conn)["mode"] == '"incremental"'

    # a Meta that cannot be written: the delta before it is not committed either
    with pytest.raises(TypeError):
        write_delta(opened, db_path, GraphDelta(files_delete=["b.py"]),
                    {"generation": 3, "mode": object()})  # fmt: skip
    assert count_rows(opened.conn)["File"] == 2
    assert _meta(opened.conn)["generation"] == "2"
    opened.conn.close()
    opened.db.close()
