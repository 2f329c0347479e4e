"""A user's Cypher query: checked read-only, run with a time limit, its rows capped.

The text passes `cypher_guard.check_read_only` before Kùzu sees it, runs on the
read-only connection of the index with Kùzu's query timeout, and its rows are
fetched one at a time from Kùzu's result, never all at once: a capped answer
holds at most `limit` rows (and, when `max_bytes` is given, at most that much
JSON), whatever the query would return. A cut answer says so (`truncated`), with
the number of rows the query had (`total`: Kùzu counts them while it runs it).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from codeimpact.graph.errors import BadInput
from codeimpact.query.cypher_guard import check_read_only
from codeimpact.query.cypher_ranges import Unfolded, unfold_ranges

DEFAULT_LIMIT = 10_000  # rows
DEFAULT_TIMEOUT_S = 30.0
# Kùzu's message when the timeout (or an interrupt) stopped a query
_INTERRUPTED = "Interrupted"
# Kùzu's message when a query's working memory (sorts, DISTINCT, joins) outgrew the
# reader's buffer pool: the bound that keeps `ORDER BY` over a cross product from
# taking the machine's memory
_POOL_FULL = "Buffer manager exception: Unable to allocate memory"


@dataclass
class CypherResult:
    columns: list[str]
    rows: list[list[Any]]
    truncated: bool = False  # rows were left out by the row or byte cap
    total: int | None = None  # rows the query had (None: unknown)
    limit: int | None = None  # the row cap that applied (None: none)


def check_limit(limit: int | None) -> int | None:
    """`limit` as a cap (None: no cap); BadInput when it is negative."""
    if limit is None or limit == 0:
        return None
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise BadInput(f"cypher: limit must be a whole number >= 0, got {limit!r}")
    return limit


def check_timeout(timeout_s: float | None) -> float | None:
    if timeout_s is None or timeout_s == 0:
        return None
    if isinstance(timeout_s, bool) or not isinstance(timeout_s, (int, float)) or timeout_s < 0:
        raise BadInput(f"cypher: timeout must be a number of seconds >= 0, got {timeout_s!r}")
    return float(timeout_s)


def run_cypher(
    conn,
    query: str,
    params: dict[str, Any] | None = None,
    *,
    limit: int | None = DEFAULT_LIMIT,
    max_bytes: int | None = None,
    timeout_s: float | None = DEFAULT_TIMEOUT_S,
) -> CypherResult:
    """Check and run `query` on the Kùzu connection `conn` (read-only).

    `limit` rows at most (None or 0: every row), `max_bytes` of rows as JSON at most
    (None: no byte cap), `timeout_s` seconds at most (None or 0: no time limit).
    BadInput for a refused or failed query, naming what went wrong."""
    cap = check_limit(limit)
    seconds = check_timeout(timeout_s)
    if not isinstance(query, str):
        raise BadInput(f"cypher: the query must be a string, got {type(query).__name__}")
    check_read_only(query)
    # range(1, 3000000)'s bounds as parameters, or Kùzu builds its list before any row
    unfolded = unfold_ranges(query, params)
    conn.set_query_timeout(int(seconds * 1000) if seconds else 0)
    try:
        res = conn.execute(unfolded.query, unfolded.params)
    except RuntimeError as e:
        raise _failed(e, seconds, unfolded) from e
    finally:
        conn.set_query_timeout(0)  # the index's own queries have no time limit
    try:
        return _fetch(res, cap, max_bytes, unfolded)
    except RuntimeError as e:
        raise _failed(e, seconds, unfolded) from e
    finally:
        res.close()


def _failed(error: RuntimeError, seconds: float | None, unfolded: Unfolded) -> BadInput:
    first = str(error).splitlines()[0] if str(error) else type(error).__name__
    first = unfolded.message(first)
    if first.startswith(_INTERRUPTED) and seconds:
        return BadInput(
            f"cypher: the query ran longer than {seconds:g} s (raise it with --timeout)"
        )
    if first.startswith(_POOL_FULL):
        from codeimpact.graph.store import READ_BUFFER_POOL  # here: it loads Kùzu

        return BadInput(
            f"cypher: the query needs more than the {READ_BUFFER_POOL >> 20} MB of working "
            "memory a query may use (to sort, deduplicate or join its rows): narrow it with "
            "WHERE, or aggregate"
        )
    return BadInput(f"cypher: {first}")


def _fetch(res, cap: int | None, max_bytes: int | None, unfolded: Unfolded) -> CypherResult:
    """The first rows of `res`, one at a time, up to the caps."""
    columns = [unfolded.column(name) for name in res.get_column_names()]
    total = res.get_num_tuples()
    rows: list[list[Any]] = []
    size = 2  # the brackets of the rows array
    truncated = False
    while res.has_next():
        if cap is not None and len(rows) >= cap:
            truncated = True
            break
        row = res.get_next()
        if max_bytes is not None:
            # as json.dumps writes it (", " between rows); compact JSON is smaller
            size += len(json.dumps(row, default=str, ensure_ascii=False)) + (2 if rows else 0)
            if size > max_bytes:
                truncated = True
                break
        rows.append(row)
    return CypherResult(columns, rows, truncated, total, cap)


# What a server (MCP) answers at most, whatever it is asked: a reply an agent can read,
# and a server that is never blocked for long by one query.
SERVER_MAX_ROWS = DEFAULT_LIMIT
SERVER_MAX_BYTES = 1_000_000  # the rows array as json.dumps writes it
SERVER_MAX_TIMEOUT_S = 60.0


def server_caps(limit: int | None, timeout_s: float | None) -> tuple[int, int, float]:
    """(limit, max_bytes, timeout) for a server: the asked-for caps, never above the
    server's. A server never answers every row: `limit` 0 ("no cap" on the command
    line) or above its cap is refused; None means its cap. A timeout of 0 or None means
    the server's longest."""
    if limit is not None and not (
        isinstance(limit, int) and not isinstance(limit, bool) and 1 <= limit <= SERVER_MAX_ROWS
    ):
        raise BadInput(
            f"cypher: limit must be 1 to {SERVER_MAX_ROWS} here, got {limit!r} (every row, "
            "limit 0, is only for `graph cypher` on the command line)"
        )
    seconds = check_timeout(timeout_s)
    rows = SERVER_MAX_ROWS if limit is None else limit
    return rows, SERVER_MAX_BYTES, min(seconds or SERVER_MAX_TIMEOUT_S, SERVER_MAX_TIMEOUT_S)
