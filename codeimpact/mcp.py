"""The MCP server: the tools of `codeimpact.tools` over the Model Context Protocol.

Run as `graph mcp [PATH] [--http [--port N]] [--all]` (which starts `python -m
codeimpact.mcp`). Built on the official SDK's low-level `Server` (not the decorator
API), because the input schemas are ours: generated from the CLI's declared
parameters by `tools`, not inferred from Python signatures. Every tool is read-only.

A reply is one compact JSON text (`replies`: the answer first, every list cut to
`max_items` with its total; `full: true` gives what `graph <command> --json` prints),
sent once: no structured copy beside it. A failure is an `isError` result whose
text is the CLI's one-line message (structured content says which error and its
exit code), never a crashed server: even a bug in a tool comes back as one line.

Tools run concurrently: each call runs in a worker thread, on its own Kùzu
connection to the shared read-only database (`graph.store.Reader`), so a slow query
does not hold up the others. The server stays up across re-indexing: before each
call it reads CURRENT and, when `graph analyze` has published a new generation,
opens it; the old one is closed once the calls still using it are done. Before each
call on a generation already open, the files queries read are checked against its
manifest again (a stat each while they keep the stamp the check gave them): damage
written while the server runs is refused in one line until a plain analyze repairs it.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import traceback
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import click
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from codeimpact import __version__, present, tools
from codeimpact.graph.errors import AmbiguousTarget, BadInput, CodeImpactError

HOST = "127.0.0.1"  # the HTTP transport never listens beyond this machine
DEFAULT_PORT = 8765

INSTRUCTIONS = (
    "codeimpact answers questions about a repository's code graph. Before editing a "
    "symbol, call `impact` (what breaks) or `context` (what it is and who uses it); use "
    "`search` to find a symbol's exact name first. After editing, call `detect_changes` "
    "for what the diff touched and the tests to run. Replies are compact JSON that lead "
    "with the answer; each list holds at most `max_items` items beside its `total` (raise "
    "it, or pass `full: true`, for more). Every reply carries a `freshness` block; when "
    "it says stale, the answer describes the last indexed state."
)


@dataclass
class _Open:
    """One open generation and the calls using it."""

    index: Any
    users: int = 0
    retired: bool = False  # a newer generation replaced it: close when the last user leaves


@dataclass
class LiveIndex:
    """One repository's index, reopened whenever analyze publishes a new generation.

    Calls lease the current generation (`lease()`) and run side by side; the lock
    guards only which generation is current, never a query.
    """

    repo: Path
    _current: _Open | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @contextlib.contextmanager
    def lease(self) -> Iterator[Any]:
        held = self._acquire()
        try:
            yield held.index
        finally:
            self._release(held)

    def _acquire(self) -> _Open:
        from codeimpact.graph import layout

        live = layout.read_current(layout.index_dir(self.repo)).number  # NoIndex / CorruptIndex
        with self._lock:
            cur = self._current
            if cur is None or cur.index.generation != live:
                from codeimpact.query.index import Index

                fresh = _Open(Index.open(self.repo))
                if cur is not None:
                    cur.retired = True
                    if cur.users == 0:
                        cur.index.close()
                self._current = cur = fresh
            else:
                try:  # damage written into the open generation since: refused, not served
                    cur.index.recheck()
                except CodeImpactError:
                    cur.retired, self._current = True, None  # reopened (and checked) next call
                    if cur.users == 0:
                        cur.index.close()
                    raise
            cur.users += 1
            return cur

    def _release(self, held: _Open) -> None:
        with self._lock:
            held.users -= 1
            if held.retired and held.users == 0:
                held.index.close()

    @property
    def generation(self) -> int | None:
        cur = self._current
        return None if cur is None else cur.index.generation

    def close(self) -> None:
        with self._lock:
            if self._current is not None:
                self._current.retired = True
                if self._current.users == 0:
                    self._current.index.close()
                self._current = None


class Served:
    """The repositories one server answers for: one, or every registered one (`--all`)."""

    def __init__(self, repos: list[Path], from_registry: bool = False):
        self.from_registry = from_registry
        self._lock = threading.Lock()
        self._live: dict[Path, LiveIndex] = {r: LiveIndex(r) for r in repos}

    @property
    def repos(self) -> list[Path]:
        return list(self._live)

    def pick(self, repo: str | None) -> LiveIndex:
        """The LiveIndex `repo` names (a path, or a folder name that is unique)."""
        with self._lock:
            found = self._find(repo)
            if found is None and self.from_registry:
                self._reload()  # registered since the server started?
                found = self._find(repo)
        if found is not None:
            return found
        listed = ", ".join(str(r) for r in self._live) or "none"
        if repo is None:
            raise BadInput(f"several repositories are served: pass `repo`, one of: {listed}")
        raise BadInput(f"repository {repo!r} is not served here; served: {listed}")

    def _find(self, repo: str | None) -> LiveIndex | None:
        if repo is None:
            return next(iter(self._live.values())) if len(self._live) == 1 else None
        wanted = Path(repo).expanduser().resolve()  # relative: to the server's folder
        if wanted in self._live:
            return self._live[wanted]
        named = [live for path, live in self._live.items() if path.name == repo]
        return named[0] if len(named) == 1 else None

    def _reload(self) -> None:
        from codeimpact.registry import Registry

        for entry in Registry.default().entries():
            path = Path(entry.path)
            if path not in self._live:
                self._live[path] = LiveIndex(path)

    def close(self) -> None:
        for live in self._live.values():
            live.close()


def _error(message: str, detail: dict[str, Any]) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=message)],
        structured_content=detail,
        is_error=True,
    )


def call_tool(served: Served, name: str, arguments: dict[str, Any] | None) -> types.CallToolResult:
    """One tool call, start to finish; whatever goes wrong comes back as an isError result."""
    try:
        tool = tools.get(name)
        args = tools.prepare(tool, arguments)
        with served.pick(args["repo"]).lease() as index:
            reply = tools.answer(index, tool, args)
        text = present.json_text(reply, compact=True)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])
    except AmbiguousTarget as e:
        message = _first_line(e)
        return _error(
            message,
            {"schema": "codeimpact.ambiguous/1", "error": message, "candidates": e.candidates},
        )
    except CodeImpactError as e:
        message = _first_line(e)
        return _error(message, _error_detail(e, message))
    except Exception as e:  # a bug: report it in one line, keep serving, keep the trace
        traceback.print_exc(file=sys.stderr)
        message = f"internal error: {type(e).__name__}: {_first_line(e)}"
        return _error(
            message,
            {"schema": "codeimpact.error/1", "error": message, "type": "InternalError", "code": 70},
        )


def _first_line(e: BaseException) -> str:
    text = str(e)
    return text.splitlines()[0] if text.strip() else type(e).__name__


def _error_detail(e: CodeImpactError, message: str) -> dict[str, Any]:
    return {
        "schema": "codeimpact.error/1",
        "error": message,
        "type": type(e).__name__,
        "code": e.exit_code,
    }


def tool_list(served: Served | None = None) -> list[types.Tool]:
    read_only = types.ToolAnnotations(
        read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
    )
    out = []
    for t in tools.TOOLS:
        schema = tools.input_schema(t)
        if served is not None and len(served.repos) > 1:
            repo = dict(schema["properties"]["repo"])
            repo["description"] += " Served: " + ", ".join(str(r) for r in served.repos) + "."
            schema = {**schema, "properties": {**schema["properties"], "repo": repo}}
        out.append(
            types.Tool(
                name=t.name, description=t.description, input_schema=schema, annotations=read_only
            )
        )
    return out


def build_server(served: Served) -> Server:
    listed = types.ListToolsResult(tools=tool_list(served))

    async def on_list_tools(ctx, params) -> types.ListToolsResult:
        return listed

    async def on_call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        # a worker thread per call (anyio's pool): the event loop keeps taking requests
        return await anyio.to_thread.run_sync(call_tool, served, params.name, params.arguments)

    instructions = INSTRUCTIONS
    if len(served.repos) > 1:
        instructions += " Repositories served (pass one as `repo`): " + ", ".join(
            str(r) for r in served.repos
        )
    return Server(
        "codeimpact",
        version=__version__,
        instructions=instructions,
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
    )


def check_repo(path: str) -> Path:
    repo = Path(path)
    if not repo.is_dir():
        raise BadInput(f"not a directory: {repo}")
    return repo.resolve()


def serve_stdio(served: Served) -> None:
    server = build_server(served)

    async def main() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    try:
        anyio.run(main)
    finally:
        served.close()


def serve_http(served: Served, port: int) -> None:
    """Streamable HTTP at http://127.0.0.1:PORT/mcp (DNS-rebinding protection on)."""
    import socket

    import uvicorn

    # uvicorn reports a taken port as a logged traceback and exit 1: say it in one line.
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind((HOST, port))
        except OSError as e:
            raise BadInput(f"cannot listen on {HOST}:{port}: {e.strerror or e}") from None
    app = build_server(served).streamable_http_app(host=HOST)
    config = uvicorn.Config(app, host=HOST, port=port, log_level="warning")
    try:
        uvicorn.Server(config).run()
    finally:
        served.close()


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("path", default=".", type=click.Path(file_okay=True, dir_okay=True))
@click.option("--http", is_flag=True, help="Serve streamable HTTP on 127.0.0.1 instead of stdio.")
@click.option(
    "--port",
    type=click.IntRange(1, 65535),
    default=DEFAULT_PORT,
    show_default=True,
    help="The HTTP port (with --http).",
)
@click.option(
    "--all",
    "serve_all",
    is_flag=True,
    help="Serve every repository in the registry (`graph list`) instead of PATH; each tool "
    "then takes `repo`.",
)
@present.handle_errors
def main(path, http, port, serve_all):
    """Serve the index of PATH to agents over the Model Context Protocol (stdio by default).

    Tools: status, search, context, impact, deps, blast_radius, detect_changes, trace,
    review, cypher (all read-only). The server reopens an index when `graph analyze`
    publishes a new one.
    """
    if serve_all:
        from codeimpact.registry import Registry

        repos = [Path(e.path) for e in Registry.default().entries()]
        if not repos:
            raise BadInput("no repository is registered: run `graph analyze PATH` first")
        served = Served(repos, from_registry=True)
    else:
        served = Served([check_repo(path)])
    if http:
        serve_http(served, port)
    else:
        serve_stdio(served)


if __name__ == "__main__":
    main(prog_name="graph mcp")
