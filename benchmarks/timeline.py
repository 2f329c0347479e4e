"""Where one full index's wall time goes: every process of the build, when it runs and its
CPU, and the stretches where a core idles.

    python benchmarks/timeline.py /work/venvs/engine/bin/python /work/src/django-5.2.8 \
        [--interval 0.005] [--bin 0.05] [--top 8] [--json out.json]

Indexes a fresh copy of the tree with that interpreter (compare_speed.py's child) while this
process samples /proc every `interval`: the child and each process below it (the extraction
workers, the resolve host and its workers, the database and sidecar writers, git), each
one's CPU (utime + stime of all its threads, ended threads included) and parent. Prints each
process (first and last seen, CPU), then the stretches of `bin`-wide slots in which the
tree kept fewer than 1.3 of the machine's cores busy, largest first (core-seconds idle, the
processes busy then): the serial stretches, each costing wall time twice what it costs CPU
on two cores. CPU is read in clock ticks (10 ms), so a bin's figure is coarse; a process's
last ticks before it exits are not seen. Run it under the bench lock on a quiet machine:
the idle stretches are only idle when nothing else runs.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import tempfile
import time
from collections import Counter
from pathlib import Path

from compare_speed import CHILD
from sources import compile_package, fresh_copy

TICK_NS = 1_000_000_000 // os.sysconf("SC_CLK_TCK")
BUSY = 1.3  # cores: a slot with fewer busy is a serial (or idle) stretch


def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                out += [int(x) for x in f.read().split()]
        except OSError:
            pass
    return out


def _sample(root: int) -> dict[int, tuple[str, int, int]]:
    """pid -> (name, parent, CPU ns) of `root` and every process below it."""
    found: dict[int, tuple[str, int, int]] = {}
    todo = [root]
    while todo:
        pid = todo.pop()
        todo += _children(pid)
        try:
            with open(f"/proc/{pid}/stat") as f:
                head, _, tail = f.read().rpartition(")")
        except OSError:
            continue
        fields = tail.split()
        name = head.partition("(")[2]
        found[pid] = (name, int(fields[1]), (int(fields[11]) + int(fields[12])) * TICK_NS)
    return found


def record(python: str, tree: Path, interval: float) -> tuple[float, dict[int, dict]]:
    """(wall seconds, pid -> {name, parent, first, last, cpu_ns, at: [(seconds, cpu_ns)]})."""
    scratch = Path(tempfile.mkdtemp(prefix="timeline-"))
    try:
        repo = fresh_copy(tree, scratch / tree.name)
        t0 = time.perf_counter()
        proc = subprocess.Popen([python, "-c", CHILD, str(repo)], stdout=subprocess.DEVNULL)
        procs: dict[int, dict] = {}
        while proc.poll() is None:
            now = time.perf_counter() - t0
            for pid, (name, parent, cpu) in _sample(proc.pid).items():
                p = procs.setdefault(pid, {"name": name, "parent": parent, "first": now, "at": []})
                p.update(name=name, last=now, cpu_ns=cpu)
                p["at"].append((now, cpu))
            time.sleep(interval)
        wall = time.perf_counter() - t0
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if proc.returncode != 0:
        raise SystemExit(f"the index failed (exit {proc.returncode})")
    return wall, procs


def busy_by_slot(procs: dict[int, dict], width: float, wall: float) -> list[Counter]:
    """Per `width`-second slot: pid -> the CPU seconds it took then."""
    slots = [Counter() for _ in range(int(wall / width) + 1)]
    for pid, p in procs.items():
        before = 0
        for at, cpu in p["at"]:
            slots[min(int(at / width), len(slots) - 1)][pid] += (cpu - before) / 1e9
            before = cpu
    return slots


def idle_stretches(slots: list[Counter], width: float, cores: int) -> list[tuple]:
    """(core-seconds idle, start, end, pid -> CPU seconds) of each run of slots keeping fewer
    than BUSY cores busy, largest first."""
    out = []
    start = None
    for i in range(len(slots) + 1):
        quiet = i < len(slots) and sum(slots[i].values()) < BUSY * width
        if quiet and start is None:
            start = i
        elif not quiet and start is not None:
            used = sum((slots[j] for j in range(start, i)), Counter())
            idle = cores * (i - start) * width - sum(used.values())
            out.append((idle, start * width, i * width, used))
            start = None
    return sorted(out, key=lambda s: -s[0])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("python", help="python of the installation measured")
    ap.add_argument("tree", type=Path)
    ap.add_argument("--interval", type=float, default=0.005)
    ap.add_argument("--bin", type=float, default=0.05)
    ap.add_argument("--top", type=int, default=8)
    ap.add_argument("--json", type=Path, help="write the samples there")
    args = ap.parse_args()
    compile_package(args.python)
    wall, procs = record(args.python, args.tree, args.interval)
    print(f"wall {wall:.3f} s, cpu {sum(p['cpu_ns'] for p in procs.values()) / 1e9:.3f} s")
    print("    pid  parent name             first    last    cpu")
    for pid, p in sorted(procs.items(), key=lambda kv: kv[1]["first"]):
        print(f"{pid:7} {p['parent']:7} {p['name']:15} {p['first']:6.3f} {p['last']:7.3f} "
              f"{p['cpu_ns'] / 1e9:6.3f}")  # fmt: skip
    cores = os.cpu_count() or 1
    print(f"\nstretches under {BUSY} of {cores} cores busy ({args.bin * 1000:.0f} ms slots):")
    for idle, start, end, used in idle_stretches(busy_by_slot(procs, args.bin, wall), args.bin,
                                                 cores)[: args.top]:  # fmt: skip
        who = ", ".join(f"{pid} {procs[pid]['name']} {cpu:.2f}" for pid, cpu in used.most_common(3))
        print(f"  {start:6.2f}-{end:6.2f} s  idle {idle:5.2f} core-s  busy: {who or 'none'}")
    if args.json:
        args.json.write_text(json.dumps({"wall": wall, "processes": procs}))


if __name__ == "__main__":
    main()
