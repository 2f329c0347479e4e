"""The user's registry: `analyze` records, `--index-only` does not, `list`, `forget`,
`mcp --all`. Every test has a registry of its own (XDG_DATA_HOME in a temp folder)."""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from click.testing import CliRunner

from codeimpact.cli import main
from codeimpact.registry import Registry, RepoEntry, data_home
from conftest import git

GRAPH = str(Path(sys.executable).with_name("graph"))


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    data = tmp_path / "xdg"
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    return data


def cli(*args: str, code: int = 0):
    res = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert res.exit_code == code, (args, res.output, res.stderr)
    return res


def listed() -> list[dict]:
    data = json.loads(cli("list", "--json").stdout)
    assert data["schema"] == "codeimpact.list/1"
    return data["repos"]


def test_analyze_registers_and_index_only_does_not(home, make_repo):
    plain = make_repo({"pkg/a.py": "def f():\n    return 1\n", "web/x.ts": "export const x = 1;\n"})
    quiet = make_repo({"b.py": "def g():\n    return 2\n"})
    cli("analyze", "--index-only", str(quiet))
    assert not home.exists()  # nothing written outside the index folder
    assert listed() == []
    cli("analyze", str(plain))
    (repo,) = listed()
    assert repo == {
        "path": str(plain.resolve()),
        "indexed_commit": git(plain, "rev-parse", "HEAD").strip(),
        "indexed_at": repo["indexed_at"],
        "fresh": True,
        "reasons": [],
        "languages": {"python": 1, "typescript": 1},
        "files": 2,
        "symbols": repo["symbols"],
    }
    assert repo["symbols"] >= 4 and repo["indexed_at"].endswith("Z")
    assert (home / "codeimpact" / "registry.json").is_file()
    text = cli("list").stdout
    assert str(plain.resolve()) in text and "fresh" in text and str(quiet) not in text


def test_list_says_when_an_index_is_stale_or_gone(home, make_repo):
    a = make_repo({"a.py": "def f():\n    return 1\n"})
    b = make_repo({"b.py": "def g():\n    return 2\n"})
    cli("analyze", str(a))
    cli("analyze", str(b))
    (a / "a.py").write_text("def f():\n    return 3\n")
    cli("clean", str(b))
    repos = {r["path"]: r for r in listed()}
    assert repos[str(a.resolve())]["fresh"] is False
    assert "1 file changed since indexing: a.py" in repos[str(a.resolve())]["reasons"]
    assert repos[str(b.resolve())]["fresh"] is False
    assert "no index" in repos[str(b.resolve())]["reasons"][0]


def test_forget_removes_one(home, make_repo):
    a = make_repo({"a.py": "x = 1\n"})
    b = make_repo({"b.py": "y = 2\n"})
    cli("analyze", str(a))
    cli("analyze", str(b))
    cli("analyze", str(a))  # again: still one entry
    assert [r["path"] for r in listed()] == sorted([str(a.resolve()), str(b.resolve())])
    assert "forgot" in cli("forget", str(a)).stdout
    assert [r["path"] for r in listed()] == [str(b.resolve())]
    assert (a / ".codeimpact").is_dir()  # the index itself stays
    res = cli("forget", str(a), code=2)
    assert res.stderr.startswith("graph: not registered: ") and res.stderr.count("\n") == 1


def _record(args: tuple[str, int]) -> None:
    path, k = args
    Registry(Path(path)).record(RepoEntry(f"/repo/{k}", None, None, {"python": k}, k, k))


def test_concurrent_writers_lose_no_entry(tmp_path):
    path = tmp_path / "codeimpact" / "registry.json"
    with multiprocessing.get_context("fork").Pool(4) as pool:
        pool.map(_record, [(str(path), k) for k in range(24)])
    entries = Registry(path).entries()
    assert sorted(e.files for e in entries) == list(range(24))
    assert json.loads(path.read_text())["schema"] == "codeimpact.registry/1"
    assert not [p for p in path.parent.iterdir() if p.name.startswith(".registry-")]


def test_a_damaged_registry_is_one_line_and_analyze_still_indexes(home, make_repo):
    a = make_repo({"a.py": "x = 1\n"})
    (home / "codeimpact").mkdir(parents=True)
    (home / "codeimpact" / "registry.json").write_text("{not json")
    res = cli("list", code=2)
    assert "registry" in res.stderr and "damaged" in res.stderr and res.stderr.count("\n") == 1
    res = cli("analyze", str(a))
    assert "warning: not registered" in res.stderr
    assert (a / ".codeimpact").is_dir()
    assert (home / "codeimpact" / "registry.json").read_text() == "{not json"  # not clobbered


