"""Incremental == full when one run changes files of two resolver groups (Python and
JavaScript) and deletes one: each group's names are planned apart, its users found among
its own files, and a file gone takes the group of the language it had."""

from __future__ import annotations

from test_incremental import assert_same_as_full, make, run

from codeimpact.query.index import Index

FILES = {
    "pkg/__init__.py": "",
    "pkg/core.py": "def helper(x):\n    return x + 1\n",
    "pkg/app.py": "from pkg.core import helper\n\n\ndef main():\n    return helper(2)\n",
    "web/util.js": "export function fmt(v) {\n  return String(v);\n}\n",
    "web/extra.js": "export function shout(v) {\n  return v + '!';\n}\n",
    "web/app.js": "import { fmt } from './util.js';\nimport { shout } from './extra.js';\n\n"
    "export function show(v) {\n  return shout(fmt(v));\n}\n",
}
# files no edit touches (a run that changes most files takes the full path)
FILES |= {f"pkg/m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(12)}
FILES |= {f"web/m{i}.js": f"export function g{i}() {{\n  return {i};\n}}\n" for i in range(12)}


def _callees(repo, uid: str) -> set[str]:
    with Index.open(repo) as index:
        rows = index.cypher("MATCH (a:Symbol)-[:CALLS]->(b:Symbol) WHERE a.uid = $u "
                            "RETURN b.uid", {"u": uid}).rows  # fmt: skip
    return {r[0] for r in rows}


def test_an_edit_of_both_groups_with_a_file_gone_matches_a_full_build(tmp_path):
    repo = make(tmp_path, FILES)
    assert _callees(repo, "web/app.js::show") == {"web/util.js::fmt", "web/extra.js::shout"}
    # a Python callee renamed, a JavaScript one renamed, another JavaScript file gone
    (repo / "pkg/core.py").write_text("def helper2(x):\n    return x + 1\n")
    (repo / "web/util.js").write_text("export function fmt2(v) {\n  return String(v);\n}\n")
    (repo / "web/extra.js").unlink()
    report = run(repo)
    assert report.mode == "incremental", report.reason
    assert _callees(repo, "web/app.js::show") == set()
    assert _callees(repo, "pkg/app.py::main") == set()
    assert_same_as_full(repo, tmp_path)
    # and back: the callers find them again
    (repo / "pkg/core.py").write_text(FILES["pkg/core.py"])
    (repo / "web/util.js").write_text(FILES["web/util.js"])
    report = run(repo)
    assert report.mode == "incremental", report.reason
    assert _callees(repo, "web/app.js::show") == {"web/util.js::fmt"}
    assert _callees(repo, "pkg/app.py::main") == {"pkg/core.py::helper"}
    assert_same_as_full(repo, tmp_path)
