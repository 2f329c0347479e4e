"""`graph mcp`: the tools of codeimpact.tools over the Model Context Protocol.

Built on the official SDK's low-level `Server` (not the decorator API), because the
input schemas are ours: generated from the CLI's own parameters by `tools`, not
inferred from Python signatures. Every tool is read-only.

A result is the JSON `graph <command> --json` prints, both as text and as
structured content. A failure is an `isError` result whose text is the CLI's
one-line message (structured content says which error and its exit code), never
a crashed server: even a bug in a tool comes back as one line.

The server stays up across re-indexing: before each call it reads CURRENT and,
when `graph analyze` has published a new generation, reopens the index.
"""

from __future__ import annotations

import json
import sys
import threading
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from codeimpact import __version__, tools
from codeimpact.graph.errors import AmbiguousTarget, BadInput, CodeImpactError

HOST = "127.0.0.1"  # the HTTP transport never listens beyond this machine

INSTRUCTIONS = (
    "codeimpact answers questions about this repository's code graph. Before editing a "
    "symbol, call `impact` (what breaks) or `context` (what it is and who uses it); use "
    "`search` to find a symbol's exact name first. After editing, call `detect_changes` "
    "for what the diff touched and the tests to run. Every result carries a `freshness` "
    "block; when it says stale, the answer describes the last indexed state."
)


@dataclass
class LiveIndex:
    """The repository's index, reopened whenever analyze publishes a new generation.

    One lock: Kùzu connections are not shared across threads, and tool calls run
    in worker threads so the event loop keeps serving.
    """

    repo: Path
    _index: Any = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def run(self, tool: tools.Tool, args: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            return tool.run(self._current(), args)

    def _current(self):
        from codeimpact.graph import layout
        from codeimpact.query.index import Index

        live = layout.read_current(layout.index_dir(self.repo)).number  # NoIndex / CorruptIndex
        if self._index is not None and self._index.generation == live:
            return self._index
        fresh = Index.open(self.repo)
        old, self._index = self._index, fresh
        if old is not None:
            old.close()
        return fresh

    @property
    def generation(self) -> int | None:
        return None if self._index is None else self._index.generation

    def close(self) -> None:
        with self._lock:
            if self._index is not None:
                self._index.close()
                self._index = None


def _json_text(data: Any) -> str:
    # The CLI's emit_json: same indentation, same fallback for odd values.
    return json.dumps(data, indent=2, sort_keys=False, default=str)


def _error(message: str, detail: dict[str, Any]) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=message)],
        structured_content=detail,
        is_error=True,
    )


def call_tool(live: LiveIndex, name: str, arguments: dict[str, Any] | None) -> types.CallToolResult:
    """One tool call, start to finish; whatever goes wrong comes back as an isError result."""
    try:
        tool = tools.get(name)
        args = tools.bind(tool, arguments)
        text = _json_text(live.run(tool, args))
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)],
            structured_content=json.loads(text),
        )
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


def tool_list() -> list[types.Tool]:
    read_only = types.ToolAnnotations(
        read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
    )
    return [
        types.Tool(
            name=t.name,
            description=t.description,
            input_schema=tools.input_schema(t),
            annotations=read_only,
        )
        for t in tools.TOOLS
    ]


def build_server(live: LiveIndex) -> Server:
    listed = types.ListToolsResult(tools=tool_list())

    async def on_list_tools(ctx, params) -> types.ListToolsResult:
        return listed

    async def on_call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        return await anyio.to_thread.run_sync(call_tool, live, params.name, params.arguments)

    return Server(
        "codeimpact",
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
    )


def check_repo(path: str) -> Path:
    repo = Path(path)
    if not repo.is_dir():
        raise BadInput(f"not a directory: {repo}")
    return repo.resolve()


def serve_stdio(repo: Path) -> None:
    live = LiveIndex(repo)
    server = build_server(live)

    async def main() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    try:
        anyio.run(main)
    finally:
        live.close()


def serve_http(repo: Path, port: int) -> None:
    """Streamable HTTP at http://127.0.0.1:PORT/mcp (DNS-rebinding protection on)."""
    import socket

    import uvicorn

    # uvicorn reports a taken port as a logged traceback and exit 1: say it in one line.
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind((HOST, port))
        except OSError as e:
            raise BadInput(f"cannot listen on {HOST}:{port}: {e.strerror or e}") from None
    live = LiveIndex(repo)
    app = build_server(live).streamable_http_app(host=HOST)
    config = uvicorn.Config(app, host=HOST, port=port, log_level="warning")
    try:
        uvicorn.Server(config).run()
    finally:
        live.close()
