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


def _hashed_at_publish(monkeypatch, spans: list | None = None) -> list[str]:
    """The files `manifest.seal` hashes itself from now on (`spans`: (file, start, end))."""
    seen: list[str] = []
    digest = manifest.file_digest

    def counting(path, size=None, start=0):
        seen.append(str(path))
        if spans is not None:
            spans.append((str(path), start, size))
        return digest(path, size, start)

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
    for name, (size, xxh3, _grows, *parts) in files.items():
        start = parts[0][-1][0] if parts else 0
        assert manifest.file_digest(idx / name, size, start) == xxh3, name
    live = layout.read_current(idx)
    found = manifest.load(live.path, live.manifest, live.number)
    assert manifest.verify(live.path, found, trust_stamp=False).damage == []


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


def test_an_edit_that_adds_facts_hashes_only_what_it_appended_to_the_pack(
    make_repo, index_repo, monkeypatch
):
    # the pack's whole prefix was hashed at each publish after an edit that added facts
    # (23.7 MB on Django, ~4-5 ms): its entry is parts now, the new bytes hashed alone
    # a pack much longer than the edits' blobs: the parts are merged (hashed again) only
    # when the later ones are as long as the one before
    many = {f"pkg/n{i}.py": f"def n{i}():\n    return {i}\n" for i in range(60)}
    repo = make_repo({**FILES, **many, "pkg/a.py": "def a():\n    return 1\n"})
    index_repo(repo)
    idx = repo / ".codeimpact"
    (pack,) = idx.glob("facts/*.pack")
    spans: list = []
    _hashed_at_publish(monkeypatch, spans)
    for i in range(6):
        before = pack.stat().st_size
        (repo / "pkg/a.py").write_text(f"def a():\n    return {i + 2}\n" + "\n# more\n" * i)
        spans.clear()
        assert index_repo(repo).mode == "incremental"
        assert pack.stat().st_size > before  # (new facts: a new blob)
        gen = layout.read_current(idx)
        entry = manifest.load(gen.path, gen.manifest, gen.number).files[f"facts/{pack.name}"]
        hashed = sum(end - start for p, start, end in spans if p == str(pack))
        assert entry.parts and 0 < hashed < before, (entry, spans)
        _manifest_is_the_files(gen)
    # a flipped byte in its first part is still damage
    data = bytearray(pack.read_bytes())
    data[10] ^= 1
    pack.write_bytes(bytes(data))
    gen = layout.read_current(idx)
    found = manifest.load(gen.path, gen.manifest, gen.number)
    damage = manifest.verify(gen.path, found).damage
    assert damage == [(f"facts/{pack.name}", "checksum mismatch")]


def test_hashing_a_file_does_not_count_it_in_the_process_memory(tmp_path):
    # a full build's publish hashed its 36 MB database mapped: the builder's high-water mark
    # rose by as much (Django's largest process then); read through a buffer, it stays
    import subprocess
    import sys

    big = tmp_path / "big.bin"
    with open(big, "wb") as f:
        for i in range(64):
            f.write(bytes([i]) * (1 << 20))
    probe = (
        "import sys\n"
        "from codeimpact.graph import manifest\n"
        "def hwm():\n"
        "    return next(int(l.split()[1]) for l in open('/proc/self/status')\n"
        "                if l.startswith('VmHWM:'))\n"
        "before = hwm()\n"
        "d = manifest.file_digests(sys.argv[1], [(0, None), (5, 40 << 20)])\n"
        "print(hwm() - before, *d)\n"
    )
    if not os.path.exists("/proc/self/status"):
        import pytest

        pytest.skip("no /proc: VmHWM is Linux's")
    out = subprocess.run([sys.executable, "-c", probe, str(big)], capture_output=True,
                         text=True, check=True).stdout.split()  # fmt: skip
    grown_kb, whole, part = int(out[0]), out[1], out[2]
    data = big.read_bytes()
    assert [whole, part] == [manifest.digest(data), manifest.digest(data[5 : 40 << 20])]
    assert grown_kb < 8 << 10, f"hashing 64 MB raised the high-water mark by {grown_kb} KB"
