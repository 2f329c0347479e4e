"""The one table of agent-facing tools: what each is for, its parameters, what it runs.

The parameters are not written here: they are the ones the `graph` command the tool
mirrors declares in `options` (names, types, defaults, choices, help), so the MCP
input schemas and the CLI cannot drift apart. The table adds only what the CLI has
no place for: a description telling an agent *when* to use the tool, help for
positional arguments, the few parameters that have a better JSON form than a
command-line string (cypher's parameters as an object), and the reply's own
parameters every tool takes (`max_items`, `full`, `repo`; see `REPLY_PARAMS`).

Each tool's `run(index, args)` calls the same query function the CLI command calls
and builds the same JSON (`present.body`), so it is byte-for-byte what `graph
<command> --json` prints; `reply` cuts that down for an agent (`replies`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import click

from codeimpact import options, replies
from codeimpact.graph.errors import BadInput, StaleIndex
from codeimpact.present import body, cypher_result, search_result
from codeimpact.query.cypher import (
    DEFAULT_TIMEOUT_S,
    SERVER_MAX_ROWS,
    SERVER_MAX_TIMEOUT_S,
    server_caps,
)

# CLI parameters no tool takes: the repository is the `repo` reply parameter, a tool always
# answers JSON, and printing test ids one a line is for a shell.
NOT_TOOL_PARAMS = frozenset({"path", "as_json", "fmt", "tests_only"})
NO_DEFAULT = object()
NO_HELP = "Undocumented: see"

TARGET_HELP = (
    "The symbol: a uid (`pkg/a.py::Cls.meth`), a qualified name (`pkg.a.Cls.meth`), "
    "a bare name, a file path (its module) or `path:LINE` (the innermost symbol there)."
)


@dataclass(frozen=True)
class Param:
    """One tool parameter, as JSON Schema sees it."""

    name: str
    type: str  # string | integer | number | boolean | array | object
    help: str
    required: bool = False
    default: Any = NO_DEFAULT
    choices: tuple[str, ...] | None = None
    items: str | None = None  # element type of an array

    def schema(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "description": self.help}
        if self.items:
            out["items"] = {"type": self.items}
        if self.choices:
            out["enum"] = list(self.choices)
        if self.default is not NO_DEFAULT and self.default is not None:
            out["default"] = self.default
        return out


@dataclass(frozen=True)
class Tool:
    name: str  # the MCP tool name
    command: str  # the `graph` command whose parameters it takes
    description: str  # when an agent should use it, and what it answers
    run: Callable[[Any, dict[str, Any]], dict[str, Any]]  # (Index, bound args) -> JSON
    hidden: frozenset[str] = frozenset()  # further CLI parameters the tool does not take
    param_help: Mapping[str, str] = field(default_factory=dict)  # where the CLI has none
    overrides: Mapping[str, Param] = field(default_factory=dict)
    reply: Callable[[dict[str, Any], int], dict[str, Any]] = replies.generic  # for an agent
    # the most `limit` may be over MCP (None: any, 0 for all included): a `limit` that
    # follows `max_items` stays within it
    max_limit: int | None = None


# The parameters of the reply, which every tool takes beside its command's.
REPLY_PARAMS: tuple[Param, ...] = (
    Param(
        "max_items",
        "integer",
        "The most items each list of the reply holds (depth groups beyond d1: a third of "
        "it); its total stays complete beside it (`{total, items}`). 0: no cap.",
        default=replies.MAX_ITEMS,
    ),
    Param(
        "full",
        "boolean",
        "The complete result, every field as `graph <command> --json` prints it (much "
        "larger); lists still follow `limit` where the tool has one.",
        default=False,
    ),
    Param(
        "repo",
        "string",
        "The repository to ask about: its path as the server lists it (see the "
        "`status` tool or `graph list`). Optional when the server serves one.",
    ),
)
REPLY_NAMES = frozenset(p.name for p in REPLY_PARAMS)


# ---------------------------------------------------------------------- parameters
_CLICK_TYPES = {"integer": "integer", "float": "number", "boolean": "boolean"}


def _param_from_click(p: click.Parameter, help_text: str) -> Param:
    if isinstance(p.type, click.Choice):
        base, choices = "string", tuple(str(c) for c in p.type.choices)
    else:
        base, choices = _CLICK_TYPES.get(p.type.name, "string"), None
    many = p.multiple or p.nargs == -1
    default = p.default
    if many or default is None or not isinstance(default, (str, int, float, bool)):
        default = NO_DEFAULT  # absent means "not given", exactly as on the command line
    return Param(
        name=p.name,
        type="array" if many else base,
        help=help_text,
        required=bool(p.required),
        default=default,
        choices=choices,
        items=base if many else None,
    )


def params(tool: Tool) -> list[Param]:
    """The tool's parameters: the CLI command's, minus the hidden ones, plus overrides, then
    the reply's."""
    out = []
    for p in options.params(tool.command):
        if p.name in NOT_TOOL_PARAMS or p.name in tool.hidden:
            continue
        if p.name in tool.overrides:
            out.append(tool.overrides[p.name])
            continue
        help_text = getattr(p, "help", None) or tool.param_help.get(p.name, "")
        # An option added to the CLI without help must not take the server down; the
        # tests look for this placeholder, so it does not stay.
        out.append(_param_from_click(p, help_text or f"{NO_HELP} `graph {tool.command} --help`"))
    return out + list(REPLY_PARAMS)


