"""A full disk, a read-only file system and a permission denied, on real file systems.

The disk is a small tmpfs mounted for the test (filled to several levels so the
write fails at different points: the facts cache, Kùzu's database, the CSR
arrays); the read-only file system is that tmpfs remounted read-only; the
permission is denied by running `graph` as root without CAP_DAC_OVERRIDE
(`setpriv`), since root writes through permission bits. Each failure must be one
line naming what happened and the path, exit 2 (not an internal error, not a
crash), and the previous index must keep answering; once the cause is gone a plain
`graph analyze` succeeds. Skipped, with the reason, where mounting is not allowed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import write_files

FILES = {
    f"pkg/m{i}.py": "".join(f"def f{i}_{j}(x):\n    return g(x)\n\n\n" for j in range(30))
    + "def g(x):\n    return x\n"
    for i in range(40)
}
FILES["pkg/__init__.py"] = ""


def graph(*args: str, prefix: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*prefix, sys.executable, "-m", "codeimpact", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


def one_line(out: subprocess.CompletedProcess, text: str) -> str:
    assert out.returncode == 2, (out.returncode, out.stderr)
    assert out.stderr.count("\n") == 1 and text in out.stderr, out.stderr
    assert "internal error" not in out.stderr and "Traceback" not in out.stderr
    return out.stderr


def answers(repo: Path) -> dict:
    out = graph("impact", "pkg/m3.py::g", "--repo", str(repo), "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    return {"direct": data["counts"]["direct"], "target": data["target"]["uid"]}


@pytest.fixture
def small_fs(tmp_path):
    """A 24 MB tmpfs, unmounted afterwards; skips where mounting is not permitted."""
    mnt = tmp_path / "fs"
    mnt.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", str(mnt)], capture_output=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["mount", "-o", "remount,rw", str(mnt)], capture_output=True)
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


def _indexed(root: Path) -> Path:
    repo = root / "repo"
    repo.mkdir()
    write_files(repo, FILES)
    out = graph("analyze", "--index-only", str(repo))
    assert out.returncode == 0, out.stderr
    return repo


def _fill(fs: Path, leave_bytes: int) -> Path:
    """A file that leaves `leave_bytes` free on `fs`."""
    filler = fs / "filler"
    st = os.statvfs(fs)
    size = max(0, st.f_bavail * st.f_frsize - leave_bytes)
    with open(filler, "wb") as f:
        f.truncate(0)
        chunk = b"\0" * (1 << 20)
        while size > 0:
            n = f.write(chunk[: min(len(chunk), size)])
            size -= n
    return filler


def test_a_full_disk_is_named_and_the_previous_index_kept(small_fs):
    repo = _indexed(small_fs)
    before = answers(repo)
    with open(repo / "pkg/m1.py", "a") as f:
        f.write("\n\ndef extra():\n    return g(1)\n")
    # the write fails at different points: the facts cache, Kùzu's database, the sidecars
    failed = 0
    for leave_kb, mode in ((0, "--index-only"), (256, "--force"), (1024, "--index-only"),
                           (3072, "--force")):  # fmt: skip
        filler = _fill(small_fs, leave_kb * 1024)
        out = graph("analyze", mode, str(repo))
        filler.unlink()
        if out.returncode != 0:  # it may fit when some space is left
            failed += 1
            one_line(out, "no space left on device")
            assert "graph analyze" in out.stderr and "previous index is kept" in out.stderr
            assert answers(repo) == before, leave_kb
    assert failed >= 3  # a new generation (~9 MB) does not fit in 3 MB
    out = graph("analyze", "--index-only", str(repo))
    assert out.returncode == 0, out.stderr
    assert graph("status", "--check", str(repo)).returncode == 0
    found = graph("search", "extra", "--repo", str(repo), "--json")
    assert json.loads(found.stdout)["total"] == 1


def test_a_read_only_file_system_is_named(small_fs):
    repo = _indexed(small_fs)
    before = answers(repo)
    (repo / "pkg/m1.py").write_text(FILES["pkg/m1.py"] + "\n\ndef extra():\n    return 1\n")
    subprocess.run(["mount", "-o", "remount,ro", str(small_fs)], check=True)
    err = one_line(graph("analyze", "--index-only", str(repo)), "read-only file system")
    assert str(repo) in err
    one_line(graph("analyze", "--force", str(repo)), "read-only file system")
    one_line(graph("clean", str(repo)), "read-only file system")
    assert answers(repo) == before  # queries read a read-only index
    subprocess.run(["mount", "-o", "remount,rw", str(small_fs)], check=True)
    assert graph("analyze", "--index-only", str(repo)).returncode == 0
    assert graph("status", "--check", str(repo)).returncode == 0


NO_OVERRIDE = ("setpriv", "--bounding-set=-dac_override,-dac_read_search")


@pytest.fixture
def without_dac_override(tmp_path):
    """The prefix that runs a command as root without CAP_DAC_OVERRIDE, checked to work."""
    if shutil.which("setpriv") is None:
        pytest.skip("setpriv is not installed")
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o555)
    probe = subprocess.run(
        [*NO_OVERRIDE, sys.executable, "-c", f"open({str(locked / 'x')!r}, 'w')"],
        capture_output=True,
        text=True,
    )
    locked.chmod(0o755)
    if "Permission denied" not in probe.stderr:
        pytest.skip(f"cannot drop CAP_DAC_OVERRIDE here: {probe.stderr.strip()[-200:]}")
    return NO_OVERRIDE


@pytest.mark.parametrize("locked", [".codeimpact", ".codeimpact/lock"])
def test_a_permission_denied_is_named(tmp_path, without_dac_override, locked):
    repo = _indexed(tmp_path)
    before = answers(repo)
    (repo / "pkg/m1.py").write_text(FILES["pkg/m1.py"] + "\n\ndef extra():\n    return 1\n")
    targets = sorted(repo.glob(locked))
    assert targets
    for target in targets:
        target.chmod(0o555 if target.is_dir() else 0o444)
    try:
        out = graph("analyze", "--index-only", str(repo), prefix=without_dac_override)
        err = one_line(out, "permission denied")
        assert str(repo / ".codeimpact") in err
        assert answers(repo) == before
    finally:
        for target in targets:
            target.chmod(0o755 if target.is_dir() else 0o644)
    assert graph("analyze", "--index-only", str(repo)).returncode == 0
    assert graph("status", "--check", str(repo)).returncode == 0
