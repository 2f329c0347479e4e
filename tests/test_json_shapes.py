"""Every `--json` output against its shape in docs/json.md, on a real indexed repository.

The shapes are parsed from the page itself (tests/jsonshape.py), so a command whose
output gains, loses or retypes a key fails here until the page says so.
"""

from __future__ import annotations

import copy
import json

import click
import jsonshape
import pytest
from click.testing import CliRunner

from codeimpact.cli import all_commands, main
from conftest import git, write_files

FILES = {
    "pkg/__init__.py": "",
    "pkg/core.py": """
        from pkg import cyc_a


        def helper(x):
            return x + 1


        class Base:
            def run(self):
                return 0


        class Engine(Base):
            def run(self):
                mystery()
                return helper(1)

            def stop(self):
                return cyc_a.a()
        """,
    "pkg/app.py": """
        from pkg.core import Engine, helper


        def main():
            return Engine().run() + helper(2)
        """,
    "pkg/cyc_a.py": "from pkg import cyc_b\n\n\ndef a():\n    return cyc_b.b()\n",
    "pkg/cyc_b.py": "from pkg import cyc_a\n\n\ndef b():\n    return 1\n",
    "tests/test_app.py": """
        from pkg.app import main


        def test_main():
            assert main() == 5
        """,
    "broken.py": "def broken(:\n    pass\n",  # a parse error: an incomplete record
}

# Shapes no run here can produce, and why (everything else must be met at least once).
NOT_PRODUCED = {
    "@analyzing": "only while another analyze holds the lock",
    "codeimpact.error/1": "MCP only: checked in test_mcp.py",
}


def run(repo, *args: str, code: int = 0) -> dict:
    res = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert res.exit_code == code, (args, res.exit_code, res.output)
    return json.loads(res.stdout)


@pytest.fixture(scope="module")
def outputs(tmp_path_factory) -> list[tuple[list[str], dict]]:
    """(arguments, parsed --json output) of every command, on one repository."""
    repo = tmp_path_factory.mktemp("shapes") / "repo"
    repo.mkdir()
    write_files(repo, FILES)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "initial")
    r = str(repo)
    record = repo.parent / "record.json"
    out: list[tuple[list[str], dict]] = []

    def cmd(*args: str, code: int = 0) -> dict:
        data = run(repo, *args, code=code)
        out.append((list(args), data))
        return data

    cmd("analyze", "--json", r)
    cmd("coverage", "import", write_coverage_data(repo), "--json", "--repo", r)
    record.write_text(
        json.dumps(cmd("provenance", "pkg/core.py", "pkg/app.py", "--json", "--repo", r))
    )
    # A branch with a commit (for review and drift), then uncommitted edits (detect-changes).
    git(repo, "checkout", "-q", "-b", "feature")
    (repo / "pkg/cyc_b.py").write_text("from pkg import cyc_a\n\n\ndef b():\n    return 2\n")
    with (repo / "pkg/core.py").open("a") as f:
        f.write("\n\ndef extra():\n    return helper(3)\n")
    git(repo, "commit", "-q", "-am", "feature")
    cmd("analyze", "--json", r)  # the incremental report
    core = repo / "pkg/core.py"
    core.write_text(core.read_text().replace("return x + 1", "return x + 10"))
    (repo / "pkg/new.py").write_text("def new():\n    pass\n")
    (repo / "pkg/cyc_b.py").write_text("from pkg import cyc_a\n")  # b deleted: a is broken

    q = ["--json", "--repo", r]
    cmd("status", "--json", r)
    cmd("search", "e", "--limit", "2", *q)
    cmd(
        "cypher",
        "MATCH (s:Symbol) WHERE s.kind = $k RETURN s.uid, s.start_line",
        "--param",
        "k=function",
        *q,
    )
    cmd("impact", "helper", "--include-tests", "--limit", "1", *q)
    cmd("impact", "pkg/core.py::Engine.run", "--direction", "downstream", *q)  # unresolved sites
    cmd("impact", "run", *q, code=3)  # ambiguous: the candidates
    cmd("blast-radius", "helper", "Engine", *q)
    cmd("deps", "helper", *q)
    cmd("context", "Engine", *q)
    cmd("context", "pkg/core.py::Engine.run", *q)
    cmd("trace", "main", "helper", *q)
    cmd("trace", "helper", "main", *q)  # the other way round
    cmd("cycles", *q)
    cmd("detect-changes", *q)
    cmd("detect-changes", "--base", "main", *q)
    cmd("detect-changes", "--if-incomplete", "importers", *q)
    cmd("drift", str(record), *q, code=1)
    cmd("gate", "--require-fresh", "--files", "pkg/app.py", "--allow", "pkg/**", *q, code=1)
    cmd("review", "--base", "main", *q)
    cmd("coverage", "status", *q)  # pkg/core.py changed since the observation: stale
    cmd("list", "--json")  # the analyze above registered the repository
    out += mcp_replies(repo)
    # last, a damaged index: status lists the file (and a database it must not open)
    gen = next((repo / ".codeimpact").glob("gen-*"))
    (gen / "state-conf.npy").write_bytes(b"damaged")
    cmd("status", "--json", r, code=1)
    (gen / "graph.kz").write_bytes(b"damaged")
    cmd("status", "--json", r, code=1)
    return out


