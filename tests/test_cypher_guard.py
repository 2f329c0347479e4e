"""Cypher is one read-only query, checked before Kùzu sees it, for every way in.

Each hostile statement of the table goes in through the CLI (`graph cypher`), the
Python API (`Index.cypher`) and the MCP `cypher` tool: each must be refused with one
line naming what was refused (exit 2 on the CLI), nothing in the index folder may
change (every file's bytes and mtime), and the index must answer as before.
Tricky statements that are only data (keywords in strings, backticks or comments)
run and give the plain answer.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from codeimpact.cli import main
from codeimpact.graph.errors import BadInput
from codeimpact.query.cypher_guard import check_read_only, tokenize
from codeimpact.query.cypher_ranges import unfold_ranges
from codeimpact.query.index import Index
from codeimpact.tools import BY_NAME, bind
from conftest import build_indexed_repo

FILES = {
    "pkg/__init__.py": "",
    "pkg/a.py": "def helper():\n    return 1\n\n\ndef run():\n    return helper()\n",
    "pkg/b.py": "from pkg.a import run\n\n\ndef main():\n    return run()\n",
}

# (statement, what the one-line refusal must name)
REFUSED = [
    # statements that are not queries
    ("LOAD EXTENSION '/tmp/evil.so'", "LOAD"),
    ("load extension '/tmp/evil.so'", "LOAD"),
    ("LOAD FROM '/etc/passwd' RETURN *", "LOAD"),
    ("COPY (MATCH (n) RETURN n) TO '/tmp/out.csv'", "COPY"),
    ("COPY Symbol FROM '/tmp/in.csv'", "COPY"),
    ("EXPORT DATABASE '/tmp/dump'", "EXPORT"),
    ("IMPORT DATABASE '/tmp/dump'", "IMPORT"),
    ("INSTALL httpfs", "INSTALL"),
    ("ATTACH '/tmp/other.kz' AS o (dbtype kuzu)", "ATTACH"),
    ("DETACH o", "DETACH"),
    ("USE o", "USE"),
    ("CHECKPOINT", "CHECKPOINT"),
    ("checkpoint;", "CHECKPOINT"),
    ("BEGIN TRANSACTION", "BEGIN"),
    ("COMMIT", "COMMIT"),
    ("ROLLBACK", "ROLLBACK"),
    ("CREATE NODE TABLE X (id INT64, PRIMARY KEY (id))", "CREATE"),
    ("DROP TABLE File", "DROP"),
    ("ALTER TABLE File ADD x INT64", "ALTER"),
    ("CALL threads = 1", "CALL threads"),
    ("MATCH (call:Symbol) CALL file_info() RETURN call", "CALL file_info"),
    ("EXPLAIN CHECKPOINT", "CHECKPOINT"),
    # writing clauses inside a query, in any case, after any clause
    ("MATCH (n:Symbol) DELETE n", "DELETE"),
    ("MATCH (n:Symbol) DETACH DELETE n", "DETACH"),
    ("match (n:Symbol) detach delete n", "DETACH"),
    ("MaTcH (n:Symbol) SeT n.name = 'x' RETURN n", "SET"),
    ("MATCH (n:Symbol) REMOVE n.name", "REMOVE"),
    ("MERGE (n:Meta {key: 'k'}) RETURN n", "MERGE"),
    ("MATCH (a:Symbol) CREATE (a)-[:CALLS]->(a)", "CREATE"),
    ("MATCH (n:Symbol) WITH n ORDER BY n.uid DESC DELETE n RETURN 1", "DELETE"),
    ("UNWIND [1] AS x CREATE (:Meta {key: 'x', value: 'y'})", "CREATE"),
    ("WITH 1 AS delete DELETE delete", "DELETE"),
    ("RETURN 1 UNION LOAD FROM '/etc/passwd' RETURN *", "UNION followed by LOAD"),
    ("OPTIONAL LOAD FROM '/etc/passwd' RETURN *", "OPTIONAL followed by LOAD"),
    ("RETURN 1 AS x LOAD FROM '/etc/passwd' RETURN *", "LOAD"),
    # LOAD FROM or a writing clause inside a subquery
    ("MATCH (a:Symbol) WHERE EXISTS { LOAD FROM '/etc/passwd' RETURN * } RETURN a", "LOAD"),
    ("MATCH (a:Symbol) WHERE COUNT { MATCH (a)-->(b) SET b.name = 'x' } > 0 RETURN a", "SET"),
    # two statements: refused before Kùzu parses them (they can crash it)
    ("MATCH (n) RETURN n; MATCH (m) RETURN m", "more than one statement"),
    ("RETURN 1; CHECKPOINT", "more than one statement"),
    ("RETURN 1;;", "more than one statement"),
    ("RETURN 1 /* a */ ; /* b */ LOAD EXTENSION 'x'", "more than one statement"),
    # comments that hide a keyword only in a lexer that closes them differently from Kùzu
    ("RETURN 1 /* LOAD EXTENSION 'x' **/", "unclosed comment"),
    ("RETURN 1 // c\r LOAD EXTENSION 'x'", "carriage return"),
    ("RETURN 1 /* unclosed", "unclosed comment"),
    # strings and names that Kùzu's lexer would cut elsewhere
    ("RETURN 'it\\qs' ; CHECKPOINT //'", "unknown escape"),
    ("RETURN 'a\\x41' ; CHECKPOINT //'", "unknown escape"),
    ("RETURN 'unclosed ; CHECKPOINT", "unclosed string"),
    ("RETURN `unclosed ; CHECKPOINT", "unclosed backtick"),
    # unicode tricks
    ("RETURN 1; \uff2c\uff2f\uff21\uff24 EXTENSION 'x'", "imitates the keyword LOAD"),
    ("\uff2c\uff2f\uff21\uff24 FROM '/etc/passwd' RETURN *", "imitates the keyword LOAD"),
    ("MATCH (n) \u0421REATE (m) RETURN m", "unexpected"),  # Cyrillic Es
    ("MATCH (n) RETURN n LO\u200bAD FROM 'x'", "U+200B"),
    ("RETURN 1 \u202e", "U+202E"),
    ("RETURN 1\x00", "NUL"),
    ("RETURN 1\x85", "U+0085"),
    # functions and CALLs that read files, settings or objects, or change state
    ("CALL current_setting('home_directory') RETURN *", "CALL current_setting"),
    ("CALL read_csv_serial('/etc/passwd') RETURN *", "CALL read_csv_serial"),
    ("CALL file_info() RETURN *", "CALL file_info"),
    ("CALL project_graph('g', ['Symbol'], ['CALLS'])", "CALL project_graph"),
    ("CALL `read_pandas`(1) RETURN *", "CALL read_pandas"),
    ("RETURN nextval('seq')", "nextval"),
    ("RETURN `read_csv_serial`('/etc/passwd')", "read_csv_serial"),
    ("MATCH (n) RETURN copy_csv()", "copy_csv"),
    ("MATCH (n) RETURN n FINISH", "unexpected 'FINISH'"),
    ("", "empty query"),
    (" ; ", "empty query"),
    # what Kùzu's parser crashes on (3,000 parentheses, 1,000 calls) or takes minutes on
    ("RETURN " + "(" * 3000 + "1" + ")" * 3000, "6002 tokens, more than 5000"),
    ("RETURN " + "(" * 2000 + "1" + ")" * 2000, "nested more than 32 deep"),
    ("RETURN " + "abs(" * 1000 + "1" + ")" * 1000, "nested more than 32 deep"),
    ("RETURN " + "[" * 300 + "1" + "]" * 300, "nested more than 32 deep"),
    ("RETURN " + "CASE WHEN true THEN " * 30 + "1" + " END" * 30, "CASE nested more than 10"),
    ("RETURN 1" + " + 1" * 8000, "16002 tokens, more than 5000"),
    ("RETURN " + "NOT " * 30000 + "true", "30002 tokens, more than 5000"),
]

# (statement, the rows it answers): data that merely spells a keyword
ACCEPTED = [
    ("RETURN 'LOAD EXTENSION x; CHECKPOINT' AS s", [["LOAD EXTENSION x; CHECKPOINT"]]),
    ('RETURN "DELETE \\" SET" AS s', [['DELETE " SET']]),
    ("WITH 1 AS `CREATE` RETURN `CREATE`", [[1]]),
    ("WITH 1 AS `x``; CHECKPOINT` RETURN `x``; CHECKPOINT`", [[1]]),
    ("RETURN 1 // CHECKPOINT\n", [[1]]),
    ("RETURN /* LOAD FROM '/etc/passwd' */ 1", [[1]]),
    # Kùzu closes `/* ... **/` only at a later `*/`: all of this is one comment to both
    ("RETURN 1 /* x **/ ; LOAD EXTENSION 'a' /* */", [[1]]),
    ("RETURN 1;", [[1]]),  # a single trailing `;` is allowed
    ("RETURN 1 ;  // done", [[1]]),
    ("MATCH (m:Meta) WHERE m.key = 'schema_version' RETURN m.key AS key", [["schema_version"]]),
    ("MATCH (s:Symbol {name: 'helper'}) RETURN s.name AS set", [["helper"]]),
    ("UNWIND [2, 3] AS x RETURN x * x AS sq ORDER BY sq DESC", [[9], [4]]),
    ("RETURN $x AS v", [["LOAD FROM '/etc/passwd'"]]),
    ("CALL show_tables() WHERE name = 'File' RETURN name", [["File"]]),
    # keywords as pattern variables: Kùzu allows them, and no clause can stand there
    (
        "MATCH (a:Symbol {name: 'main'})-[call:CALLS]->(b) RETURN call.line, b.name",
        [[5, "run"]],
    ),
    ("MATCH (set:Symbol {name: 'helper'}) RETURN set.name", [["helper"]]),
    # nesting and length up to the guard's bounds (quoted CASE and END do not count)
    ("RETURN " + "(" * 32 + "1" + ")" * 32 + " AS v", [[1]]),
    ("RETURN " + "CASE WHEN true THEN " * 10 + "1" + " END" * 10 + " AS v", [[1]]),
    ("RETURN 0" + " + 1" * 2498 + " AS v", [[2498]]),
    ("WITH 1 AS `case` RETURN `case` + 1 AS `end`", [[2]]),
]


def snapshot(root: Path) -> dict[str, tuple]:
    """Every path under `root` with its bytes' hash, size and mtime."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            st = p.lstat()
            digest = hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
            out[str(p.relative_to(root))] = (digest, st.st_size, st.st_mtime_ns)
    return out


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    return build_indexed_repo(tmp_path_factory.mktemp("guard") / "repo", FILES)


