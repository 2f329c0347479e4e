"""An edit's delta (indexer/incremental.py `compute_delta`) looks up in the live id table
(indexer/id_table.py: a hash and a search per uid) only the uids that may be new, not every
external target of the graph (Django: ~1,100 lookups, ~12 ms per edit)."""

from __future__ import annotations

from test_cutoff import _edit
from test_incremental import BASE, assert_same_as_full, run

from codeimpact.indexer.id_table import IdTable
from conftest import write_files


def test_an_edit_looks_up_only_new_external_targets_in_the_id_table(tmp_path, monkeypatch):
    # the live generation's external targets are nodes already: an edit that adds none
    # looks none of them up in the id table (indexer/incremental.py `compute_delta`)
    repo = tmp_path / "repo"
    calls = "".join(f"    os.path.f{i}(1)\n" for i in range(40))
    write_files(repo, {**BASE, "pkg/ext.py": f"import os\n\n\ndef go():\n{calls}"})
    run(repo)
    found: list[str] = []
    real = IdTable._find

    def spy(self, uid):
        found.append(uid)
        return real(self, uid)

    monkeypatch.setattr(IdTable, "_find", spy)
    _edit(repo, "pkg/core.py", "    return x + 1\n", "    return x + 2  # more\n")
    assert run(repo).mode == "incremental"
    looked_up = [u for u in found if "os.path.f" in u]
    assert looked_up == [], looked_up
    monkeypatch.undo()
    assert_same_as_full(repo, tmp_path)
