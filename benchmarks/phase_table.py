"""CPU of each indexing phase, for several installations side by side, alternating.

    python benchmarks/phase_table.py /work/src/django-5.2.8 --rounds 3 \
        main=/work/venvs/lead/bin/python new=/work/venvs/perf/bin/python

Each round indexes a fresh copy of the tree once with every interpreter (the order rotates
every round) in a child process, and reads the report's per-phase CPU (`cpu_seconds`, which
counts the phase's worker processes). `import` is the child's CPU before `analyze` is
called; `total` is the child's CPU from getrusage (with its workers). The table holds the
median of the rounds per phase, then each column's ratio to the first column's total: the
shared machine's noise hits every column of a round alike. An installation whose report has
no `cpu_seconds` (the code before 56a4636) shows its wall seconds per phase, marked `~`.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import subprocess
import tempfile
from pathlib import Path

from sources import fresh_copy

CHILD = (
    "import json, sys, time\n"
    "cpu0 = time.process_time()\n"
    "from codeimpact.indexer.build import analyze\n"
    "from codeimpact.indexer.config import IndexConfig, RunOptions\n"
    "imported = time.process_time() - cpu0\n"
    "r = analyze(sys.argv[1], IndexConfig(), RunOptions())\n"
    "cpu = getattr(r, 'cpu_seconds', None) or {}\n"
    "print(json.dumps({'import': imported, 'cpu': cpu, 'wall': dict(r.timings)}))\n"
)


def one_run(python: str, src: Path, scratch: Path) -> dict:
    repo = fresh_copy(src, scratch / src.name)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([python, "-c", CHILD, str(repo)], check=True, capture_output=True,
                         text=True).stdout  # fmt: skip
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    shutil.rmtree(repo, ignore_errors=True)
    row = json.loads(out.strip().splitlines()[-1])
    row["total"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return row


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("tree", type=Path)
    ap.add_argument("sides", nargs="+", help="NAME=PYTHON, the first is the baseline")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    sides = dict(s.split("=", 1) for s in args.sides)
    names = list(sides)
    scratch = Path(tempfile.mkdtemp(prefix="phase-table-"))
    runs: dict[str, list[dict]] = {n: [] for n in names}
    try:
        for i in range(args.rounds):
            order = names[i % len(names) :] + names[: i % len(names)]
            for n in order:
                runs[n].append(one_run(sides[n], args.tree, scratch))
                print(f"round {i + 1} {n}: total cpu {runs[n][-1]['total']:.2f} s", flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    phases: list[str] = ["import"]
    for n in names:
        for r in runs[n]:
            for p in r["cpu"] or r["wall"]:
                if p not in phases:
                    phases.append(p)
    print(f"{'phase':12}" + "".join(f"{n:>12}" for n in names))
    for p in phases + ["total"]:
        cells = []
        for n in names:
            vals, mark = [], ""
            for r in runs[n]:
                if p in ("import", "total"):
                    vals.append(r[p])
                elif r["cpu"]:
                    vals.append(r["cpu"].get(p, 0.0))
                else:
                    vals.append(r["wall"].get(p, 0.0))
                    mark = "~"
            cells.append(f"{mark}{statistics.median(vals):.2f}")
        print(f"{p:12}" + "".join(f"{c:>12}" for c in cells))
    base = runs[names[0]]
    for n in names[1:]:
        ratios = [b["total"] and r["total"] / b["total"] for b, r in zip(base, runs[n])]
        print(f"{n}/{names[0]} total CPU: median of rounds {statistics.median(ratios):.3f}")


if __name__ == "__main__":
    main()
