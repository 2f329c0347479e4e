"""Incremental indexing: after any edit, the maintained graph equals a full rebuild."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codeimpact.graph import csr
from codeimpact.graph.schema import REL_TABLES
from codeimpact.indexer.build import analyze
from codeimpact.indexer.config import IndexConfig, RunOptions
from codeimpact.query.index import Index
from conftest import write_files


def run(repo: Path, force: bool = False):
    return analyze(repo, IndexConfig(), RunOptions(workers=1, force=force))


def dump(repo: Path) -> dict:
    """Everything the index says, ids left out (they are internal), CSR included by uid."""
    out: dict = {}
    with Index.open(repo) as index:
        out["files"] = sorted(
            map(tuple, index.cypher(
                "MATCH (f:File) RETURN f.path, f.language, f.content_hash, f.size, f.lines, "
                "f.is_test, f.status").rows)
        )  # fmt: skip
        rows = index.cypher(
            "MATCH (s:Symbol) RETURN s.uid, s.kind, s.name, s.qualified_name, s.file, "
            "s.start_line, s.end_line, s.start_byte, s.end_byte, s.signature, s.exported, "
            "s.is_test, s.language, s.id"
        ).rows
        out["symbols"] = sorted(tuple(r[:-1]) for r in rows)
        uid_of = {r[-1]: r[0] for r in rows}
        assert len(uid_of) == len(rows), "symbol ids must be unique"
        for rel, (_, _, props) in REL_TABLES.items():
            key = "a.path" if rel == "DEFINES" else "a.uid"
            extra = "".join(f", r.{p}" for p, _ in props)
            res = index.cypher(f"MATCH (a)-[r:{rel}]->(b) RETURN {key}, b.uid{extra}")
            out[rel] = sorted(map(tuple, res.rows))
        snap = csr.load_snapshot(index.reader.gen.path, index.generation)
        fwd = snap.forward
        indptr = np.asarray(fwd.indptr)
        edges = set()
        for src in range(snap.n_nodes):
            for j in range(indptr[src], indptr[src + 1]):
                dst = int(fwd.indices[j])
                edges.add((uid_of[src], uid_of[dst], int(fwd.edge_type[j]),
                           round(float(fwd.confidence[j]), 4)))  # fmt: skip
        out["csr"] = sorted(edges)
        kinds = {uid_of[i]: int(snap.node_kind[i]) for i in uid_of}
        out["csr_kinds"] = sorted(kinds.items())
    return out


def assert_same_as_full(repo: Path, tmp_path: Path) -> None:
    fresh = tmp_path / f"fresh-{len(list(tmp_path.iterdir()))}"
    shutil.copytree(repo, fresh, ignore=shutil.ignore_patterns(".codeimpact", ".git"))
    run(fresh, force=True)
    a, b = dump(repo), dump(fresh)
    for key in a:
        assert a[key] == b[key], f"incremental != full in {key}"


BASE = {
    "pkg/__init__.py": "from .core import helper\n",
    "pkg/core.py": """
        def helper(x):
            return x + 1

        class Base:
            def run(self):
                return self.step()

            def step(self):
                return helper(1)
        """,
    "pkg/app.py": """
        from pkg.core import Base, helper
        from pkg import util

        class App(Base):
            def step(self):
                return util.fmt(helper(2))

        def main():
            App().run()
        """,
    "pkg/util.py": """
        def fmt(v):
            return str(v)

        def apply(fn):
            return fn(1)
        """,
    "pkg/flow.py": """
        from pkg.util import apply
        from pkg.core import helper

        def go():
            return apply(helper)
        """,
}


def make(tmp_path: Path, files=BASE) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    write_files(repo, files)
    run(repo)
    return repo


def test_no_change_does_no_work(tmp_path):
    repo = make(tmp_path)
    before = dump(repo)
    report = run(repo)
    assert report.mode == "unchanged" and report.parsed == 0
    assert dump(repo) == before


def test_editing_a_callee_keeps_edges_from_unchanged_callers(tmp_path):
    """The classic bug: re-extracting a callee's file must not drop edges into it."""
    repo = make(tmp_path)
    (repo / "pkg/core.py").write_text(
        "# a new first line moves every definition\n" + (repo / "pkg/core.py").read_text()
    )
    report = run(repo)
    assert report.mode == "incremental" and report.parsed == 1
    # core.py itself and its users: app.py, flow.py, pkg/__init__.py (re-exports helper);
    # not util.py
    assert report.resolved == 4
    with Index.open(repo) as index:
        rows = index.cypher(
            "MATCH (a:Symbol)-[:CALLS]->(b:Symbol {uid: $u}) RETURN a.uid",
            {"u": "pkg/core.py::helper"},
        ).rows
    # util.apply calls what flow.go passes it: a value-flow edge owned by flow.py
    assert {r[0] for r in rows} == {
        "pkg/core.py::Base.step",
        "pkg/app.py::App.step",
        "pkg/util.py::apply",
    }
    assert_same_as_full(repo, tmp_path)