def _answers(repo: Path) -> list:
    with Index.open(repo) as index:
        return index.cypher(
            "MATCH (a:Symbol)-[:CALLS]->(b:Symbol) RETURN a.uid, b.uid ORDER BY a.uid"
        ).rows


def _mcp_cypher(repo: Path, query: str) -> dict:
    tool = BY_NAME["cypher"]
    with Index.open(repo) as index:
        return tool.run(index, bind(tool, {"query": query}))


@pytest.mark.parametrize("query, named", REFUSED, ids=[repr(q)[:60] for q, _ in REFUSED])
def test_hostile_statements_are_refused_everywhere(repo, query, named):
    before = snapshot(repo / ".codeimpact")
    answers = _answers(repo)

    res = CliRunner().invoke(main, ["cypher", query, "--repo", str(repo)])
    assert res.exit_code == 2, (res.exit_code, res.output)
    lines = res.stderr.splitlines()
    assert len(lines) == 1 and named in lines[0], res.stderr
    assert lines[0].startswith("graph: cypher: ")
    with Index.open(repo) as index, pytest.raises(BadInput, match="cypher: "):
        index.cypher(query)
    with pytest.raises(BadInput) as refused:
        _mcp_cypher(repo, query)
    assert named in str(refused.value)

    assert snapshot(repo / ".codeimpact") == before
    assert _answers(repo) == answers and answers


