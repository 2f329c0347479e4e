"""`graph mcp` as a subprocess, driven by the official SDK's client over stdio (and HTTP)."""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import time
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import jsonshape
import pytest
from click.testing import CliRunner
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

import damage
from codeimpact import tools
from codeimpact.cli import main
from conftest import git, sdist_copy, write_files

GRAPH = str(Path(sys.executable).with_name("graph"))
TOOL_NAMES = [
    "status",
    "search",
    "context",
    "impact",
    "deps",
    "blast_radius",
    "detect_changes",
    "trace",
    "review",
    "cypher",
]

FILES = {
    "pkg/__init__.py": "",
    "pkg/core.py": """
        def helper(x):
            return x + 1


        class Engine:
            def run(self):
                return helper(1)

            def stop(self):
                return 0
        """,
    "pkg/app.py": """
        from pkg.core import Engine, helper


        def main():
            return Engine().run() + helper(2)
        """,
    "tests/test_app.py": """
        from pkg.app import main


        def test_main():
            assert main() == 5
        """,
}

# Valid arguments per tool, and the `graph` command line that must print the same JSON.
VALID = {
    "status": ({}, ["status", "--json", "{repo}"]),
    "search": ({"name": "e", "limit": 3}, ["search", "e", "--limit", "3"]),
    "context": ({"target": "Engine.run"}, ["context", "Engine.run"]),
    "impact": (
        {"target": "helper", "depth": 2, "include_tests": True},
        ["impact", "helper", "--depth", "2", "--include-tests"],
    ),
    "deps": ({"target": "helper", "relation": "CALLS"}, ["deps", "helper", "--relation", "CALLS"]),
    "blast_radius": ({"targets": ["helper", "Engine"]}, ["blast-radius", "helper", "Engine"]),
    "detect_changes": ({}, ["detect-changes"]),
    "trace": ({"source": "main", "target": "helper"}, ["trace", "main", "helper"]),
    "review": ({"base": "main"}, ["review", "--base", "main"]),
    "cypher": (
        {"query": "MATCH (s:Symbol) WHERE s.name = $n RETURN s.uid", "params": {"n": "helper"}},
        ["cypher", "MATCH (s:Symbol) WHERE s.name = $n RETURN s.uid", "--param", "n=helper"],
    ),
}

# One invalid call per tool, and a word the one-line error must contain.
INVALID = {
    "status": ({"verbose": True}, "unknown argument 'verbose'"),
    "search": ({}, "missing required argument 'name'"),
    "context": ({"target": 3}, "'target' must be a string"),
    "impact": ({"target": "helper", "depth": "deep"}, "'depth' must be an integer"),
    "deps": ({"target": "helper", "min_confidence": "x"}, "'min_confidence' must be a number"),
    "blast_radius": ({"targets": "helper"}, "'targets' must be an array"),
    "detect_changes": ({"scope": "everything"}, "'scope' must be one of"),
    "trace": ({"source": "main"}, "missing required argument 'target'"),
    "review": ({"depth": True}, "'depth' must be an integer"),
    "cypher": ({"query": "MATCH (s) RETURN s", "params": ["x"]}, "'params' must be an object"),
}


def server_env() -> dict[str, str]:
    # The SDK's default environment for a server is a small allow-list; keep PATH and HOME
    # so git runs as in a shell, and drop NO_COLOR games: output is JSON anyway.
    keep = ("PATH", "HOME", "LANG", "TMPDIR", "XDG_DATA_HOME")
    return {k: v for k, v in os.environ.items() if k in keep}


@asynccontextmanager
async def session(repo: Path, *extra: str):
    params = StdioServerParameters(command=GRAPH, args=["mcp", str(repo), *extra], env=server_env())
    with open(os.devnull, "w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as s,
        ):
            await s.initialize()
            yield s


def drive(repo: Path, script) -> None:
    """Run `script(session)` against a fresh `graph mcp REPO` subprocess."""

    async def go():
        async with session(repo) as s:
            await script(s)

    run(go)


def run(fn) -> None:
    """anyio.run, with a failing assertion shown as itself, not inside task-group wrappers."""
    try:
        anyio.run(fn)
    except BaseException as e:  # noqa: B036 - unwrapped and re-raised
        leaf = e
        while getattr(leaf, "exceptions", None):
            leaf = leaf.exceptions[0]
        raise leaf from None


def cli_json(repo: Path, args: list[str]) -> tuple[int, dict]:
    args = [a.replace("{repo}", str(repo)) for a in args]
    if "--json" not in args:
        args += ["--json", "--repo", str(repo)]
    res = CliRunner().invoke(main, args, catch_exceptions=False)
    return res.exit_code, json.loads(res.stdout)