def mcp_replies(repo) -> list[tuple[list[str], dict]]:
    """The MCP tools' default replies (`codeimpact.mcp.*/1`), made in this process."""
    from codeimpact import tools
    from codeimpact.query.index import Index

    calls = [
        ("impact", {"target": "helper", "include_tests": True, "max_items": 1}),
        ("impact", {"target": "pkg/core.py::Engine.run", "direction": "downstream"}),
        ("blast_radius", {"targets": ["helper", "Engine"]}),
        ("context", {"target": "Engine"}),
        ("context", {"target": "pkg/core.py::Engine.run"}),
        ("deps", {"target": "helper"}),
        ("search", {"name": "e", "max_items": 2}),
        ("trace", {"source": "main", "target": "helper"}),
        ("detect_changes", {}),
        ("detect_changes", {"base": "main", "max_items": 1}),
        ("review", {"base": "main"}),
    ]
    with Index.open(repo) as index:
        return [
            (
                [f"mcp:{name}"],
                tools.answer(index, tools.get(name), tools.prepare(tools.get(name), a)),
            )
            for name, a in calls
        ]


def write_coverage_data(repo) -> str:
    """A coverage.py data file with one per-test context, written through coverage.py's API
    (what `pytest --cov --cov-context=test` records when test_main runs helper)."""
    from coverage import CoverageData

    data = CoverageData(str(repo / ".coverage"))
    data.set_context("tests/test_app.py::test_main|run")
    data.add_lines({str(repo / "pkg/core.py"): [5], str(repo / "pkg/app.py"): [5]})
    data.set_context("tests/test_app.py::test_gone|run")  # names no test: unmatched
    data.add_lines({str(repo / "pkg/app.py"): [5]})
    data.write()
    return str(repo / ".coverage")


def test_every_output_matches_its_documented_shape(outputs):
    shapes = jsonshape.load()
    for args, data in outputs:
        assert next(iter(data)) == "schema", args  # the schema key comes first
        schema = data["schema"]
        assert schema in shapes.commands, f"{schema} ({args[0]}) is not in docs/json.md"
        errors = jsonshape.check(shapes, shapes.commands[schema], data)
        assert not errors, f"graph {' '.join(args[:2])}: " + "; ".join(errors[:5])


def test_every_documented_shape_is_produced(outputs):
    shapes = jsonshape.load()
    for _, data in outputs:
        jsonshape.check(shapes, shapes.commands[data["schema"]], data)
    produced = {data["schema"] for _, data in outputs} | shapes.visited
    documented = set(shapes.commands) | set(shapes.named)
    assert documented - produced == set(NOT_PRODUCED)


