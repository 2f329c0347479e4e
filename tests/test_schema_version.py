"""The schema version: pinned to the DDL, written to Meta, checked on every open."""

from __future__ import annotations

import json
import subprocess

import kuzu
import pytest

from codeimpact.graph import layout
from codeimpact.graph.errors import SchemaMismatch
from codeimpact.graph.schema import SCHEMA_VERSION, ddl, ddl_fingerprint
from codeimpact.graph.store import Reader
from codeimpact.query.index import Index

# The fingerprint of the DDL each schema version stands for. Changing a table, a
# column or a type changes the fingerprint: then bump SCHEMA_VERSION and add its
# fingerprint here. Editing the fingerprint of an existing version is the mistake
# this test exists to catch.
DDL_FINGERPRINTS = {
    1: "87054e138490702c",
}


def test_ddl_matches_the_fingerprint_of_its_version():
    assert SCHEMA_VERSION in DDL_FINGERPRINTS, (
        f"SCHEMA_VERSION {SCHEMA_VERSION} has no pinned fingerprint; add "
        f"{SCHEMA_VERSION}: {ddl_fingerprint()!r} to DDL_FINGERPRINTS"
    )
    assert ddl_fingerprint() == DDL_FINGERPRINTS[SCHEMA_VERSION], (
        "the DDL changed without a SCHEMA_VERSION bump: bump it in graph/schema.py and pin "
        f"the new fingerprint {ddl_fingerprint()!r}"
    )


def test_fingerprint_sees_a_column_change(monkeypatch):
    from codeimpact.graph import schema

    before = ddl_fingerprint()
    files = [*schema.NODE_TABLES["File"], ("mtime", "INT64")]
    monkeypatch.setitem(schema.NODE_TABLES, "File", files)
    assert any("mtime INT64" in stmt for stmt in ddl())
    assert ddl_fingerprint() != before


def _set_meta(repo, key: str, value: str) -> None:
    """Overwrite one Meta value in the live database, as a foreign writer would."""
    gen = layout.read_current(layout.index_dir(repo))
    db = kuzu.Database(str(gen.db_path))
    conn = kuzu.Connection(db)
    conn.execute("MERGE (m:Meta {key: $k}) SET m.value = $v", {"k": key, "v": value})
    conn.execute("CHECKPOINT")
    conn.close()
    db.close()
    # a foreign write changes the file's size; re-record it so only the version differs
    layout.publish(layout.index_dir(repo), gen)


def test_meta_records_the_schema_version(make_repo, index_repo):
    repo = make_repo({"a.py": "def f():\n    return 1\n"})
    index_repo(repo)
    with Index.open(repo) as index:
        assert index.meta["schema_version"] == SCHEMA_VERSION
        assert index.meta["identity"]["schema"] == SCHEMA_VERSION


@pytest.mark.parametrize("version", [SCHEMA_VERSION + 1, SCHEMA_VERSION - 1])
def test_other_schema_version_is_refused_with_the_fix(make_repo, index_repo, version):
    repo = make_repo({"a.py": "def f():\n    return 1\n"})
    index_repo(repo)
    _set_meta(repo, "schema_version", json.dumps(version))
    with pytest.raises(SchemaMismatch) as err:
        Reader(repo)
    msg = str(err.value)
    assert f"schema version {version}" in msg
    assert f"version {SCHEMA_VERSION}" in msg
    assert "graph analyze --force" in msg

    for args in (["status", str(repo)], ["search", "f", "--repo", str(repo)]):
        out = subprocess.run(["graph", *args], capture_output=True, text=True)
        assert out.returncode == 2, out
        assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
        assert "graph analyze --force" in out.stderr

    # the fix the message names works
    fix = subprocess.run(["graph", "analyze", "--force", str(repo)], capture_output=True)
    assert fix.returncode == 0, fix.stderr
    check = subprocess.run(["graph", "status", "--check", str(repo)], capture_output=True)
    assert check.returncode == 0, check.stderr


def test_index_without_a_version_is_refused(make_repo, index_repo):
    repo = make_repo({"a.py": "x = 1\n"})
    index_repo(repo)
    gen = layout.read_current(layout.index_dir(repo))
    db = kuzu.Database(str(gen.db_path))
    conn = kuzu.Connection(db)
    conn.execute("MATCH (m:Meta {key: 'schema_version'}) DELETE m")
    conn.execute("CHECKPOINT")
    conn.close()
    db.close()
    layout.publish(layout.index_dir(repo), gen)
    with pytest.raises(SchemaMismatch, match="graph analyze --force"):
        Reader(repo)
