"""Results as data: the JSON every `--json` prints and every tool returns, built one way.

Both the CLI and the MCP server present results through here (neither imports the
other): `to_jsonable` turns the query dataclasses into plain values, `body` puts
the `"schema"` key first, `json_text` writes it indented for people or compact for
agents, and the two results that are not a query dataclass (search, cypher) are
assembled here. Errors reach a terminal as one line (`handle_errors`, the exit codes
documented in `cli`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import os
import sys
from typing import Any

from codeimpact.graph.errors import BadInput, CodeImpactError
from codeimpact.termout import escape

EXIT_INTERNAL = 70
SEARCH_ALL = 2**31 - 1  # fetch every hit: the count comes before the list, and is complete


def fail(message: str, code: int) -> None:
    sys.stderr.write(f"graph: {escape(message)}\n")
    sys.stderr.flush()
    sys.exit(code)


def _click_exceptions() -> tuple[type[BaseException], ...]:
    """click's exceptions, which click itself reports (a usage error, an abort, an exit):
    only a process that imported click can raise them (`graph analyze` runs without it)."""
    click = sys.modules.get("click")
    if click is None:
        return ()
    return (click.exceptions.Exit, click.ClickException, click.Abort)


def handle_errors(fn):
    """One line on stderr and a documented exit code, never a traceback."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except CodeImpactError as e:
            fail(str(e).splitlines()[0] if str(e) else type(e).__name__, e.exit_code)
        except KeyboardInterrupt:
            fail("interrupted", 130)
        except BrokenPipeError:
            # the reader went away (`graph ... | head`): not an error of ours
            with contextlib.suppress(OSError):
                sys.stdout = open(os.devnull, "w")  # noqa: SIM115
            sys.exit(141)
        except SystemExit:
            raise
        except Exception as e:  # a crash is a bug: still one line, and a way to see more
            if os.environ.get("CODEIMPACT_DEBUG") or isinstance(e, _click_exceptions()):
                raise
            fail(
                f"internal error: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''} "
                "(set CODEIMPACT_DEBUG=1 for the traceback)",
                EXIT_INTERNAL,
            )

    return wrapper


def to_jsonable(obj: Any) -> Any:
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    return obj


def body(schema: str, obj: Any) -> dict[str, Any]:
    """The JSON every `--json` prints: `"schema"` first, then the result's fields."""
    data = to_jsonable(obj)
    data.pop("schema", None)
    return {"schema": schema, **data}


def json_text(data: Any, compact: bool = False) -> str:
    """Indented for a terminal; compact (no spaces, no indentation) for an agent."""
    if compact:
        return json.dumps(data, separators=(",", ":"), ensure_ascii=False, default=str)
    return json.dumps(data, indent=2, sort_keys=False, default=str)


def cypher_result(
    index,
    query: str,
    params: dict,
    with_freshness: bool = True,
    *,
    limit: int | None = 10_000,
    timeout: float | None = 30.0,
    max_bytes: int | None = None,
) -> dict:
    """What `graph cypher --json` prints (and the MCP cypher tool returns)."""
    from codeimpact.query.freshness import freshness

    result = index.cypher(query, params, limit=limit, timeout=timeout, max_bytes=max_bytes)
    if not with_freshness:  # the text output: skip the freshness check
        return {"result": result}
    return {
        "schema": "codeimpact.cypher/1",
        "columns": result.columns,
        "rows": result.rows,
        "truncated": result.truncated,
        "total": result.total,
        "limit": result.limit,
        "freshness": freshness(index),
    }


def search_result(
    index, name: str, kind: str | None, limit: int | None, with_freshness: bool = True
) -> dict:
    """What `graph search --json` prints (and the MCP search tool returns)."""
    from codeimpact.query.freshness import freshness

    if limit is not None and limit < 0:
        raise BadInput(f"limit must be a whole number >= 0, got {limit}")
    hits = index.search(name, kind=kind, limit=SEARCH_ALL)
    found = {
        "schema": "codeimpact.search/1",
        "query": name,
        "kind": kind,
        "total": len(hits),
        "results": hits[: limit or None],
    }
    if with_freshness:  # the text output skips the check
        found["freshness"] = freshness(index)
    return found
