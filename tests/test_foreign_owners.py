"""The owners of edges whose source is another file's symbol (GraphState.foreign: a decorator's
wrapper calling the function it decorates, made by the decorated function's file) after each
edit are a full build's: compute_delta changes only the keys the touched files' outputs held or
hold."""

from __future__ import annotations

import shutil

from test_incremental import assert_same_as_full, run

from codeimpact.graph import layout
from codeimpact.indexer.state import load_graph_state
from conftest import write_files

DEC = "def deco(fn):\n    def wrapper(*a):\n        return fn(*a)\n\n    return wrapper\n"
USE = "from dec import deco\n\n\n@deco\ndef target():\n    return 1\n"


def _foreign(repo):
    return load_graph_state(layout.read_current(layout.index_dir(repo)).path).foreign


def test_the_foreign_owners_after_each_edit_are_a_full_builds(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    other = "from dec import deco\n\n\n@deco\ndef other():\n    return 2\n"
    write_files(repo, {"dec.py": DEC, "use.py": USE, "other.py": other, "plain.py": "X = 1\n"})
    run(repo)
    assert any(k[1].startswith("dec.py::") for k in _foreign(repo)), _foreign(repo)
    edits = [
        ("use.py", USE + "\n\n@deco\ndef second():\n    return target()\n"),  # one more
        ("use.py", "from dec import deco\n\n\ndef target():\n    return 1\n"),  # none left
        ("use.py", USE),  # back
        ("plain.py", "from dec import deco\n\n\n@deco\ndef p():\n    return 3\n"),  # a new owner
        ("other.py", "Y = 2\n"),  # another owner gone
    ]
    for i, (path, text) in enumerate(edits):
        (repo / path).write_text(text)
        report = run(repo)
        assert report.mode == "incremental", report.reason
        fresh = tmp_path / f"fresh{i}"
        shutil.copytree(repo, fresh, ignore=shutil.ignore_patterns(".codeimpact"))
        run(fresh, force=True)
        assert _foreign(repo) == _foreign(fresh), (path, _foreign(repo), _foreign(fresh))
        assert_same_as_full(repo, tmp_path, with_answers=False)
    (repo / "use.py").unlink()  # a file removed
    assert run(repo).mode == "incremental"
    fresh = tmp_path / "fresh-removed"
    shutil.copytree(repo, fresh, ignore=shutil.ignore_patterns(".codeimpact"))
    run(fresh, force=True)
    assert _foreign(repo) == _foreign(fresh)


class _Unscanned(dict):
    """The live state's owners: an edit may look keys up, never go through them all."""

    def items(self):
        raise AssertionError("every foreign key scanned")

    values = items


def test_an_edit_looks_up_the_keys_of_its_files_only(tmp_path, monkeypatch):
    from codeimpact.indexer import incremental_run

    repo = tmp_path / "repo"
    repo.mkdir()
    write_files(repo, {"dec.py": DEC, "use.py": USE, "plain.py": "X = 1\n"})
    run(repo)
    real = incremental_run.load_graph_state

    def load(gen_dir):
        st = real(gen_dir)
        st.foreign = _Unscanned(st.foreign)
        return st

    monkeypatch.setattr(incremental_run, "load_graph_state", load)
    (repo / "use.py").write_text(USE + "\n\n@deco\ndef second():\n    return target()\n")
    report = run(repo)
    assert report.mode == "incremental", report.reason
    monkeypatch.undo()
    assert_same_as_full(repo, tmp_path, with_answers=False)


def test_an_edit_decodes_the_owners_of_its_keys_source_files_only(tmp_path, monkeypatch):
    """The live state's owners are read in buckets by the edge source's file (state-graph.bin
    holds each as a blob): an edit decodes those its keys name, not the others'."""
    from codeimpact.indexer import incremental_run
    from codeimpact.indexer.state import ForeignOwners

    repo = tmp_path / "repo"
    repo.mkdir()
    other = USE.replace("dec import", "dec2 import").replace("target", "t2")
    write_files(repo, {"dec.py": DEC, "use.py": USE, "dec2.py": DEC, "use2.py": other})
    run(repo)
    real, loaded = incremental_run.load_graph_state, []

    def load(gen_dir):
        loaded.append(real(gen_dir))
        return loaded[-1]

    monkeypatch.setattr(incremental_run, "load_graph_state", load)
    (repo / "use.py").write_text(USE + "\n\n@deco\ndef second():\n    return target()\n")
    report = run(repo)
    assert report.mode == "incremental", report.reason
    monkeypatch.undo()
    owners = loaded[0].foreign
    assert isinstance(owners, ForeignOwners) and set(owners._blobs) == {"dec.py", "dec2.py"}
    assert set(owners._buckets) == {"dec.py"}, owners._buckets  # dec2.py's: not decoded
    assert_same_as_full(repo, tmp_path, with_answers=False)
    assert _foreign(repo) == ForeignOwners.of(dict(_foreign(repo).items()))
