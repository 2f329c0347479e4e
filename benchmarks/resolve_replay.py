"""A full build's resolution replayed as its processes split it, for instruction counts.

    python benchmarks/resolve_one.py prep /work/src/django-5.2.8 -o /tmp/dj.facts
    python benchmarks/resolve_replay.py record /work/src/django-5.2.8 -o /tmp/split.json
    PYTHONHASHSEED=0 valgrind --tool=callgrind --trace-children=yes \
        --toggle-collect=_operator_call --dump-after=_operator_call \
        --callgrind-out-file=/tmp/cg/rr.%p \
        python benchmarks/resolve_replay.py run /tmp/dj.facts /tmp/split.json [--one]
    python benchmarks/resolve_replay.py sum /tmp/cg/rr.*

A full build resolves in a host and the workers it forks (indexer/resolve_workers.py): each
process resolves the chunks it takes from one queue, and each worker starts from the host's
memo as it was at the worker's fork, so what the host learnt meanwhile is not resolved again
but what another worker learnt is. How much that repeats is a matter of instructions, which
a build's CPU figures drown in its page faults and the load. `record` indexes a fresh copy of
the tree once and writes which process took which chunk and how many files the host had
resolved when it forked each worker; `run` resolves the same chunks, over facts extracted
once (resolve_one.py `prep`), in processes forked the same way: the host resolves its chunks
in turn and forks each worker when it has resolved as many files as it had then (one at a
time, each waited for: what a worker inherits is the host's state at its fork, whatever runs
beside it). Every process resolves inside `operator.call`, so callgrind with
`--trace-children=yes --toggle-collect=_operator_call --dump-after=_operator_call` counts the
resolution alone, in one output per process and stretch (a dump after each call: a forked
child does not inherit its parent's counts); `sum` adds them up per process. `--one`: every
file in one process, in path order (what the split costs is the difference). Both print
resolve_one.py's digest (`run --every 1`'s): the same resolution, however split.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import marshal
import operator
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from sources import fresh_copy

# (numpy, imported on the way, spins its thread pool: ~16-48 M instructions that vary)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

# the build's own code, with the queue's takes and the host's forks logged (by process id)
RECORD = r"""
import json, os, sys
from codeimpact.indexer import resolve_host, resolve_workers
from codeimpact.indexer.build import analyze
from codeimpact.indexer.config import IndexConfig, RunOptions

fd = os.open(sys.argv[2], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)


def log(*row):
    os.write(fd, (json.dumps([os.getpid(), *row]) + "\n").encode())


take = resolve_workers._Queue.take
def logged_take(self):
    c = take(self)
    if c is not None:
        log("take", c)
    return c
resolve_workers._Queue.take = logged_take

done = [0]  # the files the host has resolved
into = resolve_host.resolve_into
def host_into(paths, one, sinks, *rest):
    def counted(path):
        done[0] += 1
        return one(path)
    log("host", list(paths))
    return into(paths, counted, sinks, *rest)
resolve_host.resolve_into = host_into

start = resolve_workers._Crew._start
def logged_start(self, slot, taken):
    start(self, slot, taken)
    log("fork", done[0], list(self.procs.values())[-1].pid)
resolve_workers._Crew._start = logged_start