def answer(data: dict) -> dict:
    """A result without how its freshness was decided (a long-lived server watches files;
    a one-shot CLI stats them): the same answer either way."""
    if isinstance(data.get("freshness"), dict):
        data = {**data, "freshness": {k: v for k, v in data["freshness"].items() if k != "method"}}
    return data


def cli_error(repo: Path, args: list[str]) -> str:
    res = CliRunner().invoke(main, [*args, "--repo", str(repo)], catch_exceptions=False)
    assert res.exit_code != 0
    line = res.stderr.strip()
    assert line.startswith("graph: ") and "\n" not in line
    return line[len("graph: ") :]


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    """A repository on a branch with one commit over main, indexed at that commit."""
    root = tmp_path_factory.mktemp("mcp") / "repo"
    root.mkdir()
    write_files(root, FILES)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    git(root, "checkout", "-q", "-b", "feature")
    core = root / "pkg/core.py"
    core.write_text(core.read_text().replace("return 0", "return helper(0)"))
    git(root, "commit", "-q", "-am", "stop uses helper")
    res = CliRunner().invoke(main, ["analyze", "--index-only", str(root)])
    assert res.exit_code == 0, res.output
    return root


def test_lists_the_tools_with_schemas_from_the_cli_options(repo):
    async def script(s):
        listed = {t.name: t for t in (await s.list_tools()).tools}
        assert list(listed) == TOOL_NAMES
        for name, tool in listed.items():
            spec = tools.BY_NAME[name]
            assert len(tool.description) > 80 and "Use it" in tool.description, name
            assert tool.input_schema == tools.input_schema(spec)
            assert tool.annotations.read_only_hint is True
            # The schema is the CLI command's own parameters (less the server-wide ones),
            # and the reply's.
            cli_params = {
                p.name
                for p in main.get_command(None, spec.command).params
                if p.name not in tools.NOT_TOOL_PARAMS and p.name not in spec.hidden
            }
            assert set(tool.input_schema["properties"]) == cli_params | tools.REPLY_NAMES, name
            assert tool.input_schema["properties"]["max_items"]["default"] == 30
            for prop in tool.input_schema["properties"].values():
                assert prop["description"] and not prop["description"].startswith(tools.NO_HELP)
        impact = listed["impact"].input_schema
        assert impact["required"] == ["target"]
        assert impact["properties"]["depth"] == {
            "type": "integer",
            "description": "Max hops.",
            "default": 3,
        }
        assert impact["properties"]["include_tests"]["type"] == "boolean"
        assert impact["properties"]["min_confidence"]["type"] == "number"
        assert listed["blast_radius"].input_schema["properties"]["targets"]["items"] == {
            "type": "string"
        }
        scope = listed["detect_changes"].input_schema["properties"]["scope"]
        assert scope["enum"] == ["unstaged", "staged", "all", "compare"]
        assert listed["cypher"].input_schema["properties"]["params"]["type"] == "object"

    drive(repo, script)


def reply(res) -> dict:
    """The one JSON text of a reply: compact, and not sent twice (no structured copy)."""
    assert not res.is_error, res.content[0].text
    assert len(res.content) == 1 and res.structured_content is None
    text = res.content[0].text
    data = json.loads(text)
    assert text == json.dumps(data, separators=(",", ":"), ensure_ascii=False)  # not indented
    return data


def test_each_tool_in_full_returns_what_the_cli_prints(repo):
    shapes = jsonshape.load()

    async def script(s):
        for name, (arguments, cli_args) in VALID.items():
            res = await s.call_tool(name, {**arguments, "full": True})
            full = reply(res)
            code, printed = cli_json(repo, cli_args)
            assert code == 0
            assert answer(full) == answer(printed), name
            errors = jsonshape.check(shapes, shapes.commands[printed["schema"]], printed)
            assert errors == [], (name, errors[:3])
            short = reply(await s.call_tool(name, arguments))  # the default: the agent's reply
            errors = jsonshape.check(shapes, shapes.commands[short["schema"]], short)
            assert errors == [], (name, errors[:3])
        # Not vacuous: the answers hold what the repository says.
        impact = reply(await s.call_tool("impact", {"target": "helper", "full": True}))
        d1 = {e["uid"] for g in impact["groups"] if g["depth"] == 1 for e in g["entries"]}
        assert {"pkg/app.py::main", "pkg/core.py::Engine.run", "pkg/core.py::Engine.stop"} <= d1
        review = reply(await s.call_tool("review", {"base": "main"}))
        assert list(review)[:4] == ["schema", "summary", "risk", "risk_reasons"]
        assert [x["uid"] for x in review["symbols"]["items"]] == ["pkg/core.py::Engine.stop"]
        assert review["symbols"]["items"][0]["status"] == "modified"
        changes = reply(await s.call_tool("detect_changes", {"base": "main"}))
        assert list(changes)[:4] == ["schema", "summary", "risk", "risk_reasons"]
        assert "pkg/core.py::Engine.stop" in {x["uid"] for x in changes["changed"]["items"]}
        assert changes["run_ids"] == review["run_ids"]  # no test reaches Engine.stop

    drive(repo, script)


