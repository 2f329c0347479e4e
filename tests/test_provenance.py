"""Provenance records and drift on real repositories and real indexes."""

from __future__ import annotations

import hashlib
import json
import textwrap

import pytest
from click.testing import CliRunner

from codeimpact.cli import main, to_jsonable
from codeimpact.graph.errors import BadInput
from codeimpact.indexer.lang import language_for
from codeimpact.query.index import Index
from codeimpact.query.provenance import drift, provenance
from conftest import git, write_files

LIB = """
import os


def alpha():
    return 1


def beta():
    return 2


class Box:
    def open(self):
        return alpha()
"""


@pytest.fixture
def repo(make_repo, index_repo):
    root = make_repo({"pkg/__init__.py": "", "pkg/lib.py": LIB, "README.md": "hi\n"})
    index_repo(root)
    return root


def record_of(repo, *paths) -> dict:
    with Index.open(repo) as index:
        return json.loads(json.dumps(to_jsonable(provenance(index, list(paths)))))


def drift_of(repo, record) -> object:
    with Index.open(repo) as index:
        return drift(repo, record, index)


def deltas(report, path="pkg/lib.py") -> dict[str, set[str]]:
    (p,) = [p for p in report.paths if p.path == path]
    return {k: {d.uid for d in getattr(p, k)} for k in ("added", "modified", "deleted")}


def test_record_holds_head_dirty_set_and_indexed_symbols(repo):
    write_files(repo, {"notes.txt": "todo\n", "README.md": "changed\n"})
    rec = record_of(repo, "pkg/lib.py")
    assert rec["schema"] == "codeimpact.provenance/1"
    assert rec["head"] == git(repo, "rev-parse", "HEAD").strip()
    assert rec["indexed_commit"] == rec["head"]
    # Every changed and untracked path counts, indexable or not.
    assert sorted(rec["dirty"]) == ["README.md", "notes.txt"]
    assert rec["dirty_digest"]
    (p,) = rec["paths"]
    assert p["sha256"] == hashlib.sha256((repo / "pkg/lib.py").read_bytes()).hexdigest()
    assert p["exists"] and p["indexed"] and p["symbols_from"] == "index"
    got = {(s["uid"], s["kind"], s["start_line"], s["end_line"]) for s in p["symbols"]}
    # The module's last line follows the extractor's convention (not ours to fix).
    module_end = language_for("m.py").extract(textwrap.dedent(LIB).lstrip().encode()).symbols[0]
    module_end = module_end.end_line
    assert got == {
        ("pkg/lib.py::", "module", 1, module_end),
        ("pkg/lib.py::alpha", "function", 4, 5),
        ("pkg/lib.py::beta", "function", 8, 9),
        ("pkg/lib.py::Box", "class", 12, 14),
        ("pkg/lib.py::Box.open", "method", 13, 14),
    }
    assert all(len(s["sha256"]) == 64 for s in p["symbols"])


def test_no_drift_when_nothing_referenced_changed(repo):
    rec = record_of(repo, "pkg/lib.py")
    write_files(repo, {"README.md": "unrelated\n"})
    rep = drift_of(repo, rec)
    assert not rep.drifted and not rep.head.moved
    assert rep.dirty_digest_changed
    assert [p.status for p in rep.paths] == ["unchanged"]


def test_modified_added_deleted_symbols(repo):
    rec = record_of(repo, "pkg/lib.py")
    text = LIB.replace("return 1", "return 10").replace("def beta", "def gamma")
    write_files(repo, {"pkg/lib.py": text})
    rep = drift_of(repo, rec)
    assert rep.drifted
    assert deltas(rep) == {
        "added": {"pkg/lib.py::gamma"},
        "modified": {"pkg/lib.py::alpha"},
        "deleted": {"pkg/lib.py::beta"},
    }
    assert rep.summary == {"paths": 1, "drifted": 1, "added": 1, "modified": 1, "deleted": 1}


def test_a_symbol_that_only_moved_is_not_modified(repo):
    rec = record_of(repo, "pkg/lib.py")
    write_files(repo, {"pkg/lib.py": LIB.replace("import os\n", "import os\nimport sys\n\n\n")})
    rep = drift_of(repo, rec)
    assert rep.drifted  # the file changed ...
    # ... in its module-level lines only: the functions below moved down, unchanged.
    assert deltas(rep) == {"added": set(), "modified": {"pkg/lib.py::"}, "deleted": set()}
    (p,) = rep.paths
    assert p.status == "modified"


