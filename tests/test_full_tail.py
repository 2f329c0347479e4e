"""A full build hashes its generation's final files for the manifest while the database
writer commits (indexer/full_run.py _Tail): `publish` is handed their checksums, the
manifest says what hashing the files says."""

from __future__ import annotations

import json

from codeimpact.graph import layout, manifest
from codeimpact.indexer.build import analyze
from codeimpact.indexer.config import IndexConfig, RunOptions

FILES = {
    f"pkg/m{i}.py": f"def f{i}():\n    return {i}\n\n\ndef g{i}():\n    f{i}()\n" for i in range(8)
}


def test_a_full_builds_final_files_are_hashed_before_publish(make_repo, monkeypatch):
    repo = make_repo(FILES)
    handed: list[dict] = []
    publish = layout.publish

    def publishing(*args, **kwargs):
        handed.append(dict(kwargs.get("checked") or {}))
        return publish(*args, **kwargs)

    monkeypatch.setattr(layout, "publish", publishing)
    # (two processes: the side files are written by a forked child, as a large build's are)
    assert analyze(repo, IndexConfig(), RunOptions(workers=2)).mode == "full"
    live = layout.read_current(repo / ".codeimpact")
    files = json.loads((live.path / manifest.MANIFEST_NAME).read_bytes())["files"]
    checked = handed[0]
    # every file of the generation but the database (its writer's until its answer), the
    # manifest and the Meta's files (graph/meta_files.py: the writer writes them)
    assert any(n.startswith("state-") for n in checked), checked
    assert any(n.startswith("facts-") and n.endswith(".index") for n in checked), checked
    assert layout.DB_FILENAME not in checked and manifest.MANIFEST_NAME not in checked
    for name, (size, xxh3) in checked.items():
        assert files[f"{live.path.name}/{name}"][:2] == [size, xxh3], name
    idx = repo / ".codeimpact"
    for name, (size, xxh3, _grows, *parts) in files.items():
        start = parts[0][-1][0] if parts else 0
        assert manifest.file_digest(idx / name, size, start) == xxh3, name
    found = manifest.load(live.path, live.manifest, live.number)
    assert manifest.verify(live.path, found, trust_stamp=False).damage == []
