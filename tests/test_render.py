"""`--format mermaid|dot` on impact, trace and context: the diagram holds the result's nodes and
edges (checked against the same command's --json), and Graphviz accepts the dot."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest
from click.testing import CliRunner

from codeimpact.cli import main
from codeimpact.render import Diagram, Edge, Node, to_dot, to_mermaid
from conftest import git, write_files

FILES = {
    "pkg/__init__.py": "",
    "pkg/core.py": """
        def helper(x):
            return x + 1


        class Base:
            def run(self):
                return 0


        class Engine(Base):
            def run(self):
                return helper(1)

            def stop(self):
                return helper(0)
        """,
    "pkg/app.py": """
        from pkg.core import Engine, helper


        def main():
            return Engine().run() + helper(2)


        def twice():
            return main() + main()
        """,
    "tests/test_app.py": """
        from pkg.app import main


        def test_main():
            assert main() == 5
        """,
}


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    root = tmp_path_factory.mktemp("render") / "repo"
    root.mkdir()
    write_files(root, FILES)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    res = CliRunner().invoke(main, ["analyze", "--index-only", str(root)])
    assert res.exit_code == 0, res.output
    return root


def cli(repo, *args: str, code: int = 0) -> str:
    res = CliRunner().invoke(main, [*args, "--repo", str(repo)], catch_exceptions=False)
    assert res.exit_code == code, res.output
    return res.stdout if code == 0 else res.stderr


# ---------------------------------------------------------------------- tiny parsers
MERMAID_ENTITIES = {"#quot;": '"', "#lt;": "<", "#gt;": ">", "#amp;": "&", "#35;": "#"}


def _unmermaid(text: str) -> str:
    for entity, char in MERMAID_ENTITIES.items():
        text = text.replace(entity, char)
    return text


def parse_mermaid(text: str) -> dict:
    """{nodes: id -> (label lines, group), edges: [(src, dst, label, dashed)], classes}."""
    lines = text.splitlines()
    assert lines[0] == "---" and lines[1].startswith("title: ") and lines[2] == "---"
    assert lines[3] == "flowchart LR"
    nodes, edges, classes, group = {}, [], {}, ""
    for line in lines[4:]:
        s = line.strip()
        if m := re.fullmatch(r'subgraph g\d+\["(.*)"\]', s):
            group = _unmermaid(m.group(1))
        elif s == "end":
            group = ""
        elif m := re.fullmatch(r'(n\d+)\["(.*)"\]', s):
            assert '"' not in m.group(2)  # quotes are escaped inside labels
            nodes[m.group(1)] = ([_unmermaid(x) for x in m.group(2).split("<br/>")], group)
        elif m := re.fullmatch(r'(n\d+) (-->|-\.->)(?:\|"(.*)"\|)? (n\d+)', s):
            edges.append(
                (m.group(1), m.group(4), _unmermaid(m.group(3) or ""), m.group(2) != "-->")
            )
        elif m := re.fullmatch(r"class ([\w,]+) (ci_\w+)", s):
            for n in m.group(1).split(","):
                classes[n] = m.group(2)
        elif s.startswith(("classDef ", "%%")):
            continue
        else:
            raise AssertionError(f"unexpected mermaid line: {line!r}")
    assert {s for s, *_ in edges} | {d for _, d, *_ in edges} <= set(nodes)
    return {"nodes": nodes, "edges": edges, "classes": classes}


DOT_STRING = r'"((?:[^"\\]|\\.)*)"'


def _undot(text: str) -> str:
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), text)


def parse_dot(text: str) -> dict:
    assert text.startswith("digraph codeimpact {\n") and text.rstrip().endswith("}")
    nodes, edges, group = {}, [], ""
    for line in text.splitlines()[1:-1]:
        s = line.strip()
        if m := re.fullmatch(r"label=" + DOT_STRING + r"; style=.*", s):
            group = _undot(m.group(1))
        elif s == "}":
            group = ""
        elif m := re.fullmatch(r"(n\d+) \[label=" + DOT_STRING + r", (.*)\];", s):
            nodes[m.group(1)] = (_undot(m.group(2)).split("\n"), group, m.group(3))
        elif m := re.fullmatch(r"(n\d+) -> (n\d+)(?: \[(.*)\])?;", s):
            attrs = m.group(3) or ""
            label = re.search(r"label=" + DOT_STRING, attrs)
            edges.append(
                (m.group(1), m.group(2), _undot(label.group(1)) if label else "", "dashed" in attrs)
            )
    return {"nodes": nodes, "edges": edges}


def by_label(nodes: dict) -> dict[str, str]:
    """First label line ("kind qualified.name") -> node id."""
    return {v[0][0]: k for k, v in nodes.items()}


# ---------------------------------------------------------------------- impact
@pytest.mark.parametrize("direction", ["upstream", "downstream"])
def test_impact_mermaid_draws_every_entry_and_its_edge(repo, direction):
    target = "helper" if direction == "upstream" else "pkg.app.twice"
    data = json.loads(cli(repo, "impact", target, "--direction", direction, "--json"))
    d = parse_mermaid(cli(repo, "impact", target, "--direction", direction, "--format", "mermaid"))
    ids = by_label(d["nodes"])
    t = data["target"]
    tid = ids[f"{t['kind']} {t['qualified_name']}"]
    assert d["classes"][tid] == "ci_target"
    assert d["nodes"][tid][1] == "target"
    assert d["nodes"][tid][0][1] == f"{t['file']}:{t['line']}"
    uid_to_id = {t["uid"]: tid}
    entries = [e for g in data["groups"] for e in g["entries"]]
    assert entries, "the fixture must give this impact some entries"
    for g in data["groups"]:
        for e in g["entries"]:
            nid = ids[f"{e['kind']} {e['qualified_name']}"]
            uid_to_id[e["uid"]] = nid
            assert d["nodes"][nid][1] == f"d={g['depth']} {g['label']} ({g['count']})"
    for e in entries:
        label = f"{e['relation']} {e['confidence']:.2f}"
        a, b = uid_to_id[e["uid"]], uid_to_id[e["path"][1]]
        edge = (a, b, label, False) if direction == "upstream" else (b, a, label, False)
        assert edge in d["edges"], (e["uid"], edge)
    solid = [x for x in d["edges"] if not x[3]]
    assert len(solid) == len(entries)


def test_impact_shows_the_tests_and_what_limit_left_out(repo):
    data = json.loads(cli(repo, "impact", "helper", "--limit", "1", "--json"))
    d = parse_mermaid(cli(repo, "impact", "helper", "--limit", "1", "--format", "mermaid"))
    ids = by_label(d["nodes"])
    d1 = data["groups"][0]
    assert d1["count"] > 1 and len(d1["entries"]) == 1
    more = [n for n, (lines, _) in d["nodes"].items() if lines[0].startswith("... and")]
    assert [d["nodes"][n][0][0] for n in more][0] == f"... and {d1['count'] - 1} more"
    test = ids["function test_app.test_main"]
    assert d["classes"][test] == "ci_test"
    hit = next(t for t in data["tests"] if t["uid"] == "tests/test_app.py::test_main")
    assert (test, ids["function pkg.core.helper"], f"test reaches d={hit['depth']}", True) in d[
        "edges"
    ]


def test_impact_dot_has_the_same_graph(repo):
    m = parse_mermaid(cli(repo, "impact", "helper", "--format", "mermaid"))
    d = parse_dot(cli(repo, "impact", "helper", "--format", "dot"))
    assert {k: v[:2] for k, v in d["nodes"].items()} == m["nodes"]
    assert d["edges"] == m["edges"]
    target = by_label(d["nodes"])["function pkg.core.helper"]
    assert "penwidth=3" in d["nodes"][target][2]


# ---------------------------------------------------------------------- trace, context
def test_trace_draws_the_path_hop_by_hop(repo):
    data = json.loads(cli(repo, "trace", "twice", "helper", "--json"))
    assert data["found"] and data["length"] == 2
    for fmt, parse in (("mermaid", parse_mermaid), ("dot", parse_dot)):
        d = parse(cli(repo, "trace", "twice", "helper", "--format", fmt))
        ids = by_label(d["nodes"])
        steps = [ids[f"{s['kind']} {s['qualified_name']}"] for s in data["steps"]]
        for k, nid in enumerate(steps):
            assert d["nodes"][nid][0][-1] == f"d={k}"
        expected = [
            (a, b, f"{s['relation']} {s['confidence']:.2f}", False)
            for a, b, s in zip(steps, steps[1:], data["steps"])
        ]
        assert d["edges"] == expected
        if fmt == "mermaid":
            assert d["classes"][steps[0]] == d["classes"][steps[-1]] == "ci_target"
            assert d["classes"][steps[1]] == "ci_node"


def test_no_trace_path_draws_both_ends_and_no_edge(repo):
    data = json.loads(cli(repo, "trace", "Base.run", "helper", "--json"))
    assert not data["found"]
    d = parse_mermaid(cli(repo, "trace", "Base.run", "helper", "--format", "mermaid"))
    assert len(d["nodes"]) == 2 and d["edges"] == []
    assert "no dependency path" in cli(repo, "trace", "Base.run", "helper", "--format", "dot")


def test_context_draws_container_members_callers_callees_and_bases(repo):
    data = json.loads(cli(repo, "context", "Engine", "--json"))
    for fmt, parse in (("mermaid", parse_mermaid), ("dot", parse_dot)):
        d = parse(cli(repo, "context", "Engine", "--format", fmt))
        ids = by_label(d["nodes"])
        me = ids["class pkg.core.Engine"]
        edges = {(a, b, label) for a, b, label, _ in d["edges"]}
        c = data["container"]
        assert (ids[f"{c['kind']} {c['qualified_name']}"], me, "CONTAINS") in edges
        for m in data["members"]:
            assert (me, ids[f"{m['kind']} {m['qualified_name']}"], "CONTAINS") in edges
        for title, inbound in (("callers", True), ("bases", False), ("callees", False)):
            for n in data[title]:
                other = ids[f"{n['kind']} {n['qualified_name']}"]
                label = f"{n['relation']} {n['confidence']:.2f}"
                assert ((other, me, label) if inbound else (me, other, label)) in edges
                assert d["nodes"][other][1] == title
        assert data["callers"] and data["bases"] and data["members"]


# ---------------------------------------------------------------------- bad input
def test_format_and_json_together_is_one_line_error(repo):
    err = cli(repo, "impact", "helper", "--format", "dot", "--json", code=2)
    assert err == "graph: choose one of --json and --format mermaid|dot\n"
    err = cli(repo, "context", "nosuch", "--format", "mermaid", code=4)
    assert err.count("\n") == 1 and "no symbol matches 'nosuch'" in err
    err = cli(repo, "trace", "a", "b", "--format", "svg", code=2)
    assert "'svg' is not one of" in err


# ---------------------------------------------------------------------- escaping, Graphviz
HOSTILE = Diagram(
    title='say "hi" <now> #1 \\ back',
    nodes=(
        Node("a.py::f", ('function f"<x>"&y', "a.py:1"), "target", 'grp "1"'),
        Node("a.py::g#2", ("function g#2 #lt;", "a\\b.py:3"), "node", ""),
    ),
    edges=(Edge("a.py::g#2", "a.py::f", 'CALLS "0.50"'),),
)


def test_labels_are_escaped_for_each_syntax():
    m = parse_mermaid(to_mermaid(HOSTILE))
    assert m["nodes"]["n0"] == (['function f"<x>"&y', "a.py:1"], 'grp "1"')
    assert m["nodes"]["n1"] == (["function g#2 #lt;", "a\\b.py:3"], "")
    assert m["edges"] == [("n1", "n0", 'CALLS "0.50"', False)]
    d = parse_dot(to_dot(HOSTILE))
    assert d["nodes"]["n0"][:2] == (['function f"<x>"&y', "a.py:1"], 'grp "1"')
    assert d["nodes"]["n1"][0] == ["function g#2 #lt;", "a\\b.py:3"]
    assert d["edges"] == [("n1", "n0", 'CALLS "0.50"', False)]


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz (dot) is not installed")
def test_graphviz_renders_every_diagram(repo):
    outputs = [
        cli(repo, "impact", "helper", "--include-tests", "--format", "dot"),
        cli(repo, "impact", "Engine", "--direction", "downstream", "--format", "dot"),
        cli(repo, "trace", "twice", "helper", "--format", "dot"),
        cli(repo, "context", "Engine", "--format", "dot"),
        to_dot(HOSTILE),
    ]
    for text in outputs:
        res = subprocess.run(
            ["dot", "-Tsvg"], input=text, capture_output=True, text=True, timeout=60
        )
        assert res.returncode == 0 and not res.stderr, res.stderr
        parsed = parse_dot(text)
        assert res.stdout.count('class="node"') == len(parsed["nodes"])
        assert res.stdout.count('class="edge"') == len(parsed["edges"])
        for lines, *_ in parsed["nodes"].values():
            escaped = lines[0].replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            assert escaped.replace('"', "&quot;") in res.stdout or escaped in res.stdout