@pytest.mark.parametrize("query, rows", ACCEPTED, ids=[repr(q)[:60] for q, _ in ACCEPTED])
def test_keywords_that_are_data_run(repo, query, rows):
    before = snapshot(repo / ".codeimpact")
    with Index.open(repo) as index:
        params = {"x": "LOAD FROM '/etc/passwd'"} if "$x" in query else {}
        result = index.cypher(query, params)
    assert result.rows == rows and result.truncated is False
    assert snapshot(repo / ".codeimpact") == before


def test_the_reader_is_read_only_and_a_checkpoint_would_have_damaged_it(repo, tmp_path):
    # Why the guard exists: the same CHECKPOINT sent to a read-only connection directly
    # writes shadow pages beside the database, after which it no longer opens read-only.
    copy = tmp_path / "copy"
    shutil.copytree(repo, copy)
    with Index.open(copy) as index:
        with contextlib.suppress(RuntimeError):  # it fails part way, after writing
            index.reader.conn.execute("CHECKPOINT")
        written = sorted(p.name for p in index.reader.gen.path.iterdir())
    assert any(name.endswith((".shadow", ".wal")) for name in written), written
    # ... while the guarded path refuses it and the real index is untouched
    before = snapshot(repo / ".codeimpact")
    with Index.open(repo) as index, pytest.raises(BadInput, match="CHECKPOINT"):
        index.cypher("CHECKPOINT")
    assert snapshot(repo / ".codeimpact") == before


