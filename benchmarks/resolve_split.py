"""Where a full build's resolve phase spends its CPU, process by process.

    cd /tmp && flock /work/wt/.bench.lock python /work/wt/NAME/benchmarks/resolve_split.py \
        /work/src/django-5.2.8 [--memo] [--smaps]

A full build resolves in a host process forked from the builder (indexer/resolve_host.py):
the host builds the resolver projects (`make_projects`), forks the resolve workers
(indexer/resolve_workers.py), resolves chunks beside them; each process sends the chunks it
resolved straight to the builder, which gathers them (FullGraph.add_blob). This indexes a fresh copy of the tree in a
child process whose host and workers record their own CPU (user, sys) and minor page faults
(copy-on-write copies of the host's pages count there) as they end, and prints them with the
builder's resolve phase. `--memo`: also how many entries of the Python project's memo were
computed after the fork by the host, by the workers and by both (the work done twice).
`--smaps`: also each process's resident, shared and private memory (/proc/self/smaps_rollup)
when the host has built the projects, when a worker starts and when each ends: what a worker
still shares with the host at its end is what neither wrote (refcounts write every page of
what resolution reads: session 14 found ~130 of 191 MB copied after the fork on Django).

The child wraps the functions named above (the code measured is otherwise the installed one):
a figure of this tool is one run's, so compare two installations in turn under the lock.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from sources import fresh_copy

CHILD = r"""
import json, os, resource, sys
from codeimpact.indexer import full_run, resolve_host, resolve_workers
from codeimpact.indexer.build import analyze
from codeimpact.indexer.config import IndexConfig, RunOptions

out_path, want_memo, want_smaps = sys.argv[2], sys.argv[3] == "1", sys.argv[4] == "1"


def smaps():
    if not want_smaps:
        return {}
    out = {}
    with open("/proc/self/smaps_rollup") as fh:
        for line in fh:
            parts = line.split()
            if len(parts) >= 3 and parts[-1] == "kB":
                out[parts[0].rstrip(":")] = int(parts[1])
    keys = ("Rss", "Shared_Dirty", "Shared_Clean", "Private_Dirty", "Private_Clean")
    return {k: out.get(k, 0) for k in keys}


def note(tag, **extra):
    r = resource.getrusage(resource.RUSAGE_SELF)
    row = {"tag": tag, "pid": os.getpid(), "user": r.ru_utime, "sys": r.ru_stime,
           "minflt": r.ru_minflt, **extra}
    with open(out_path, "a") as fh:
        fh.write(json.dumps(row) + "\n")


def memo_keys(projects):
    p = projects.get("python")
    return [repr(k) for k in p.memo.table] if p is not None else []


make = full_run.make_projects
def make_projects(*a, **k):
    note("make_projects start")
    projects = make(*a, **k)
    note("make_projects end", keys=memo_keys(projects) if want_memo else [], sm=smaps())
    return projects
full_run.make_projects = make_projects

into = resolve_host.resolve_into
def host_into(paths, one, sinks, *rest):
    into(paths, one, sinks, *rest)
    note("host end", keys=memo_keys(one.args[0]) if want_memo else [], sm=smaps())
resolve_host.resolve_into = host_into

worker = resolve_workers._worker
def worker_main(*a):
    job = resolve_workers._JOB
    note("worker start", keys=memo_keys(job[1].args[0]) if want_memo else [], sm=smaps())
    try:
        worker(*a)
    finally:
        projects = job[1].args[0] if want_memo else {}
        note("worker end", keys=memo_keys(projects) if want_memo else [], sm=smaps())
resolve_workers._worker = worker_main

r = analyze(sys.argv[1], IndexConfig(), RunOptions())
note("builder end", cpu=r.cpu_seconds)
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("tree", type=Path)
    ap.add_argument("--memo", action="store_true", help="count the memo entries made twice")
    ap.add_argument("--smaps", action="store_true", help="each process's shared/private MB")
    args = ap.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="resolve-split-"))
    try:
        repo = fresh_copy(args.tree, scratch / args.tree.name)
        out = scratch / "rows.jsonl"
        flags = ["1" if args.memo else "0", "1" if args.smaps else "0"]
        subprocess.run([sys.executable, "-c", CHILD, str(repo), str(out), *flags], check=True)
        rows = [json.loads(line) for line in out.read_text().splitlines()]
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    by_tag: dict[str, list[dict]] = {}
    for row in rows:
        by_tag.setdefault(row["tag"], []).append(row)
    start, built = by_tag["make_projects start"][0], by_tag["make_projects end"][0]
    host_end = by_tag["host end"][0]

    def line(name: str, a: dict | None, b: dict) -> None:
        a = a or {"user": 0.0, "sys": 0.0, "minflt": 0}
        user, sys_ = b["user"] - a["user"], b["sys"] - a["sys"]
        print(
            f"{name:28} {user + sys_:7.2f} {user:7.2f} {sys_:7.2f} {b['minflt'] - a['minflt']:9d}"
        )

    print(f"{'process / part':28} {'cpu':>7} {'user':>7} {'sys':>7} {'minflt':>9}")
    line("host: make_projects", start, built)
    line("host: resolve and send", built, host_end)
    for i, w in enumerate(by_tag.get("worker end", [])):
        line(f"worker {i + 1}", None, w)
    if args.smaps:
        rows_sm = [("host: projects built", built), ("host: end", host_end)]
        for i, w in enumerate(by_tag.get("worker start", [])):
            rows_sm.append((f"worker {i + 1}: start", w))
        for i, w in enumerate(by_tag.get("worker end", [])):
            rows_sm.append((f"worker {i + 1}: end", w))
        for name, row in rows_sm:
            print(f"{name:28} " + " ".join(f"{k} {v // 1024} MB" for k, v in row["sm"].items()))
    cpu = by_tag["builder end"][0]["cpu"]
    print("phase CPU (builder and the processes it waited for): "
          + ", ".join(f"{k} {v:.2f}" for k, v in cpu.items()))  # fmt: skip
    if args.memo:
        before = set(built["keys"])
        host_new = set(host_end["keys"]) - before
        # (a worker inherits what the host's memo held when it forked)
        starts = by_tag.get("worker start", [])
        ends = {w["pid"]: set(w["keys"]) for w in by_tag.get("worker end", [])}
        worker_new = set().union(*(ends.get(w["pid"], set()) - set(w["keys"]) for w in starts))
        inherited = set().union(*(set(w["keys"]) for w in starts)) - before
        host_new -= inherited
        both = host_new & worker_new
        print(f"memo entries: made by make_projects {len(before)}, then by the host before it "
              f"forked {len(inherited)}")  # fmt: skip
        print(f"memo entries: after the fork host {len(host_new)}, "
              f"workers {len(worker_new)}, made by both {len(both)} "
              f"({len(both) / max(1, len(host_new | worker_new)):.1%} of those made after it)")  # fmt: skip
        kinds: dict[str, int] = {}
        for k in both:
            kind = k[1:].split(",", 1)[0]
            kinds[kind] = kinds.get(kind, 0) + 1
        top = sorted(kinds.items(), key=lambda kv: -kv[1])[:8]
        print("  made by both, by kind: " + ", ".join(f"{k} {n}" for k, n in top))


if __name__ == "__main__":
    main()
