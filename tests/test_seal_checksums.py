"""A generation's manifest takes the checksum of each file the run wrote from the bytes it
wrote (graph/layout.py note_written), not by reading the file back at publish: an edit's
last step hashed ~10 MB of its own side files again on Django. The manifest must say what
hashing the files says."""

from __future__ import annotations

import fcntl
import json
import os

from codeimpact.graph import layout, manifest

FILES = {f"pkg/m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(8)}


def _hashed_at_publish(monkeypatch) -> list[str]:
    """The files `manifest.seal` hashes itself from now on."""
    seen: list[str] = []
    digest = manifest.file_digest

    def counting(path, size=None):
        seen.append(str(path))
        return digest(path, size)

    real_seal = manifest.seal

    def seal(*args, **kwargs):
        monkeypatch.setattr(manifest, "file_digest", counting)
        try:
            return real_seal(*args, **kwargs)
        finally:
            monkeypatch.setattr(manifest, "file_digest", digest)

    monkeypatch.setattr(manifest, "seal", seal)
    return seen


def _manifest_is_the_files(gen: layout.Generation) -> None:
    files = json.loads((gen.path / manifest.MANIFEST_NAME).read_bytes())["files"]
    idx = gen.path.parent
    for name, (size, xxh3, _grows) in files.items():
        assert manifest.file_digest(idx / name, size) == xxh3, name


def test_a_run_does_not_hash_again_the_files_it_wrote(make_repo, index_repo, monkeypatch):
    repo = make_repo({**FILES, "pkg/a.py": "def a():\n    return 1\n"})
    seen = _hashed_at_publish(monkeypatch)
    assert index_repo(repo).mode == "full"  # (its children's files are hashed at publish)
    _manifest_is_the_files(layout.read_current(repo / ".codeimpact"))
    for text in ("def a():\n    return 2\n\n\ndef b():\n    a()\n", "def b():\n    pass\n"):
        (repo / "pkg/a.py").write_text(text)
        seen.clear()
        assert index_repo(repo).mode == "incremental"
        gen = layout.read_current(repo / ".codeimpact")
        # (the database and its log: its writer's, a child's)
        own = [p for p in seen if p.startswith(str(gen.path)) and not p.endswith((".kz", ".wal"))]
        assert own == []
        _manifest_is_the_files(gen)


def test_a_file_replaced_after_it_was_written_is_hashed(tmp_path):
    idx = tmp_path / "idx"
    idx.mkdir()
    gen = layout.next_generation(idx)
    (gen.path / layout.DB_FILENAME).write_bytes(b"db")
    layout.atomic_write(gen.path / "a.bin", b"first")
    (gen.path / "b.bin").write_bytes(b"other")
    (gen.path / "b.bin").rename(gen.path / "a.bin")  # the noted checksum is not its
    layout.publish(idx, gen, {})
    _manifest_is_the_files(gen)


def _leveller_done(idx) -> None:
    fd = os.open(idx / "spare.lock", os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # (a leveller holds it to its end)
    finally:
        os.close(fd)


def test_the_next_run_hashes_none_of_the_live_generations_files(make_repo, index_repo, monkeypatch):
    """The spare's leveller removes the edit's old folder after publish stamped the files
    (the unlinks move the ctime of those the live generation shares with it): it stamps
    them again, so the next run (a no-op here) hashes none of them."""
    repo = make_repo({**FILES, "pkg/a.py": "def a():\n    return 1\n"})
    index_repo(repo)
    idx = repo / ".codeimpact"
    for text in ("def a():\n    return 2\n\n\ndef b():\n    a()\n", "def b():\n    pass\n"):
        (repo / "pkg/a.py").write_text(text)
        report = index_repo(repo)
        assert report.mode == "incremental" and report.forks["spare leveller"] == "started"
        _leveller_done(idx)
    seen: list[str] = []
    digest = manifest.file_digest
    monkeypatch.setattr(
        manifest, "file_digest", lambda p, s=None: seen.append(str(p)) or digest(p, s)
    )
    assert index_repo(repo).mode == "unchanged"
    assert seen == []
