"""Real code to measure on: PyPI sdists, fetched the way CI can and cached."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import threading
import time
from pathlib import Path

CACHE = Path(__file__).parent / ".cache"


def sdist(name: str, version: str) -> Path:
    """The unpacked source tree of `name==version` (from /tmp/corpus if it is there)."""
    for candidate in (
        os.environ.get(f"CODEIMPACT_{name.upper()}"),
        f"/tmp/corpus/{name}-{version}",
    ):
        if candidate and Path(candidate).is_dir():
            return Path(candidate)
    unpacked = CACHE / f"{name}-{version}"
    if not unpacked.is_dir():
        CACHE.mkdir(exist_ok=True)
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
             f"{name}=={version}", "-d", str(CACHE)],
            check=True, capture_output=True,
        )  # fmt: skip
        archive = next(CACHE.glob(f"{name}-{version}.tar.gz"))
        with tarfile.open(archive) as tar:
            tar.extractall(CACHE, filter="data")
    return unpacked


def fresh_copy(src: Path, dst: Path) -> Path:
    """A copy without any index, so a benchmark never touches the shared tree."""
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns(".codeimpact"))
    return dst


def _tree_rss_kb(root_pid: int) -> int:
    """Resident memory of a process and all its descendants, from /proc."""
    parents: dict[int, int] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                stat = fh.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{entry}/status") as fh:
                vm = next((ln for ln in fh if ln.startswith("VmRSS:")), "VmRSS: 0 kB")
        except OSError:
            continue
        parents[int(entry)] = int(stat[1])
        rss[int(entry)] = int(vm.split()[1])
    total = 0
    for pid in rss:
        p = pid
        while p and p != root_pid:
            p = parents.get(p, 0)
        if p == root_pid:
            total += rss[pid]
    return total


def run_measured(cmd: list[str], cwd: Path | None = None) -> tuple[float, int, str]:
    """Run a command; (wall seconds, peak RSS of its process tree in MB, stdout)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, _tree_rss_kb(proc.pid))
            time.sleep(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, err = proc.communicate()
    done.set()
    sampler.join()
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"{cmd} failed ({proc.returncode}): {err.strip()[-500:]}")
    return wall, peak // 1024, out
