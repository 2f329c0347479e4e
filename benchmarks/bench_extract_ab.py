"""Python extraction CPU of two installs of codeimpact side by side (issue 24: the generic
native path must cost no more than the hand-written one it replaced).

Each round runs, in a fresh child process of each interpreter (alternating which goes
first), every .py file of a tree through `extract()` + `FileFacts.to_bytes()` (the blob the
workers send), and reports the child's CPU seconds for that loop alone (best of `--passes`):
the imports, the query's compilation and the reading of the files are left out. Timings on
a shared machine drift by 10% and more between runs, so the ratio of each round is printed
and the median taken.

`--callgrind` counts instructions instead (valgrind, one round): repeatable to a few parts
in ten thousand, so small differences show. The count of a child that extracts nothing is
subtracted from one that extracts every file once.

    python benchmarks/bench_extract_ab.py --base /work/venvs/base71/bin/python \\
        --new .venv/bin/python /work/src/django-5.2.8 [--rounds 6] [--callgrind]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

CHILD = r"""
import gc, sys, time
from pathlib import Path
try:
    from codeimpact.indexer.lang.python import extract as py
except ImportError:  # the code before the languages' folders (71c6acd)
    from codeimpact.indexer.languages import python as py
sources = [p.read_bytes() for p in sorted(Path(sys.argv[1]).rglob("*.py"))]
passes = int(sys.argv[2])
for s in sources[:30]:  # the grammar, the query and the caches warm
    py.extract(s).to_bytes()
gc.disable()  # as in `graph analyze`, which runs with the cyclic GC paused
best = float("inf")
for _ in range(passes):
    t0 = time.process_time()
    for s in sources:
        py.extract(s).to_bytes()
    best = min(best, time.process_time() - t0)
print(best if passes else 0.0)
"""


def cpu_seconds(python: str, root: str, passes: int) -> float:
    out = subprocess.run(
        [python, "-c", CHILD, root, str(passes)], capture_output=True, text=True, check=True
    )
    return float(out.stdout)


def instructions(python: str, root: str, passes: int) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "PYTHONHASHSEED": "0"}  # dict layouts, hence counts, repeat
        res = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/cg.out",
             python, "-c", CHILD, root, str(passes)],
            capture_output=True, text=True, env=env, check=True,
        )  # fmt: skip
    m = re.search(r"refs:\s+([\d,]+)", res.stderr)
    if m is None:
        raise RuntimeError(f"no instruction count from valgrind:\n{res.stderr[-2000:]}")
    return int(m.group(1).replace(",", ""))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("root", help="a tree of .py files (Django 5.2.8's sdist)")
    ap.add_argument("--base", required=True, help="the baseline's python")
    ap.add_argument("--new", default=sys.executable, help="the python of the code measured")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--passes", type=int, default=2)
    ap.add_argument("--callgrind", action="store_true")
    args = ap.parse_args(argv)
    pythons = {"base": args.base, "new": args.new}
    if args.callgrind:
        counts = {
            k: instructions(p, args.root, 1) - instructions(p, args.root, 0)
            for k, p in pythons.items()
        }
        print(f"instructions of the extraction: base {counts['base']:,}, new {counts['new']:,}")
        print(f"new / base = {counts['new'] / counts['base']:.4f}")
        return 0
    times: dict[str, list[float]] = {k: [] for k in pythons}
    for r in range(args.rounds):
        order = list(pythons) if r % 2 == 0 else list(pythons)[::-1]
        for k in order:
            times[k].append(cpu_seconds(pythons[k], args.root, args.passes))
        ratio = times["new"][-1] / times["base"][-1]
        print(f"round {r + 1}: base {times['base'][-1]:.2f} s, new {times['new'][-1]:.2f} s,"
              f" new / base {ratio:.3f}", flush=True)  # fmt: skip
    ratios = [n / b for n, b in zip(times["new"], times["base"])]
    print(
        f"median of the rounds' new / base: {statistics.median(ratios):.3f}; "
        f"best new / best base: {min(times['new']) / min(times['base']):.3f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