analyze(sys.argv[1], IndexConfig(), RunOptions())
"""


def record(tree: Path, out: Path) -> None:
    scratch = Path(tempfile.mkdtemp(prefix="resolve-replay-"))
    try:
        repo = fresh_copy(tree, scratch / tree.name)
        log = scratch / "log.jsonl"
        subprocess.run([sys.executable, "-c", RECORD, str(repo), str(log)], check=True)
        rows = [json.loads(line) for line in log.read_text().splitlines()]
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    host, order = next((r[0], r[2]) for r in rows if r[1] == "host")
    takes: dict[int, list[int]] = {}
    for pid, what, *rest in rows:
        if what == "take":
            takes.setdefault(pid, []).append(rest[0])
    forks = [(r[2], r[3]) for r in rows if r[1] == "fork"]  # (host's files, worker's pid)
    split = {
        "order": order,
        "host": takes.get(host, []),
        "workers": [takes.get(pid, []) for _, pid in forks],
        "forks": [done for done, _ in forks],
    }
    out.write_text(json.dumps(split))
    print(f"host {len(split['host'])} chunks, workers "
          f"{[len(w) for w in split['workers']]}, forked at the host's files {split['forks']}")  # fmt: skip


def run(facts_file: Path, split_file: Path, one: bool) -> None:
    from codeimpact.indexer.lang.api import FileFacts
    from codeimpact.indexer.lazy_facts import LazyFacts
    from codeimpact.indexer.resolution import _resolve_encoded, make_projects
    from codeimpact.indexer.resolve_workers import chunked

    gc.disable()  # as the build does while it resolves
    blobs = marshal.loads(facts_file.read_bytes())
    split = json.loads(split_file.read_text())
    chunks = chunked(split["order"])
    lang_of = dict.fromkeys(blobs, "python")
    facts = LazyFacts(sorted(blobs), lambda p: FileFacts.from_bytes(blobs[p]))
    projects = make_projects(facts, lang_of, {})

    def resolve(paths: list[str]) -> dict[str, bytes]:
        out = {}
        for path in paths:
            if path in blobs:  # (the facts are the Python files')
                blob, keys = _resolve_encoded(projects, lang_of, facts, path)
                out[path] = path.encode() + b"\0" + blob + b"\0" + keys
        return out

    def files(taken: list[int]) -> list[str]:
        return [p for c in taken for p in chunks[c]]

    if one:
        hosts, workers, forks = split["order"], [], []
    else:
        hosts, workers, forks = files(split["host"]), split["workers"], split["forks"]
    resolved: dict[str, bytes] = {}
    at = 0
    for k, taken in enumerate(workers):
        resolved.update(operator.call(resolve, hosts[at : forks[k]]))
        at = max(at, forks[k])
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the worker: its chunks, its outputs back on the pipe
            os.close(r)
            data = marshal.dumps(operator.call(resolve, files(taken)))
            with os.fdopen(w, "wb") as f:
                f.write(data)
            os._exit(0)
        os.close(w)
        with os.fdopen(r, "rb") as f:
            resolved.update(marshal.loads(f.read()))
        os.waitpid(pid, 0)
    resolved.update(operator.call(resolve, hosts[at:]))
    h = hashlib.sha256()
    for path in sorted(resolved):
        h.update(resolved[path])
    print(f"{len(resolved)} files, {1 + len(workers)} processes, digest {h.hexdigest()[:16]}")


def total(outputs: list[str]) -> None:
    """Instructions per process (callgrind's `%p` in the output's name) and in all."""
    per: dict[str, int] = {}
    for name in outputs:
        with open(name) as f:
            for line in f:
                if line.startswith("summary:"):
                    pid = re.search(r"\.(\d+)(?:\.\d+)?$", name)
                    key = pid.group(1) if pid else name
                    per[key] = per.get(key, 0) + int(line.split()[1])
                    break
    for key, n in sorted(per.items(), key=lambda kv: int(kv[0]) if kv[0].isdigit() else 0):
        print(f"{key:>10} {n / 1e6:12,.1f} M")
    print(f"{'all':>10} {sum(per.values()) / 1e6:12,.1f} M")


def main() -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record")
    r.add_argument("tree", type=Path)
    r.add_argument("-o", type=Path, required=True)
    p = sub.add_parser("run")
    p.add_argument("facts", type=Path)
    p.add_argument("split", type=Path)
    p.add_argument("--one", action="store_true", help="every file in one process")
    s = sub.add_parser("sum")
    s.add_argument("outputs", nargs="+")
    a = ap.parse_args()
    if a.cmd == "record":
        record(a.tree, a.o)
    elif a.cmd == "run":
        run(a.facts, a.split, a.one)
        sys.stdout.flush()
        os._exit(0)  # (no teardown of the indexes: the build does not free them either)
    else:
        total(a.outputs)


if __name__ == "__main__":
    main()