def test_the_data_home_follows_xdg():
    assert data_home({"XDG_DATA_HOME": "/x/data", "HOME": "/h"}) == Path("/x/data")
    assert data_home({"XDG_DATA_HOME": "relative", "HOME": "/h"}) == Path("/h/.local/share")
    assert data_home({"HOME": "/h"}) == Path("/h/.local/share")


def test_mcp_all_serves_every_registered_repository(home, make_repo):
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    a = make_repo({"a.py": "def alpha():\n    return 1\n"})
    b = make_repo({"b.py": "def beta():\n    return 2\n"})
    cli("analyze", str(a))
    cli("analyze", str(b))
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")}
    params = StdioServerParameters(
        command=GRAPH, args=["mcp", "--all"], env={**env, "XDG_DATA_HOME": str(home)}
    )

    async def go():
        with open(os.devnull, "w") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as s,
            ):
                init = await s.initialize()
                assert str(a.resolve()) in init.instructions
                tool = next(t for t in (await s.list_tools()).tools if t.name == "search")
                assert str(b.resolve()) in tool.input_schema["properties"]["repo"]["description"]
                res = await s.call_tool("search", {"name": "alpha"})
                assert res.is_error and "pass `repo`" in res.content[0].text
                assert str(a.resolve()) in res.content[0].text
                found = await s.call_tool("search", {"name": "alpha", "repo": str(a)})
                assert json.loads(found.content[0].text)["total"] == 1
                found = await s.call_tool("search", {"name": "alpha", "repo": b.name})
                assert json.loads(found.content[0].text)["total"] == 0
                res = await s.call_tool("search", {"name": "alpha", "repo": "/no/such"})
                assert res.is_error and "not served here" in res.content[0].text

    anyio.run(go)


def test_mcp_all_with_nothing_registered_is_one_line(home):
    res = subprocess.run(
        [GRAPH, "mcp", "--all"], capture_output=True, text=True, timeout=60,
        env={**os.environ, "XDG_DATA_HOME": str(home)},
    )  # fmt: skip
    assert res.returncode == 2 and res.stderr.count("\n") == 1
    assert "no repository is registered" in res.stderr


def _entry_from_index(repo: Path) -> RepoEntry:
    from codeimpact.query.index import Index
    from codeimpact.registry import entry_of

    with Index.open(repo) as index:
        return entry_of(index)


def test_a_run_registers_what_its_index_says_without_opening_it(home, make_repo):
    """The entry comes from the run's report (full, incremental): it must be the one the
    index itself gives; an unchanged run leaves the entry of its generation untouched."""
    repo = make_repo({"pkg/a.py": "def f():\n    return 1\n", "web/x.ts": "export const x = 1;\n"})
    reg = Registry(home / "codeimpact" / "registry.json")
    for step in ("full", "incremental"):
        if step == "incremental":
            (repo / "pkg" / "b.py").write_text("from pkg.a import f\n\ndef g():\n    return f()\n")
        data = json.loads(cli("analyze", "--json", str(repo)).stdout)
        assert data["mode"] == step and data["languages"] == {"python": 1 + (step != "full"),
                                                              "typescript": 1}  # fmt: skip
        (entry,) = reg.entries()
        assert entry == _entry_from_index(repo)
    registry_file = home / "codeimpact" / "registry.json"
    before = registry_file.stat()
    data = json.loads(cli("analyze", "--json", str(repo)).stdout)
    assert data["mode"] == "unchanged" and data["indexed_at"] is None
    after = registry_file.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert reg.entries() == [entry]


def test_an_unchanged_run_records_an_index_written_without_registering(home, make_repo):
    """A generation written by `--index-only` is not the registered one: the next plain
    analyze, unchanged, records it from the index (its time, its counts)."""
    repo = make_repo({"a.py": "def f():\n    return 1\n"})
    reg = Registry(home / "codeimpact" / "registry.json")
    cli("analyze", str(repo))
    (first,) = reg.entries()
    (repo / "a.py").write_text("def f():\n    return 1\n\n\ndef g():\n    return 2\n")
    cli("analyze", "--index-only", str(repo))
    assert reg.entries() == [first]
    assert json.loads(cli("analyze", "--json", str(repo)).stdout)["mode"] == "unchanged"
    (now,) = reg.entries()
    assert now == _entry_from_index(repo)
    assert now.generation == first.generation + 1 and now.symbols > first.symbols