def test_each_edit_kind(tmp_path):
    repo = make(tmp_path)
    edits = [
        # rename a function: its callers lose the edge (and count an unresolved call)
        ("pkg/util.py", "def fmt2(v):\n    return str(v)\n"),
        # add it back under the old name in another file, and import it from there
        ("pkg/extra.py", "def fmt(v):\n    return repr(v)\n"),
        ("pkg/app.py", textwrap.dedent(BASE["pkg/app.py"]).replace(
            "from pkg import util", "from pkg import extra as util")),
        # make a file unparsable, then fix it
        ("pkg/core.py", "def helper(x:\n    return\n"),
        ("pkg/core.py", textwrap.dedent(BASE["pkg/core.py"])),
        # a new package marker changes module names below it
        ("pkg/sub/__init__.py", ""),
        ("pkg/sub/leaf.py", "from pkg.core import helper\n\ndef leaf():\n    return helper(3)\n"),
    ]  # fmt: skip
    for path, text in edits:
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
        report = run(repo)
        assert report.mode == "incremental", report.reason
        assert_same_as_full(repo, tmp_path)
    # delete a file, then rename one
    (repo / "pkg/extra.py").unlink()
    assert run(repo).mode == "incremental"
    assert_same_as_full(repo, tmp_path)
    (repo / "pkg/util.py").rename(repo / "pkg/utils.py")
    report = run(repo)
    assert report.changes["renamed"] == 1
    assert_same_as_full(repo, tmp_path)


def test_leaf_edit_re_resolves_only_its_users(tmp_path):
    repo = make(tmp_path)
    (repo / "pkg/util.py").write_text("def fmt(v):\n    return repr(v)\n")
    report = run(repo)
    assert report.mode == "incremental"
    assert report.resolved == 3  # util.py, app.py (`util`, `fmt`) and flow.py (`apply`)
    assert_same_as_full(repo, tmp_path)


def test_large_change_takes_the_full_path(tmp_path):
    repo = make(tmp_path)
    for path in ("pkg/core.py", "pkg/app.py"):
        (repo / path).write_text((repo / path).read_text() + "\n# touched\n")
    report = run(repo)
    assert report.mode == "full" and "files changed" in report.reason
    assert_same_as_full(repo, tmp_path)


# ---------------------------------------------------------------- property test
MODULES = ["a", "b", "c", "d"]
FUNCS = ["f", "g", "h"]


@st.composite
def module_source(draw, name: str):
    """A module of pkg: imports, functions calling each other, a class with a base."""
    lines = ["from pkg.flow import apply"]
    imported = draw(
        st.lists(st.sampled_from([m for m in MODULES if m != name]), max_size=2, unique=True)
    )
    style = draw(st.sampled_from(["from", "import"]))
    for m in imported:
        if style == "from":
            lines.append(f"from pkg.{m} import {', '.join(FUNCS)}, K as K_{m}")
        else:
            lines.append(f"import pkg.{m} as {m}_mod")
    funcs = draw(st.lists(st.sampled_from(FUNCS), min_size=1, max_size=3, unique=True))
    for fn in funcs:
        lines.append(f"def {fn}(x=None):")
        body = []
        for _ in range(draw(st.integers(0, 3))):
            target = draw(st.sampled_from(FUNCS))
            if imported and draw(st.booleans()):
                m = draw(st.sampled_from(imported))
                body.append(f"    {target}(x)" if style == "from" else f"    {m}_mod.{target}(x)")
            elif draw(st.booleans()):
                # value flow: apply() calls what it is given, an edge owned by this file
                body.append(f"    apply({target})")
            else:
                body.append(f"    {target}(x)")
        lines.extend(body or ["    return x"])
    base = f"K_{imported[0]}" if imported and style == "from" and draw(st.booleans()) else "object"
    lines.append(f"class K({base}):")
    lines.append("    def m(self):")
    lines.append(f"        return self.n() or {funcs[0]}()")
    lines.append("    def n(self):")
    lines.append("        return 1")
    return "\n".join(lines) + "\n"


@st.composite
def project(draw):
    names = draw(st.lists(st.sampled_from(MODULES), min_size=2, max_size=4, unique=True))
    files = {"pkg/__init__.py": "", "pkg/flow.py": "def apply(fn, x=None):\n    return fn(x)\n"}
    for n in names:
        files[f"pkg/{n}.py"] = draw(module_source(n))
    return files


@st.composite
def edit(draw):
    kind = draw(st.sampled_from(["rewrite", "delete", "add", "break", "rename", "touch"]))
    name = draw(st.sampled_from(MODULES))
    return kind, name, draw(module_source(name))


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(files=project(), edits=st.lists(edit(), min_size=1, max_size=4))
def test_random_edit_sequences_match_full_rebuild(tmp_path_factory, files, edits):
    tmp = tmp_path_factory.mktemp("prop")
    repo = tmp / "repo"
    repo.mkdir()
    write_files(repo, files)
    run(repo)
    for kind, name, source in edits:
        path = repo / "pkg" / f"{name}.py"
        if kind == "rewrite" or kind == "add":
            path.write_text(source)
        elif kind == "delete" and path.exists():
            path.unlink()
        elif kind == "break" and path.exists():
            path.write_text(path.read_text() + "\ndef broken(:\n")
        elif kind == "rename" and path.exists():
            path.rename(path.with_name(f"{name}_moved.py"))
        elif kind == "touch" and path.exists():
            path.write_text(path.read_text().replace("return x", "return (x)"))
        run(repo)
        assert_same_as_full(repo, tmp)


def test_a_parse_over_the_time_limit_is_recorded_and_the_rest_indexed(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    # big enough to go to a worker process and to take far longer than 50 ms to extract
    big = "".join(f"def f{i}(x):\n    return g(x, {i})\n" for i in range(20000))
    write_files(repo, {"big.py": big, "small.py": "def g(x, i):\n    return x\n"})
    report = analyze(repo, IndexConfig(parse_timeout_ms=50), RunOptions(workers=1))
    assert {"code": "timeout", "path": "big.py", "detail": "parse took over 0.05s"} in (
        report.incomplete
    )
    with Index.open(repo) as index:
        rows = index.cypher("MATCH (f:File) RETURN f.path, f.status ORDER BY f.path").rows
        assert rows == [["big.py", "skipped:timeout"], ["small.py", "ok"]]
        assert index.search("g")[0].uid == "small.py::g"
