"""Index one tree with two codeimpact installations, alternating, and print the ratios.

    python benchmarks/compare_speed.py /work/venvs/base71/bin/python /work/venvs/engine/bin/python \
        /work/src/django-5.2.8 --rounds 5

Each round indexes a fresh copy of the tree with each interpreter in turn (the order swaps
every round), in a child process: CPU time is user+sys of that child and every process it
waited for (its extraction and resolution workers), from getrusage(RUSAGE_CHILDREN); peak
memory is the process tree's PSS sum, sampled every 50 ms (sources.run_measured_peaks), and
the largest process's high-water mark. Prints each run and the median ratio new/old: the
shared machine's noise hits both sides of a round alike. Both sides are byte-compiled first
(`sources.compile_package`): with PYTHONDONTWRITEBYTECODE set, a checkout's changed modules
would be compiled again by every run of that side alone.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import tempfile
from pathlib import Path

from sources import compile_package, fresh_copy, run_measured_peaks

CHILD = (
    "import sys\n"
    "from codeimpact.indexer.build import analyze\n"
    "from codeimpact.indexer.config import IndexConfig, RunOptions\n"
    "analyze(sys.argv[1], IndexConfig(), RunOptions())\n"
)


def one_run(python: str, src: Path, scratch: Path) -> tuple[float, float, int, int]:
    """(CPU seconds, wall seconds, PSS MB, largest HWM MB) of indexing a fresh copy."""
    repo = fresh_copy(src, scratch / src.name)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall, peak, _out = run_measured_peaks([python, "-c", CHILD, str(repo)])
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    shutil.rmtree(repo, ignore_errors=True)
    return cpu, wall, peak.pss_sum, peak.largest


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("old", help="python of the baseline installation")
    ap.add_argument("new", help="python of the installation measured")
    ap.add_argument("tree", type=Path)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    for python in (args.old, args.new):
        compile_package(python)
    scratch = Path(tempfile.mkdtemp(prefix="compare-speed-"))
    runs: dict[str, list[tuple]] = {"old": [], "new": []}
    try:
        for i in range(args.rounds):
            order = ("old", "new") if i % 2 == 0 else ("new", "old")
            for side in order:
                r = one_run(getattr(args, side), args.tree, scratch)
                runs[side].append(r)
                print(f"round {i + 1} {side}: cpu {r[0]:.2f} s, wall {r[1]:.2f} s, "
                      f"pss {r[2]} MB, largest {r[3]} MB", flush=True)  # fmt: skip
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    for k, name in enumerate(("cpu", "wall", "pss", "largest")):
        ratios = [n[k] / o[k] for o, n in zip(runs["old"], runs["new"]) if o[k]]
        old = statistics.median(r[k] for r in runs["old"])
        new = statistics.median(r[k] for r in runs["new"])
        print(f"{name:8} old median {old:8.2f}  new median {new:8.2f}  "
              f"ratio new/old: median of rounds {statistics.median(ratios):.3f}")  # fmt: skip


if __name__ == "__main__":
    main()
