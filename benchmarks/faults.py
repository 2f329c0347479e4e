"""The page faults of one full index, per process: which are copy-on-write, which first touch.

    python benchmarks/faults.py /work/venvs/native/bin/python /work/src/django-5.2.8 [--json F]

Indexes a fresh copy of the tree with that interpreter (compare_speed.py's child) under
`perf record -e exceptions:page_fault_user` (a tracepoint: no hardware counters needed) and
prints every process of the build in fork order, indented under its parent (the builder, its
extraction workers, the resolve host and the workers it forks, the writers, git), with its
life, its faults by kind and, for a process another forked, the copies its parent made while
it lived. Counts, not times: they do not depend on the machine's load, so they can be taken
any time and compared between two runs of one tree (a run's total moves by ~1-2%).

The kinds (x86's error code): `cow` a write to a page shared with a process forked from or
by this one (the page is copied: a reference count changed on a read of an object counts);
`first` a write to a page never touched (zeroed); `read` a read of a page not mapped yet.
A fault costs kernel time: ~1 us a page in a microbenchmark copying pages in order, ~3.9 us
a fault in Django's build (sys time saved / faults saved, a resolve tree without re-forks);
a page both processes of a fork write faults twice (a copy, then the other's write fault).

`parent cow while alive`: each copy the parent makes while this process lives leaves the
original with this process, dead unless this process reads it (a builder page written after
the resolve host forked is such a page in the host, which reads little of the builder's
heap, and in every worker the host forks): what is dead counts in the tree's memory until
this process ends.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

from compare_speed import CHILD
from sources import compile_package, fresh_copy

KINDS = {0x7: "cow", 0x6: "first", 0x4: "read"}  # (user mode; 0x14 & co: instruction fetches)
_FAULT = re.compile(
    r"^\s*(\d+)\s+([\d.]+):\s+exceptions:page_fault_user:.*error_code=(0x[0-9a-f]+)"
)
_TASK = re.compile(r"^\s*\d+\s+([\d.]+):\s+PERF_RECORD_(FORK|EXIT)\((\d+):(\d+)\):\((\d+):(\d+)\)")


@dataclass
class Proc:
    pid: int
    parent: int | None
    start: float
    end: float | None = None
    threads: int = 0
    faults: Counter = field(default_factory=Counter)
    parent_cow_alive: int = 0  # the parent's copies while this process lived


def record(python: str, tree: Path, scratch: Path) -> Path:
    """The perf script text of one full index of a fresh copy of `tree`."""
    repo = fresh_copy(tree, scratch / tree.name)
    data = scratch / "faults.data"
    subprocess.run(
        ["perf", "record", "-q", "-e", "exceptions:page_fault_user", "-o", str(data), "--",
         python, "-c", CHILD, str(repo)],
        check=True, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    text = scratch / "faults.txt"
    with open(text, "w") as out:
        subprocess.run(
            ["perf", "script", "-i", str(data), "--show-task-events", "-F", "pid,time,event,trace"],
            check=True, stdout=out, stderr=subprocess.DEVNULL,
        )  # fmt: skip
    return text


def parse(text: Path) -> list[Proc]:
    """The processes of the recorded tree, in fork order (the first: the child indexing)."""
    procs: dict[int, Proc] = {}
    cows: list[tuple[int, float]] = []  # (pid, time) of every copy-on-write fault
    with open(text, errors="replace") as fh:
        lines = fh.read().splitlines()
    for line in lines:
        m = _FAULT.match(line)
        if m:
            pid, t, kind = int(m[1]), float(m[2]), KINDS.get(int(m[3], 16), "other")
            if pid not in procs:  # (the first process: its own fork was not recorded)
                procs[pid] = Proc(pid, None, t)
            procs[pid].faults[kind] += 1
            if kind == "cow":
                cows.append((pid, t))
            continue
        m = _TASK.match(line)
        if not m:
            continue
        t, event, pid, tid, ppid = float(m[1]), m[2], int(m[3]), int(m[4]), int(m[5])
        if pid != tid:  # a thread
            if event == "FORK" and pid in procs:
                procs[pid].threads += 1
            continue
        if event == "FORK" and pid != ppid:
            procs[pid] = Proc(pid, ppid, t)
        elif event == "EXIT" and pid in procs:
            procs[pid].end = t
    for p in procs.values():
        if p.parent in procs:
            end = p.end if p.end is not None else float("inf")
            p.parent_cow_alive = sum(1 for q, t in cows if q == p.parent and p.start <= t < end)
    return sorted(procs.values(), key=lambda p: p.start)


def report(procs: list[Proc]) -> None:
    depth: dict[int, int] = {}
    kids = Counter(p.parent for p in procs)
    print(f"{'process':28s} {'life s':>7s} {'cow':>7s} {'first':>7s} {'read':>6s} "
          f"{'all':>7s} {'parent cow while alive':>23s}")  # fmt: skip
    for p in procs:
        depth[p.pid] = depth.get(p.parent, -1) + 1
        life = f"{p.end - p.start:7.2f}" if p.end is not None else "      -"
        notes = (f" forks {kids[p.pid]}" if kids[p.pid] else "") + (
            f" threads {p.threads}" if p.threads else ""
        )
        name = f"{'  ' * depth[p.pid]}{p.pid}{notes}"
        alive = p.parent_cow_alive if p.parent is not None else ""
        print(f"{name:28s} {life} {p.faults['cow']:7d} {p.faults['first']:7d} "
              f"{p.faults['read']:6d} {sum(p.faults.values()):7d} {alive:>23}")  # fmt: skip
    total = Counter()
    for p in procs:
        total.update(p.faults)
    print(f"{'all processes':28s} {'':7s} {total['cow']:7d} {total['first']:7d} "
          f"{total['read']:6d} {sum(total.values()):7d}")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("python", help="the interpreter of the installation to run")
    ap.add_argument("tree", type=Path, help="the source tree to index (copied first)")
    ap.add_argument("--json", type=Path, help="also write the processes' figures here")
    a = ap.parse_args()
    if shutil.which("perf") is None:
        sys.exit("faults.py: needs `perf` (linux-perf) on PATH")
    compile_package(a.python)
    scratch = Path(tempfile.mkdtemp(prefix="faults-"))
    try:
        procs = parse(record(a.python, a.tree, scratch))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    report(procs)
    if a.json:
        a.json.write_text(json.dumps([{**asdict(p), "faults": dict(p.faults)} for p in procs]))


if __name__ == "__main__":
    main()