def test_a_reply_leads_with_the_answer_and_cuts_lists_with_their_totals(repo):
    async def script(s):
        impact = reply(await s.call_tool("impact", {"target": "helper"}))
        assert list(impact)[:6] == ["schema", "summary", "target", "risk", "risk_reasons", "counts"]
        assert impact["schema"] == "codeimpact.mcp.impact/1"
        direct = impact["counts"]["direct"]
        assert impact["summary"].startswith(f"risk {impact['risk']}: {direct} direct dependents")
        assert impact["d1"]["label"] == "WILL BREAK" and impact["d1"]["total"] == direct
        assert {e["uid"] for e in impact["d1"]["items"]} >= {
            "pkg/app.py::main",
            "pkg/core.py::Engine.run",
            "pkg/core.py::Engine.stop",
        }
        assert impact["d1"]["items"][0].keys() <= {"uid", "line", "rel", "conf", "via", "test"}
        cut = reply(await s.call_tool("impact", {"target": "helper", "max_items": 1}))
        assert cut["d1"]["total"] == direct and len(cut["d1"]["items"]) == 1  # "1 of 4"
        assert cut["counts"] == impact["counts"]  # totals stay complete
        found = reply(await s.call_tool("search", {"name": "e", "max_items": 2}))
        assert found["total"] > 2 and len(found["results"]) == 2
        bad = await s.call_tool("impact", {"target": "helper", "max_items": -1})
        assert bad.is_error and "'max_items' must be 0 or more" in bad.content[0].text

    drive(repo, script)


def test_a_slow_query_does_not_hold_up_a_fast_one(repo):
    """Calls on one session: a Cypher query that runs for seconds, then three quick ones in
    turn; all three are answered before it (a connection per worker thread, no lock
    around the tools)."""
    slow = (
        "UNWIND range(1, 15000) AS x UNWIND range(1, 15000) AS y "
        "WITH x, y WHERE (x * y) % 7 = 3 RETURN count(*)"
    )
    finished: list[str] = []

    async def script(s):
        async def call(name: str, arguments: dict) -> None:
            res = await s.call_tool(name, arguments)
            finished.append(name if not res.is_error else f"{name}: {res.content[0].text}")

        async with anyio.create_task_group() as tg:
            tg.start_soon(call, "cypher", {"query": slow})
            await anyio.sleep(0.3)  # the slow query is running
            # One after the other: were they queued behind the slow query, the first would
            # end with it at best, and the next ones after it.
            await call("search", {"name": "helper"})
            await call("impact", {"target": "helper"})
            await call("context", {"target": "helper"})
        assert finished == ["search", "impact", "context", "cypher"], finished

    drive(repo, script)


def test_invalid_arguments_are_one_line_errors_and_the_server_keeps_serving(repo):
    shapes = jsonshape.load()

    async def script(s):
        for name, (arguments, expected) in INVALID.items():
            res = await s.call_tool(name, arguments)
            assert res.is_error, name
            text = res.content[0].text
            assert "\n" not in text and expected in text, (name, text)
            detail = res.structured_content
            assert detail["type"] == "BadInput" and detail["code"] == 2 and detail["error"] == text
            assert jsonshape.check(shapes, shapes.commands["codeimpact.error/1"], detail) == []
        unknown = await s.call_tool("delete_everything", {})
        assert unknown.is_error and "unknown tool 'delete_everything'" in unknown.content[0].text
        # Still alive, still answering.
        ok = await s.call_tool("search", {"name": "helper"})
        assert reply(ok)["total"] == 1

    drive(repo, script)