def input_schema(tool: Tool) -> dict[str, Any]:
    ps = params(tool)
    return {
        "type": "object",
        "properties": {p.name: p.schema() for p in ps},
        "required": [p.name for p in ps if p.required],
        "additionalProperties": False,
    }


_PY_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list,),
}


def _is(value: Any, json_type: str) -> bool:
    if isinstance(value, bool) and json_type in ("integer", "number"):
        return False  # JSON true is not 1
    return isinstance(value, _PY_TYPES[json_type])


def bind(tool: Tool, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
    """Check `arguments` against the tool's parameters; the full set with defaults filled.

    Raises BadInput with one line naming the first problem (an unknown or missing
    argument, a wrong type, a value outside the choices).
    """
    arguments = dict(arguments or {})
    ps = params(tool)
    known = {p.name: p for p in ps}
    unknown = sorted(set(arguments) - set(known))
    if unknown:
        raise BadInput(
            f"{tool.name}: unknown argument {unknown[0]!r} "
            f"(takes: {', '.join(known) or 'no arguments'})"
        )
    bound: dict[str, Any] = {}
    for p in ps:
        if p.name not in arguments or arguments[p.name] is None:
            if p.required:
                raise BadInput(f"{tool.name}: missing required argument {p.name!r}")
            bound[p.name] = None if p.default is NO_DEFAULT else p.default
            continue
        value = arguments[p.name]
        if not _is(value, p.type):
            raise BadInput(f"{tool.name}: {p.name!r} must be {_a(p.type)}, got {value!r}")
        if p.type == "array":
            bad = [v for v in value if not _is(v, p.items or "string")]
            if bad:
                raise BadInput(
                    f"{tool.name}: {p.name!r} must hold {p.items or 'string'}s, got {bad[0]!r}"
                )
            if p.required and not value:
                raise BadInput(f"{tool.name}: {p.name!r} needs at least one item")
        if p.choices and value not in p.choices:
            raise BadInput(
                f"{tool.name}: {p.name!r} must be one of {', '.join(p.choices)}, got {value!r}"
            )
        bound[p.name] = float(value) if p.type == "number" else value
    return bound


def _a(json_type: str) -> str:
    return {"integer": "an integer", "array": "an array", "object": "an object"}.get(
        json_type, f"a {json_type}"
    )


# ---------------------------------------------------------------------- results
def check_fresh(index, args: Mapping[str, Any]) -> None:
    """`require_fresh`: refuse a stale index, as `Index.open(require_fresh=True)` does."""
    if not args.get("require_fresh"):
        return
    from codeimpact.query.freshness import freshness

    state = freshness(index)
    if state.fresh is False:
        raise StaleIndex("the index is stale: " + "; ".join(state.reasons))


def _status(index, a):
    from codeimpact.query.status import STATUS_SCHEMA, collect

    return body(STATUS_SCHEMA, collect(index, exact=True))


def _search(index, a):
    check_fresh(index, a)
    return body("codeimpact.search/1", search_result(index, a["name"], a["kind"], a["limit"]))


def _cypher(index, a):
    check_fresh(index, a)
    # never unlimited over MCP: rows, bytes and time are capped (docs/mcp.md)
    limit, max_bytes, timeout = server_caps(a["limit"], a["timeout"])
    found = cypher_result(
        index, a["query"], a["params"] or {}, limit=limit, timeout=timeout, max_bytes=max_bytes
    )
    return body("codeimpact.cypher/1", found)


def _traversal(method: str, command: str, first: str):
    def run(index, a):
        check_fresh(index, a)
        result = getattr(index, method)(
            a[first],
            a["direction"],
            a["depth"],
            a["relation"],
            a["min_confidence"],
            a["include_tests"],
            a["limit"],
        )
        return body(f"codeimpact.{command}/1", result)

    return run


def _deps(index, a):
    check_fresh(index, a)
    result = index.deps(a["target"], a["relation"], a["min_confidence"], a["limit"])
    return body("codeimpact.deps/1", result)


def _context(index, a):
    check_fresh(index, a)
    return body("codeimpact.context/1", index.context(a["target"], a["limit"]))


def _trace(index, a):
    check_fresh(index, a)
    result = index.trace(a["source"], a["target"], a["relation"], a["min_confidence"])
    return body("codeimpact.trace/1", result)


def _detect_changes(index, a):
    check_fresh(index, a)
    from codeimpact.query.changes import detect_changes

    scope = a["scope"] or ("compare" if a["base"] else "unstaged")  # as the CLI defaults it
    rep = detect_changes(
        index,
        scope,
        a["base"],
        depth=a["depth"],
        min_confidence=a["min_confidence"],
        limit=a["limit"],
        if_incomplete=a["if_incomplete"],
    )
    return body("codeimpact.detect-changes/1", rep)


def _review(index, a):
    check_fresh(index, a)
    from codeimpact.query.review import REVIEW_SCHEMA, review

    return body(REVIEW_SCHEMA, review(index, a["base"], depth=a["depth"], limit=a["limit"]))


TOOLS: tuple[Tool, ...] = (
    Tool(
        "status",
        "status",
        "Is the code graph still a true picture of the repository? Says fresh or stale and "
        "why (commits since indexing, changed files, incomplete files). Use it first in a "
        "session, and whenever an answer looks wrong; a stale index needs `graph analyze`.",
        _status,
        hidden=frozenset({"check"}),
    ),
    Tool(
        "search",
        "search",
        "Find symbols (functions, classes, methods, modules, ...) by a substring of their "
        "name or qualified name. Use it to learn a symbol's exact uid or qualified name "
        "before asking impact, context, deps or trace about it.",
        _search,
        reply=replies.search,
        param_help={
            "name": "A substring of the symbol's name or qualified name (case-insensitive).",
            "limit": "The most results to return.",
        },
    ),
    Tool(
        "context",
        "context",
        "Everything about one symbol before you read or edit it: its definition with source "
        "lines, container, members, callers, callees, imports, bases, subclasses, references "
        "and the tests that reach it. Use it instead of opening files to understand a symbol.",
        _context,
        reply=replies.context,
        param_help={"target": TARGET_HELP},
    ),
    Tool(
        "impact",
        "impact",
        "What breaks if TARGET changes: every dependent, transitively, grouped by depth "
        "(d=1 WILL BREAK, d=2 LIKELY AFFECTED, d>=3 MAY NEED TESTING), with the affected "
        "files and modules, the tests that reach it and a risk level. Use it BEFORE editing "
        "a symbol to plan the change; direction=downstream answers what TARGET depends on.",
        _traversal("impact", "impact", "target"),
        reply=replies.impact,
        param_help={"target": TARGET_HELP},
    ),
    Tool(
        "deps",
        "deps",
        "TARGET's direct neighbours both ways (who calls, imports, extends or references it; "
        "what it calls, imports, extends or references), with the line of each use and how "
        "it was resolved. Use it for a quick one-hop look; use impact for the transitive one.",
        _deps,
        reply=replies.deps,
        param_help={
            "target": TARGET_HELP,
            "min_confidence": "Ignore edges resolved with a lower confidence (0 to 1).",
        },
    ),
    Tool(
        "blast_radius",
        "blast-radius",
        "The impact of a change set: the union of the dependents of several targets, "
        "deduplicated, with the test files to run. Use it when planning an edit that touches "
        "several symbols at once.",
        _traversal("blast_radius", "blast-radius", "targets"),
        reply=replies.blast_radius,
        param_help={"targets": "The symbols the change touches; each as for impact's target."},
    ),
    Tool(
        "detect_changes",
        "detect-changes",
        "Maps the git diff to the symbols it changed (added, modified, deleted, with line "
        "ranges) and gives their blast radius and the tests to run. Use it AFTER editing, "
        "before committing, to check what an edit really touched.",
        _detect_changes,
        reply=replies.detect_changes,
        param_help={"min_confidence": "Ignore edges resolved with a lower confidence (0 to 1)."},
    ),
    Tool(
        "trace",
        "trace",
        "A shortest dependency path from one symbol to another (or the other way round if "
        "there is none), each hop with its relation and confidence. Use it to explain why "
        "changing `target` affects `source`.",
        _trace,
        reply=replies.trace,
        param_help={
            "source": "The dependent end of the path (FROM); as for impact's target.",
            "target": "The depended-on end of the path (TO); as for impact's target.",
            "min_confidence": "Ignore edges resolved with a lower confidence (0 to 1).",
        },
    ),
    Tool(
        "review",
        "review",
        "Review the current branch against its base: the changed symbols, the dependents to "
        "check, the tests that cover them, untested changes and a risk level. Use it when "
        "reviewing a branch or pull request.",
        _review,
        reply=replies.review,
    ),
    Tool(
        "cypher",
        "cypher",
        "A read-only Cypher query on the graph. Use it only for questions no other tool answers. "
        "Nodes: "
        "File(path, language, content_hash, size, lines, is_test, status), Symbol(uid, kind, "
        "name, qualified_name, file, start_line, end_line, signature, exported, is_test, "
        "language). Relations: DEFINES (File->Symbol), CONTAINS, CALLS(confidence, reason, "
        "line), IMPORTS(line), EXTENDS, IMPLEMENTS, REFERENCES(confidence, reason, line). "
        "Pass values as params ($name), never inside the query text.",
        _cypher,
        param_help={"query": "The Cypher query; write values as $name placeholders."},
        overrides={
            "params": Param(
                "params",
                "object",
                "Values for the query's $name placeholders, by name.",
            ),
            "limit": Param(
                "limit",
                "integer",
                f"Rows returned at most, 1 to {SERVER_MAX_ROWS:,} (the default follows "
                f"max_items; {SERVER_MAX_ROWS:,} with full); the reply says when rows were "
                "left out (truncated, total).",
            ),
            "timeout": Param(
                "timeout",
                "number",
                f"Seconds the query may run, at most {SERVER_MAX_TIMEOUT_S:g} (0: that).",
                default=DEFAULT_TIMEOUT_S,
            ),
        },
        max_limit=SERVER_MAX_ROWS,
    ),
)

BY_NAME: dict[str, Tool] = {t.name: t for t in TOOLS}


def get(name: str) -> Tool:
    tool = BY_NAME.get(name)
    if tool is None:
        raise BadInput(f"unknown tool {name!r} (tools: {', '.join(BY_NAME)})")
    return tool


def call(index, name: str, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
    """Run one tool on an open index: its JSON result (what `graph <command> --json`
    prints), or a CodeImpactError."""
    tool = get(name)
    return tool.run(index, bind(tool, arguments))


def answer(index, tool: Tool, args: Mapping[str, Any]) -> dict[str, Any]:
    """One tool call as an agent gets it, from `prepare`d arguments: the reply, or the
    complete JSON with `full`."""
    data = tool.run(index, args)
    return data if args["full"] else tool.reply(data, args["max_items"])


def prepare(tool: Tool, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
    """`bind`, where a tool's own `limit`, when not given, follows `max_items` (a reply
    lists no more than that anyway), unless the complete result is asked for."""
    arguments = dict(arguments or {})
    has_limit = any(p.name == "limit" for p in params(tool))
    if has_limit and arguments.get("limit") is None and not arguments.get("full"):
        max_items = arguments.get("max_items", replies.MAX_ITEMS)
        if isinstance(max_items, int) and not isinstance(max_items, bool):
            top = tool.max_limit
            arguments["limit"] = max_items if top is None else min(max_items or top, top)
    args = bind(tool, arguments)
    if args["max_items"] < 0:
        raise BadInput(f"{tool.name}: 'max_items' must be 0 or more, got {args['max_items']}")
    return args
