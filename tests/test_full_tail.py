"""A full build hashes its generation's final files for the manifest while the database
writer commits (indexer/full_run.py _Tail): `publish` is handed their checksums, the
manifest says what hashing the files says."""

from __future__ import annotations

import json

import pytest

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


@pytest.mark.parametrize("collector", [True, False], ids=["collector on", "collector off"])
def test_the_objects_a_full_build_made_are_collected_before_its_writer_answers(
    tmp_path, monkeypatch, collector
):
    # the run pauses the collector: every object it made (the modules it imported among
    # them) stays young, and the first allocation after the run walked them all (9-13 ms
    # of CPU on Django's serial end). The tail's thread collects beside the writer instead;
    # not for a caller whose collector is off (the console's analyze: it never collects)
    import gc

    from codeimpact.indexer.run import PARALLEL_RESOLVE_MIN

    files = {f"pkg/m{i}.py": f"from pkg.m0 import f0\n\n\ndef f{i}():\n    return f0() + {i}\n"
             for i in range(PARALLEL_RESOLVE_MIN + 10)}  # fmt: skip
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    young_at_publish: list[int] = []
    publish = layout.publish

    def publishing(*args, **kwargs):
        young_at_publish.append(len(gc.get_objects(0)) + len(gc.get_objects(1)))
        return publish(*args, **kwargs)

    monkeypatch.setattr(layout, "publish", publishing)
    gc.collect()
    if not collector:
        gc.disable()
    try:
        report = analyze(tmp_path, IndexConfig(), RunOptions(workers=2, memory_budget_mb=1 << 20))
    finally:
        gc.enable()
    assert report.mode == "full" and report.symbols >= len(files)
    # (left young when collected: what the main thread made after the tail's collection)
    assert len(young_at_publish) == 1
    assert (young_at_publish[0] < 200) == collector, young_at_publish