def test_query_errors_carry_the_cli_message(repo):
    shapes = jsonshape.load()

    async def script(s):
        res = await s.call_tool("impact", {"target": "nosuch"})
        assert res.is_error
        assert res.content[0].text == cli_error(repo, ["impact", "nosuch"])
        assert res.structured_content["type"] == "TargetNotFound"
        assert res.structured_content["code"] == 4

        res = await s.call_tool("deps", {"target": "pkg/core.py:99"})  # past the end
        assert res.is_error
        assert res.content[0].text == cli_error(repo, ["deps", "pkg/core.py:99"])

        res = await s.call_tool("trace", {"source": "main", "target": "helper", "depth": 2})
        assert res.is_error and "unknown argument 'depth'" in res.content[0].text

        res = await s.call_tool("cypher", {"query": "MATCH (s:Symbol) DELETE s"})
        assert res.is_error and "read-only" in res.content[0].text
        gone = await s.call_tool("cypher", {"query": "MATCH (s:Symbol) RETURN count(s)"})
        assert reply(gone)["rows"][0][0] > 0  # nothing was deleted

        res = await s.call_tool("cypher", {"query": "MATCH (s:Symbol RETURN s"})
        assert res.is_error and res.content[0].text.startswith("cypher: ")

        detail = res.structured_content
        assert jsonshape.check(shapes, shapes.commands["codeimpact.error/1"], detail) == []

    drive(repo, script)


def test_an_ambiguous_target_returns_its_candidates(make_repo, index_repo):
    repo = make_repo({"a.py": "def run():\n    return 1\n", "b.py": "def run():\n    return 2\n"})
    index_repo(repo)
    shapes = jsonshape.load()

    async def script(s):
        res = await s.call_tool("impact", {"target": "run"})
        assert res.is_error
        assert res.content[0].text == cli_error(repo, ["impact", "run"])
        detail = res.structured_content
        assert detail["schema"] == "codeimpact.ambiguous/1"
        assert sorted(c["uid"] for c in detail["candidates"]) == ["a.py::run", "b.py::run"]
        assert jsonshape.check(shapes, shapes.commands["codeimpact.ambiguous/1"], detail) == []

    drive(repo, script)


def test_require_fresh_refuses_a_stale_index(make_repo, index_repo):
    repo = make_repo({"a.py": "def f():\n    return 1\n"})
    index_repo(repo)
    (repo / "a.py").write_text("def f():\n    return 2\n")

    async def script(s):
        stale = await s.call_tool("search", {"name": "f", "require_fresh": True})
        assert stale.is_error and stale.structured_content["type"] == "StaleIndex"
        assert stale.content[0].text == cli_error(repo, ["search", "f", "--require-fresh"])
        answered = await s.call_tool("search", {"name": "f"})
        assert reply(answered)["total"] == 1

    drive(repo, script)


def test_a_long_lived_server_reopens_a_new_index(make_repo, index_repo):
    repo = make_repo({"a.py": "def first():\n    return 1\n"})

    async def script(s):
        # No index yet: an error, not a dead server.
        res = await s.call_tool("status", {})
        assert res.is_error and res.structured_content["type"] == "NoIndex"
        assert "graph analyze" in res.content[0].text

        index_repo(repo)
        status = await s.call_tool("status", {})
        first_gen = reply(status)["generation"]
        found = await s.call_tool("search", {"name": "second"})
        assert reply(found)["total"] == 0

        (repo / "b.py").write_text("def second():\n    return first()\n")
        git(repo, "add", "b.py")
        git(repo, "commit", "-q", "-m", "second")
        index_repo(repo)

        found = await s.call_tool("search", {"name": "second"})
        assert [h["uid"] for h in reply(found)["results"]] == ["b.py::second"]
        status = reply(await s.call_tool("status", {}))
        assert status["generation"] > first_gen
        assert status["fresh"] is True

    drive(repo, script)


def test_damage_written_under_a_running_server_is_refused_until_a_plain_analyze(
    make_repo, index_repo
):
    # the server keeps its generation open (Kùzu's buffer pool, the mapped CSR): damage
    # written meanwhile must be refused, not answered from what is cached or mapped
    repo = make_repo(FILES)
    index_repo(repo)

    def without_freshness(res) -> dict:
        return {k: v for k, v in reply(res).items() if k != "freshness"}

    async def script(s):
        good = without_freshness(await s.call_tool("impact", {"target": "helper"}))
        for pattern, kind in (("graph.kz", "flip"), ("csr/*.npy", "truncate")):
            live = next((repo / ".codeimpact").glob("gen-*"))
            assert damage.damage(sorted(live.glob(pattern))[0], kind, 0.5, 1)
            refused = await s.call_tool("impact", {"target": "helper"})
            assert refused.is_error and refused.structured_content["type"] == "Damaged"
            text = refused.content[0].text
            assert "\n" not in text and "graph analyze" in text and "--force" not in text
            again = await s.call_tool("search", {"name": "helper"})  # still refused
            assert again.is_error and again.structured_content["type"] == "Damaged"
            index_repo(repo)  # a plain analyze repairs
            assert without_freshness(await s.call_tool("impact", {"target": "helper"})) == good

    drive(repo, script)