def test_every_json_command_is_run(outputs):
    with_json = {
        name for name, c in all_commands().items() if any(p.name == "as_json" for p in c.params)
    }
    for group in (c for c in all_commands().values() if isinstance(c, click.Group)):
        with_json |= {
            f"{group.name} {name}"
            for name, c in group.commands.items()
            if any(p.name == "as_json" for p in c.params)
        }
    run_names = {args[0] for args, _ in outputs} | {" ".join(args[:2]) for args, _ in outputs}
    assert with_json - run_names == set()
    for name in with_json:
        assert f"## graph {name}\n" in jsonshape.DOC.read_text(), f"graph {name} is not in docs"


def test_schema_names_follow_the_command(outputs):
    for args, data in outputs:
        if args[0].startswith("mcp:"):
            assert data["schema"] == f"codeimpact.mcp.{args[0][4:].replace('_', '-')}/1"
        elif data["schema"] != "codeimpact.ambiguous/1":
            group = isinstance(all_commands()[args[0]], click.Group)
            name = f"{args[0]}-{args[1]}" if group else args[0]
            assert data["schema"] == f"codeimpact.{name}/1"


def test_impact_keys_keep_their_documented_order(outputs):
    """impact and blast radius declare their shared fields once (query/impact_shapes.py
    Reached): the JSON still lists the subject first and every key in the page's order."""
    shapes = jsonshape.load()
    seen = set()
    for args, data in outputs:
        if data["schema"] in ("codeimpact.impact/1", "codeimpact.blast-radius/1"):
            assert list(data) == list(shapes.commands[data["schema"]]), args
            seen.add(data["schema"])
    assert len(seen) == 2
    assert list(shapes.commands["codeimpact.impact/1"])[:3] == ["schema", "target", "members"]


def test_the_checker_catches_drift(outputs):
    """Each kind of drift from the page is reported, with where it is."""
    shapes = jsonshape.load()
    impact = next(d for a, d in outputs if a[:2] == ["impact", "helper"])
    shape = shapes.commands["codeimpact.impact/1"]
    assert jsonshape.check(shapes, shape, impact) == []

    def drifted(change) -> list[str]:
        data = copy.deepcopy(impact)
        change(data)
        return jsonshape.check(shapes, shape, data)

    assert drifted(lambda d: d["counts"].update(extra=1)) == ["$.counts: undocumented key 'extra'"]
    assert drifted(lambda d: d["risk"].pop("reasons")) == ["$.risk: missing key 'reasons'"]
    assert drifted(lambda d: d.update(direction="sideways"))[0].startswith("$.direction")
    entry_conf = drifted(lambda d: d["groups"][0]["entries"][0].update(confidence="high"))
    assert entry_conf == ['$.groups[0].entries[0].confidence: expected number, got "high"']
    assert drifted(lambda d: d["target"].update(line=True)) == [
        "$.target.line: expected int, got true"
    ]
    assert drifted(lambda d: d.update(tests={}))[0] == "$.tests: expected an array, got {}"


def test_shape_syntax():
    doc = """
## graph x

```json
{"schema": "codeimpact.x/1", "a?": "int", "m": {"*": "@pair|null"}, "t": ["int", "string"]}
```

### @pair

```json
// a comment line
{"left": "LOW|HIGH", "right": "number"}  // trailing comment
```
"""
    shapes = jsonshape.parse(doc)
    shape = shapes.commands["codeimpact.x/1"]
    ok = {"schema": "codeimpact.x/1", "m": {"k": {"left": "LOW", "right": 1}, "n": None}}
    assert jsonshape.check(shapes, shape, {**ok, "t": [1, "s"]}) == []
    assert jsonshape.check(shapes, shape, {**ok, "t": [1]}) == ["$.t: expected 2 items, got 1"]
    bad = {**ok, "t": [1, "s"], "m": {"k": {"left": "MID", "right": 1}}}
    assert jsonshape.check(shapes, shape, bad)[0].startswith("$.m.k: expected @pair|null")
    assert jsonshape.check(shapes, shape, {**ok, "t": [1, "s"], "schema": "x"})