def test_tokens_follow_kuzus_lexer():
    kinds = [(t.kind, t.text) for t in tokenize("MATCH (a:`x``y`) WHERE a.n = 'it''s' RETURN $p")]
    assert ("quoted", "x`y") not in kinds and ("quoted", "xy") in kinds  # Kùzu joins them
    assert ("param", "p") in kinds
    assert [t.text for t in tokenize("RETURN 1 /* a ***/ + 1")] == ["RETURN", "1", "+", "1"]
    assert [t.text for t in tokenize("RETURN x..y")] == ["RETURN", "x", "..", "y"]
    check_read_only("MATCH (n:Symbol) WHERE n.name =~ 'a.*' RETURN n.uid LIMIT 3")


FRAGMENTS = [
    "MATCH (n:Symbol)", "RETURN n.name", "RETURN 1", ";", " ", "/*", "*/", "**/", "//", "\n",
    "\r", "'", '"', "`", "\\", "\\'", "LOAD EXTENSION 'x.so'", "LOAD FROM '{out}/in.csv'",
    "COPY (MATCH (n) RETURN n) TO '{out}/out.csv'", "CHECKPOINT", "EXPORT DATABASE '{out}/exp'",
    "CREATE (:Meta {{key: 'z', value: 'z'}})", "SET n.name = 'q'", "DELETE n", "WITH n",
    "UNION", "ALL", "CALL show_tables()", "CALL current_setting('threads')", "AS", "x", "n",
    ".", ",", "(", ")", "{{", "}}", "[", "]", "$p", "CREATE", "call", "set", ":", "EXISTS {{",
    "WHERE", "=", "1", "UNWIND [1,2] AS x", "\u200b", "\uff2c\uff2f\uff21\uff24", "LIMIT 2",
    "range(1, 2)", "range(-2, $p)", "UNWIND range(0, 3) AS r", "-", "2",
]  # fmt: skip


def test_whatever_the_guard_accepts_changes_nothing(repo, tmp_path):
    """Random token soups: each one the guard lets through runs, as `run_cypher` sends it,
    on a copy of the index's database and must leave its files, and the folder it could
    write to, as they were."""
    import random

    import kuzu

    out = tmp_path / "out"
    out.mkdir()
    rng = random.Random(20240522)
    with Index.open(repo) as index:
        db_dir = index.reader.gen.path
    accepted = rewritten = 0
    for _ in range(1000):
        parts = rng.choices(FRAGMENTS, k=rng.randint(1, 8))
        query = "".join(p.format(out=out) + rng.choice(["", " "]) for p in parts)
        try:
            check_read_only(query)
        except BadInput:
            continue
        accepted += 1
        copy = tmp_path / "copy"
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(db_dir, copy)
        before = snapshot(copy)
        db = kuzu.Database(str(copy / "graph.kz"), read_only=True)
        conn = kuzu.Connection(db)
        # as run_cypher sends it: range()'s numbers as parameters
        sent = unfold_ranges(query, {"p": 1} if "$p" in query else {})
        rewritten += bool(sent.literals)
        with contextlib.suppress(RuntimeError):
            result = conn.execute(sent.query, sent.params)
            assert not isinstance(result, list), query  # one statement
        conn.close()
        db.close()
        assert snapshot(copy) == before, query
        assert list(out.iterdir()) == [], query
    assert accepted > 10 and rewritten > 0