def test_bad_path_is_one_line(tmp_path):
    res = subprocess.run(
        [GRAPH, "mcp", str(tmp_path / "missing")], capture_output=True, text=True, timeout=60
    )
    assert res.returncode == 2
    assert res.stderr.count("\n") == 1 and "not a directory" in res.stderr


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _listening_addresses(port: int) -> set[str]:
    """Local addresses listening on `port`, from /proc/net/tcp{,6} (hex, as the kernel says)."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            local, state = line.split()[1], line.split()[3]
            addr, _, hexport = local.partition(":")
            if state == "0A" and int(hexport, 16) == port:  # 0A: LISTEN
                found.add(addr)
    return found


def test_http_transport_serves_the_same_tools_on_loopback_only(repo):
    from mcp.client.streamable_http import streamable_http_client

    port = _free_port()
    proc = subprocess.Popen(
        [GRAPH, "mcp", str(repo), "--http", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        for _ in range(200):  # until it listens (or dies)
            if proc.poll() is not None or _listening_addresses(port):
                break
            time.sleep(0.05)
        assert proc.poll() is None, proc.stderr.read()
        assert _listening_addresses(port) == {"0100007F"}  # 127.0.0.1, nothing else

        async def go():
            url = f"http://127.0.0.1:{port}/mcp"
            async with (
                streamable_http_client(url) as (read, write),
                ClientSession(read, write) as s,
            ):
                await s.initialize()
                listed = [t.name for t in (await s.list_tools()).tools]
                assert listed == TOOL_NAMES
                res = await s.call_tool("impact", {"target": "helper", "full": True})
                _, printed = cli_json(repo, ["impact", "helper"])
                assert answer(reply(res)) == answer(printed)
                bad = await s.call_tool("impact", {})
                assert bad.is_error and "missing required argument" in bad.content[0].text

        run(go)

        # DNS rebinding: a page that resolves its own name to 127.0.0.1 is refused.
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        hello = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        headers = {"Host": f"attacker.example:{port}", "Content-Type": "application/json"}
        conn.request("POST", "/mcp", body=json.dumps(hello), headers=headers)
        assert conn.getresponse().status == 421
        conn.close()

        # A second server on the same port: one line, exit 2.
        taken = subprocess.run(
            [GRAPH, "mcp", str(repo), "--http", "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert taken.returncode == 2 and taken.stderr.count("\n") == 1
        assert f"cannot listen on 127.0.0.1:{port}" in taken.stderr
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.fixture(scope="module")
def flask_repo(request, tmp_path_factory) -> Path:
    repo = sdist_copy(request, tmp_path_factory, "flask", "3.1.3")
    res = CliRunner().invoke(main, ["analyze", "--index-only", str(repo)])
    assert res.exit_code == 0, res.output
    return repo


def test_the_impact_of_a_widely_used_flask_method_fits_an_agent(flask_repo):
    """Flask 3.1.3's Scaffold.route (381 tests reach it): under 12 KB (issue 23), compact,
    complete counts; the full result is the one that does not fit. Since issue 25's
    decorator rule its callers fill all three depths (75 dependents): the groups beyond d1
    hold a third of max_items, or the reply took 13.8 KB."""

    async def script(s):
        res = await s.call_tool("impact", {"target": "Scaffold.route"})
        text = res.content[0].text
        data = reply(res)
        assert len(text.encode()) < 12 * 1024, len(text.encode())
        assert data["target"]["uid"] == "src/flask/sansio/scaffold.py::Scaffold.route"
        assert len(data["d1"]["items"]) == min(30, data["d1"]["total"])
        assert all(len(data[d]["items"]) <= 10 for d in ("d2", "d3") if d in data)
        assert data["tests"]["total"] == data["counts"]["tests"] > len(data["tests"]["items"])
        # runnable ids, each once (the functions nested in one test share its id)
        items = data["tests"]["items"]
        assert 0 < len(items) <= 30 and len(set(items)) == len(items)
        full = await s.call_tool("impact", {"target": "Scaffold.route", "full": True, "limit": 0})
        assert len(full.content[0].text) > 2 * len(text)

    drive(flask_repo, script)