def test_method_edit_modifies_the_method_not_its_class(repo):
    rec = record_of(repo, "pkg/lib.py")
    write_files(repo, {"pkg/lib.py": LIB.replace("return alpha()", "return alpha() + 1")})
    assert deltas(drift_of(repo, rec))["modified"] == {"pkg/lib.py::Box.open"}


def test_head_moved_without_referenced_drift(repo):
    rec = record_of(repo, "pkg/lib.py")
    write_files(repo, {"README.md": "v2\n"})
    git(repo, "commit", "-qam", "docs")
    rep = drift_of(repo, rec)
    assert rep.head.moved and rep.head.recorded == rec["head"]
    assert rep.head.now == git(repo, "rev-parse", "HEAD").strip()
    assert not rep.drifted


def test_deleted_and_created_paths(repo):
    rec = record_of(repo, "pkg/lib.py", "pkg/new.py")
    assert [(p["path"], p["exists"]) for p in rec["paths"]] == [
        ("pkg/lib.py", True),
        ("pkg/new.py", False),
    ]
    (repo / "pkg/lib.py").unlink()
    write_files(repo, {"pkg/new.py": "def n():\n    return 1\n"})
    rep = drift_of(repo, rec)
    assert {p.path: p.status for p in rep.paths} == {
        "pkg/lib.py": "deleted",
        "pkg/new.py": "created",
    }
    assert len(deltas(rep)["deleted"]) == 5
    assert deltas(rep, "pkg/new.py")["added"] == {"pkg/new.py::", "pkg/new.py::n"}


def test_unindexed_content_is_extracted_and_says_so(repo):
    write_files(repo, {"pkg/lib.py": LIB + "\n\ndef delta():\n    return 4\n"})
    rec = record_of(repo, "pkg/lib.py")
    (p,) = rec["paths"]
    assert p["symbols_from"] == "extracted"
    assert "pkg/lib.py::delta" in {s["uid"] for s in p["symbols"]}


def test_drift_works_without_an_index(repo, make_repo):
    rec = record_of(repo, "pkg/lib.py")
    (repo / ".codeimpact").rename(repo.parent / "moved-index")
    write_files(repo, {"pkg/lib.py": LIB.replace("return 2", "return 3")})
    res = CliRunner().invoke(main, ["drift", "--repo", str(repo), "--json", _write(repo, rec)])
    assert res.exit_code == 1, res.output
    data = json.loads(res.output)
    assert data["schema"] == "codeimpact.drift/1" and data["freshness"]["fresh"] is None
    assert data["paths"][0]["modified"][0]["uid"] == "pkg/lib.py::beta"


def _write(repo, record) -> str:
    path = repo.parent / f"record-{abs(hash(json.dumps(record)))}.json"
    path.write_text(json.dumps(record))
    return str(path)


# ------------------------------------------------------------------------------ bad input


def test_paths_outside_the_repository_are_refused(repo, tmp_path):
    with Index.open(repo) as index:
        for bad in ("../outside.py", "/etc/passwd", str(tmp_path / "x.py")):
            with pytest.raises(BadInput, match="outside the repository"):
                provenance(index, [bad])
    rec = record_of(repo, "pkg/lib.py")
    rec["paths"][0]["path"] = "../../etc/passwd"
    with pytest.raises(BadInput, match="outside the repository"):
        drift_of(repo, rec)


def test_cli_exit_codes_and_errors(repo):
    cli = CliRunner()
    out = cli.invoke(main, ["provenance", "--repo", str(repo), "--json", "pkg/lib.py"])
    assert out.exit_code == 0
    data = json.loads(out.output)
    assert list(data)[:1] == ["schema"] and "freshness" in data
    record = _write(repo, data)
    assert cli.invoke(main, ["drift", "--repo", str(repo), record]).exit_code == 0
    write_files(repo, {"pkg/lib.py": LIB.replace("return 2", "return 3")})
    res = cli.invoke(main, ["drift", "--repo", str(repo), record])
    assert res.exit_code == 1 and "pkg/lib.py::beta" in res.output
    bad = repo.parent / "bad.json"
    for content, message in (
        ("{not json", "is not JSON"),
        ('{"schema": "other/1", "paths": []}', "not a provenance record"),
        ('{"schema": "codeimpact.provenance/1", "paths": [{"nope": 1}]}', "without a `path`"),
    ):
        bad.write_text(content)
        res = cli.invoke(main, ["drift", "--repo", str(repo), str(bad)])
        assert res.exit_code == 2 and message in res.output
    res = cli.invoke(main, ["provenance", "--repo", str(repo), "../x.py"])
    assert res.exit_code == 2 and "outside the repository" in res.output
