"""Cypher answers are capped (rows, bytes over MCP, time) and say when they were cut."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from codeimpact.cli import main
from codeimpact.graph.errors import BadInput
from codeimpact.query.cypher import SERVER_MAX_BYTES, SERVER_MAX_ROWS
from codeimpact.query.index import Index
from codeimpact.tools import BY_NAME, bind, prepare
from conftest import build_indexed_repo

ROWS_25K = "UNWIND range(1, 25000) AS x RETURN x"
# 3,000,000 rows from a cross product (Kùzu keeps it factorized; fetching it all is not)
ROWS_3M = "UNWIND range(1, 1500) AS x UNWIND range(1, 2000) AS y RETURN x, y, x * y AS p"
# 3,000,000 rows from one list: Kùzu builds a constant range(...) when it reads the query
# (1.7 GB), unless its bounds are parameters (query/cypher_ranges.py)
ONE_LIST_3M = "UNWIND range(1, 3000000) AS x RETURN x"
SLOW = "UNWIND range(1, 4000) AS x UNWIND range(1, 4000) AS y WITH x * y AS p WHERE p % 7 = 3 RETURN count(*)"  # noqa: E501


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("caps") / "repo"
    return build_indexed_repo(root, {"a.py": "def f():\n    return 1\n"}, git_init=False)


def cli_json(repo: Path, *args: str) -> dict:
    res = CliRunner().invoke(main, ["cypher", *args, "--repo", str(repo), "--json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_the_default_cap_is_ten_thousand_rows_and_says_so(repo):
    with Index.open(repo) as index:
        result = index.cypher(ROWS_25K)
    assert len(result.rows) == 10_000 and result.rows[:2] == [[1], [2]]
    assert result.truncated is True and result.total == 25_000 and result.limit == 10_000

    data = cli_json(repo, ROWS_25K)
    assert len(data["rows"]) == 10_000
    assert (data["truncated"], data["total"], data["limit"]) == (True, 25_000, 10_000)


def test_limit_zero_on_the_command_line_returns_every_row(repo):
    data = cli_json(repo, ROWS_25K, "--limit", "0")
    assert [r[0] for r in data["rows"]] == list(range(1, 25_001))
    assert (data["truncated"], data["total"], data["limit"]) == (False, 25_000, None)
    small = cli_json(repo, ROWS_25K, "--limit", "3")
    assert small["rows"] == [[1], [2], [3]] and small["truncated"] is True
    exact = cli_json(repo, "UNWIND range(1, 3) AS x RETURN x", "--limit", "3")
    assert exact["rows"] == [[1], [2], [3]] and exact["truncated"] is False


def test_the_text_output_says_how_many_rows_it_left_out(repo):
    res = CliRunner().invoke(main, ["cypher", ROWS_25K, "--repo", str(repo), "--limit", "2"])
    assert res.exit_code == 0
    assert res.stdout.splitlines() == ["x", "1", "2"]
    assert res.stderr.strip() == "graph: showing 2 of 25000 rows (--limit N for more, 0 for all)"


def _mcp(repo: Path, **args) -> dict:
    tool = BY_NAME["cypher"]
    with Index.open(repo) as index:
        return tool.run(index, bind(tool, args))


def test_mcp_is_never_unlimited(repo):
    reply = _mcp(repo, query=ROWS_25K)
    assert len(reply["rows"]) == SERVER_MAX_ROWS and reply["truncated"] is True
    assert reply["total"] == 25_000 and reply["limit"] == SERVER_MAX_ROWS
    # every row (0) or more than the server's cap is refused, not silently cut
    for limit in (0, SERVER_MAX_ROWS + 1, -1):
        with pytest.raises(BadInput, match=f"limit must be 1 to {SERVER_MAX_ROWS} here"):
            _mcp(repo, query=ROWS_25K, limit=limit)
    # as an agent asks: a limit that follows max_items stays within the cap
    tool = BY_NAME["cypher"]
    with Index.open(repo) as index:
        for given, rows in (({}, 30), ({"max_items": 0}, SERVER_MAX_ROWS)):
            reply = tool.run(index, prepare(tool, {"query": ROWS_25K, **given}))
            assert (len(reply["rows"]), reply["truncated"]) == (rows, True)
    # big rows: cut by bytes well before the row cap
    wide = "UNWIND range(1, 3000) AS x RETURN x, repeat('y', 1000) AS pad"
    reply = _mcp(repo, query=wide)
    assert reply["truncated"] is True and reply["total"] == 3000
    assert 0 < len(reply["rows"]) < 3000
    assert len(json.dumps(reply["rows"], ensure_ascii=False)) <= SERVER_MAX_BYTES
    assert [r[0] for r in reply["rows"]] == list(range(1, len(reply["rows"]) + 1))


def test_a_query_over_its_time_limit_is_stopped(repo):
    res = CliRunner().invoke(main, ["cypher", SLOW, "--repo", str(repo), "--timeout", "0.05"])
    assert res.exit_code == 2
    assert res.stderr.strip() == (
        "graph: cypher: the query ran longer than 0.05 s (raise it with --timeout)"
    )
    with Index.open(repo) as index:
        with pytest.raises(BadInput, match="longer than 0.05 s"):
            index.cypher(SLOW, timeout=0.05)
        # the connection has no time limit left for the next question
        assert index.query("MATCH (s:Symbol) RETURN count(*)").rows[0][0] >= 1
        assert index.cypher("RETURN 1", timeout=0).rows == [[1]]


@pytest.mark.parametrize("bad", ["-1", "x"])
def test_bad_limits_are_refused(repo, bad):
    res = CliRunner().invoke(main, ["cypher", "RETURN 1", "--repo", str(repo), "--limit", bad])
    assert res.exit_code == 2


@pytest.mark.parametrize("query", [ROWS_3M, ONE_LIST_3M], ids=["cross-product", "one-list"])
def test_three_million_rows_are_capped_in_bounded_memory(repo, query):
    """The CLI's peak resident memory on a 3,000,000-row answer (the whole-process high
    water mark, measured by a parent that runs nothing else)."""
    probe = (
        "import resource, subprocess, sys\n"
        "out = subprocess.run([sys.executable, '-m', 'codeimpact', 'cypher', sys.argv[1],\n"
        "                      '--repo', sys.argv[2], '--json'], capture_output=True)\n"
        "assert out.returncode == 0, out.stderr\n"
        "sys.stdout.buffer.write(out.stdout)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe, query, str(repo)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert (len(data["rows"]), data["truncated"], data["total"]) == (10_000, True, 3_000_000)
    peak_mb = int(out.stderr.strip().splitlines()[-1]) / 1024
    assert peak_mb < 700, peak_mb


def test_a_range_with_written_bounds_answers_as_kuzu_would(repo):
    """Its bounds become parameters; the rows, the column names and the error messages
    stay those of the query as written."""
    with Index.open(repo) as index:
        first = index.cypher("RETURN range(1, 3), range(-2, 4, 3) AS r, range(- 1, 0)")
        assert first.columns == ["RANGE(1,3)", "r", "RANGE(-1,0)"]
        assert first.rows == [[[1, 2, 3], [-2, 1, 4], [-1, 0]]]
        nested = index.cypher("UNWIND range(1, size([1, 2]) * 2) AS x RETURN sum(x)")
        assert nested.rows == [[10]]
        big = index.cypher("RETURN range(9223372036854775806, 9223372036854775807)")
        assert big.columns == ["RANGE(9223372036854775806,9223372036854775807)"]
        mine = index.cypher("UNWIND range(0, $n) AS x RETURN count(*)", {"n": 4})
        assert mine.rows == [[5]]
        names = "MATCH (s:Symbol) WHERE s.start_line IN range(1, 10) RETURN s.name ORDER BY s.name"
        assert index.cypher(names).rows == index.query(names).rows == [["a"], ["f"]]
        with pytest.raises(BadInput) as refused:
            index.cypher("RETURN [x IN range(0, 4) WHERE x > 1] AS l")
    # Kùzu's parser message quotes the text and offset the user wrote
    assert "<RETURN [x IN range(0, 4) WHERE>" in str(refused.value)
    assert "offset: 25)" in str(refused.value)


def test_a_query_that_outgrows_its_working_memory_is_refused_in_one_line(repo):
    """Sorting 9,000,000 rows needs more than the reader's buffer pool: Kùzu stops it
    there (the bound on memory the row cap cannot give), and the message says what to do."""
    big_sort = "UNWIND range(1, 3000) AS x UNWIND range(1, 3000) AS y RETURN x, y ORDER BY x * y, y"
    res = CliRunner().invoke(main, ["cypher", big_sort, "--repo", str(repo)])
    assert res.exit_code == 2
    assert res.stderr.strip() == (
        "graph: cypher: the query needs more than the 256 MB of working memory a query may "
        "use (to sort, deduplicate or join its rows): narrow it with WHERE, or aggregate"
    )
    with Index.open(repo) as index:  # the next question is answered
        assert index.cypher("MATCH (s:Symbol) RETURN count(*)").rows == [[2]]
