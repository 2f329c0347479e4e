"""A Python resolution in one process, for instruction counts (callgrind) and digests.

    python benchmarks/resolve_one.py prep /work/src/django-5.2.8 -o /tmp/dj.facts
    python benchmarks/resolve_one.py run /tmp/dj.facts [--every 4] [--only NAME]
    PYTHONHASHSEED=0 valgrind --tool=callgrind python benchmarks/resolve_one.py run /tmp/dj.facts
    PYTHONHASHSEED=0 valgrind --tool=callgrind --toggle-collect=_operator_call \
        python benchmarks/resolve_one.py run /tmp/dj.facts       # the resolution alone

`prep` extracts every Python file of a tree once (the facts blobs, marshalled to one file);
`run` decodes them, builds the project (make_projects) and resolves every Nth file in path
order as a full build's host does (resolve_file, lookup keys, release, forget), then prints
the digest of the resolved blobs and lookup keys (equal digests: the same resolution) and
the CPU of both steps. Compile the sources first (`python -m compileall -q .`) after an
edit or a `git stash`: a first import compiles them, ~15 M instructions that are not
resolution's. `--only`: time the project's methods NAME,... (e.g. fixture_edges)
summed over the run; `--profile FILE`: cProfile the resolution. The code measured is
the installed one. The resolution runs inside `operator.call`, so callgrind's
`--toggle-collect=_operator_call` counts it alone (start-up, decoding and make_projects
left out; the digest's sha256 in: ~137 M instructions of Django's --every 4). `--count
NAME`: the project's method NAME's outermost calls run inside it instead (the resolution
does not), so the same command counts NAME's inclusive instructions alone.
"""

from __future__ import annotations

import argparse
import hashlib
import marshal
import operator
import os
import sys
import time
from pathlib import Path

# (numpy, imported on the way, spins its thread pool: ~16-48 M instructions that vary)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def prep(tree: Path, out: Path) -> None:
    from codeimpact.indexer.lang import language_name_for
    from codeimpact.indexer.reading import extract_source

    blobs = {}
    for root, dirs, files in os.walk(tree):
        dirs.sort()
        for name in sorted(files):
            full = Path(root, name)
            rel = full.relative_to(tree).as_posix()
            lang = language_name_for(rel)
            if lang != "python":
                continue
            blobs[rel] = extract_source(lang, full.read_bytes())
    out.write_bytes(marshal.dumps(blobs))
    print(len(blobs), "files")


def resolve_some(projects, lang_of, facts, order, every):
    from codeimpact.indexer.resolution import _resolve_encoded

    h = hashlib.sha256()
    for i, path in enumerate(order):
        if i % every:
            continue
        blob, keys = _resolve_encoded(projects, lang_of, facts, path)
        h.update(path.encode() + b"\0" + blob + b"\0" + keys)
    return h.hexdigest()[:16]


def _timed(inner, spent: list):
    """`inner` adding its CPU (outermost calls only) and its calls to `spent`."""
    depth = [0]

    def timed(*a, **k):
        depth[0] += 1
        t = time.process_time()
        try:
            return inner(*a, **k)
        finally:
            depth[0] -= 1
            if not depth[0]:
                spent[0] += time.process_time() - t
            spent[1] += 1

    return timed


def _counted(inner):
    """`inner` with its outermost calls inside `operator.call` (callgrind's
    --toggle-collect=_operator_call then counts them alone; a nested call would toggle the
    count off)."""
    depth = [0]

    def counted(*a, **k):
        if depth[0]:
            return inner(*a, **k)
        depth[0] = 1
        try:
            return operator.call(inner, *a, **k)
        finally:
            depth[0] = 0

    return counted


def run(facts_file: Path, every: int, only: str | None, profile: str | None,
        count: str | None = None) -> None:  # fmt: skip
    import gc

    from codeimpact.indexer.lang.api import FileFacts
    from codeimpact.indexer.lazy_facts import LazyFacts
    from codeimpact.indexer.resolution import make_projects

    gc.disable()  # as the build does while it resolves
    blobs = marshal.loads(facts_file.read_bytes())
    lang_of = dict.fromkeys(blobs, "python")
    facts = LazyFacts(sorted(blobs), lambda p: FileFacts.from_bytes(blobs[p]))
    spent: dict[str, list] = {}
    if only:
        from codeimpact.indexer.lang.python.resolve import PythonProject

        for name in only.split(","):
            spent[name] = [0.0, 0]
            setattr(PythonProject, name, _timed(getattr(PythonProject, name), spent[name]))
    if count:
        from codeimpact.indexer.lang.python.resolve import PythonProject

        setattr(PythonProject, count, _counted(getattr(PythonProject, count)))
    t0 = time.process_time()
    projects = make_projects(facts, lang_of, {})
    t1 = time.process_time()
    if profile:
        import cProfile

        prof = cProfile.Profile()
        digest = prof.runcall(resolve_some, projects, lang_of, facts, sorted(facts), every)
        prof.dump_stats(profile)
    elif count:
        digest = resolve_some(projects, lang_of, facts, sorted(facts), every)
    else:
        digest = operator.call(resolve_some, projects, lang_of, facts, sorted(facts), every)
    t2 = time.process_time()
    print(f"digest {digest} build {t1 - t0:.3f} s resolve {t2 - t1:.3f} s", end="")
    print("".join(f"\n  {k} {v[0]:.3f} s ({v[1]} calls)" for k, v in spent.items()))


def main() -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prep")
    p.add_argument("tree", type=Path)
    p.add_argument("-o", type=Path, required=True)
    r = sub.add_parser("run")
    r.add_argument("facts", type=Path)
    r.add_argument("--every", type=int, default=4)
    r.add_argument("--only")
    r.add_argument("--profile", help="cProfile the resolution into this file")
    r.add_argument("--count", help="run this PythonProject method's outermost calls inside "
                   "operator.call, not the resolution (callgrind: --toggle-collect)")  # fmt: skip
    a = ap.parse_args()
    if a.cmd == "prep":
        prep(a.tree, a.o)
    else:
        run(a.facts, a.every, a.only, a.profile, a.count)
    sys.stdout.flush()
    os._exit(0)  # (no teardown of the indexes: the build does not free them either)


if __name__ == "__main__":
    main()
