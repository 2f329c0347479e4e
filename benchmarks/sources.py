"""Real code to measure on: PyPI sdists, fetched the way CI can and cached."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import threading
import time
from dataclasses import dataclass
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


def compile_package(python: str) -> None:
    """Byte-compile the side's codeimpact packages once, as an installed wheel is: with
    PYTHONDONTWRITEBYTECODE set (as on this machine) an editable checkout's modules that were
    never imported with it unset are compiled again by every run (0.2-0.4 s of start-up),
    which the other side, compiled long ago, does not pay."""
    code = ("import os, compileall, codeimpact, codeimpact.indexer, codeimpact.graph, "
            "codeimpact.query, codeimpact.native\n"
            "for m in (codeimpact, codeimpact.indexer, codeimpact.graph, codeimpact.query, "
            "codeimpact.native):\n"
            "    compileall.compile_dir(os.path.dirname(m.__file__), quiet=1)")  # fmt: skip
    subprocess.run([python, "-c", code], check=True, capture_output=True, cwd="/")


def fresh_copy(src: Path, dst: Path) -> Path:
    """A copy without any index, so a benchmark never touches the shared tree."""
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns(".codeimpact"))
    return dst


@dataclass
class PeakMemory:
    """Peak memory of a command's process tree, in MB, three ways."""

    rss_sum: int  # RSS summed over the processes: a page shared by forked workers counts
    # once per process that maps it (a fork copies the parent's page tables)
    pss_sum: int  # PSS summed: each page counted once over all processes, the footprint
    largest: int  # the highest high-water mark (VmHWM) of any one process: the figure
    # `/usr/bin/time -v` reports as "Maximum resident set size"


def _tree_memory_kb(root_pid: int) -> tuple[int, int, int]:
    """(RSS sum, PSS sum, largest VmHWM) of a process and all its descendants, from /proc."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                parents[int(entry)] = int(fh.read().rsplit(")", 1)[1].split()[1])
        except OSError:
            continue
    rss = pss = hwm = 0
    seen: set[str] = set()
    for pid in parents:
        p = pid
        while p and p != root_pid:
            p = parents.get(p, 0)
        if p != root_pid:
            continue
        try:
            with open(f"/proc/{pid}/smaps_rollup") as fh:
                rollup = fh.read()
            # a child started by vfork (subprocess's posix_spawn: `git`) runs in its parent's
            # memory until it execs, and its rollup is its parent's, to the kB: counted once
            if rollup in seen:
                continue
            seen.add(rollup)
            for ln in rollup.splitlines():
                if ln.startswith("Rss:"):
                    rss += int(ln.split()[1])
                elif ln.startswith("Pss:"):
                    pss += int(ln.split()[1])
            with open(f"/proc/{pid}/status") as fh:
                for ln in fh:
                    if ln.startswith("VmHWM:"):
                        hwm = max(hwm, int(ln.split()[1]))
        except OSError:
            continue
    return rss, pss, hwm


def run_measured(cmd: list[str], cwd: Path | None = None) -> tuple[float, int, str]:
    """Run a command; (wall seconds, peak RSS of its process tree in MB, stdout)."""
    wall, peak, out = run_measured_peaks(cmd, cwd)
    return wall, peak.rss_sum, out


def run_measured_peaks(cmd: list[str], cwd: Path | None = None) -> tuple[float, PeakMemory, str]:
    """Run a command; (wall seconds, its process tree's peak memory, stdout). Memory is
    sampled every 50 ms; VmHWM is the kernel's own high-water mark of each process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = [0, 0, 0]
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            for i, kb in enumerate(_tree_memory_kb(proc.pid)):
                peak[i] = max(peak[i], kb)
            time.sleep(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, err = proc.communicate()
    done.set()
    sampler.join()
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"{cmd} failed ({proc.returncode}): {err.strip()[-500:]}")
    return wall, PeakMemory(*(kb // 1024 for kb in peak)), out
