"""A full build's gathering replayed in one process, for instruction counts (callgrind).

    python benchmarks/gather_replay.py GEN [--part add|finish|names] [--rounds 3]
    valgrind --tool=callgrind --toggle-collect=_operator_call \\
        python benchmarks/gather_replay.py GEN --part add

GEN is a generation folder of a full build (`.codeimpact/gen-NNNNNN`): its pack holds every
file's resolved blob. The replay hands them to a FullGraph in path order (`add_blob`, as the
builder does while the resolve host sends them), then makes the content (`finish`), the
node arrays and the edge codes; `names` builds the names index from the generation's keys
file (name_index.NameIndex.build, as the sidecar writer does). It prints each part's CPU
and the content's size. The part named by --part runs inside `operator.call`, so callgrind's
--toggle-collect=_operator_call counts it alone (the imports and the reading of the pack
are not counted). Compile the sources first (`python -m compileall -q indexer`): a first
import compiles them. The code measured is the installed one.
"""

from __future__ import annotations

import argparse
import operator
import os
import shutil
import tempfile
import time
from pathlib import Path

# (numpy, imported on the way, spins its thread pool: instructions that vary)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def _call(marked: bool, f, *args):
    return operator.call(f, *args) if marked else f(*args)


def replay(gen: Path, part: str) -> str:
    from codeimpact.indexer import full_graph
    from codeimpact.indexer.name_index import NameIndex
    from codeimpact.indexer.state import load_graph_state

    st = load_graph_state(gen)
    if st is None:
        raise SystemExit(f"{gen}: no graph state")
    blobs = [(p, st.resolved_bytes(p)) for p in sorted(st.resolved_refs)]
    full_graph.warm_up()
    scratch = Path(tempfile.mkdtemp(prefix="gather-replay-"))
    try:
        graph = full_graph.FullGraph(scratch)

        def add_all() -> None:
            for path, blob in blobs:
                graph.add_blob(path, blob)

        clock = time.process_time
        t0 = clock()
        _call(part == "add", add_all)
        t1 = clock()
        content = _call(part == "finish", graph.finish)
        t2 = clock()
        full_graph.node_arrays(content)
        full_graph.edge_codes(content)
        t3 = clock()
        _call(part == "names", NameIndex.build, st.keys_digest, st.keys_base[2])
        t4 = clock()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return (f"add {t1 - t0:.3f} s, finish {t2 - t1:.3f} s, arrays+codes {t3 - t2:.3f} s, "
            f"names {t4 - t3:.3f} s; {len(blobs)} files, {content.n_nodes} nodes, "
            f"{len(content.rel)} edges")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("gen", type=Path)
    ap.add_argument("--part", choices=("add", "finish", "names"), default="add")
    ap.add_argument("--rounds", type=int, default=1)
    args = ap.parse_args()
    for _ in range(args.rounds):
        print(replay(args.gen, args.part), flush=True)


if __name__ == "__main__":
    main()
