"""Tests to run, graph alone vs graph ∪ observed coverage, scored against the trace.

The repository must be a copy of the project the truth file traced (`benchmarks/truth`:
every test item of its suite traced with sys.setprofile) whose coverage was imported
(`pytest --cov=PKG --cov-context=test`, `graph analyze --index-only .`, `graph coverage
import`). Prints truth's tests-to-run table (`truth.score_tests`) twice: with the observed
links (the union every query uses), and with them moved aside for the run (the graph
alone), then the tests the union adds that the trace says never ran the function.

    python benchmarks/observed_truth.py flask-3.1.3 /tmp/covflask/flask

The links file is moved back in a `finally`; run it on a copy all the same.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from truth.breaks import NodeIds  # noqa: E402
from truth.runner import read_truth  # noqa: E402
from truth.score_calls import GraphCalls  # noqa: E402
from truth.score_tests import format_tests, score_tests  # noqa: E402

from codeimpact.graph import layout  # noqa: E402
from codeimpact.graph.observed import observed_path  # noqa: E402
from codeimpact.query.impact import analyse  # noqa: E402
from codeimpact.query.index import Index  # noqa: E402

DATA = Path(__file__).resolve().parent / "truth" / "data"


def table(project: str, truth: dict, tree: Path) -> str:
    with Index.open(tree) as index:
        pairs = GraphCalls.load(index).pairs
        return format_tests(project, score_tests(truth, index, tree, pairs, with_breaks=False))


def false_adds(truth: dict, tree: Path) -> tuple[int, int, list[tuple[str, str]]]:
    """(tests the union adds, those none of whose items ran the function, examples)."""
    defs, tests = truth["definitions"], truth["tests"]
    nodeids = NodeIds(tests)
    ran: dict[str, set[str]] = {}
    for nodeid, t in tests.items():
        for d in t["executed"]:
            uid, kind, is_test = defs[d]
            if kind in ("function", "method") and not is_test:
                ran.setdefault(uid, set()).add(nodeid)
    adds = false = 0
    examples: list[tuple[str, str]] = []
    with Index.open(tree) as index:
        view, cov = index.graph, index.observed
        for uid, items in ran.items():
            sid = view.symbols.by_uid.get(uid)
            if sid is None or view.symbols.is_test[sid]:
                continue
            union = analyse(view, [sid], include_tests=True, limit=0, observed=cov)
            for t in union["tests"]:
                if "reaches" in t.reasons:
                    continue
                adds += 1
                if not nodeids.of_symbol(t.uid) & items:
                    false += 1
                    if len(examples) < 8:
                        examples.append((uid, t.uid))
    return adds, false, examples


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("project", help="a truth file's name: flask-3.1.3, click-8.5.1, ...")
    ap.add_argument("repo", type=Path)
    args = ap.parse_args()
    truth = read_truth(DATA / f"{args.project}.truth.json.xz")
    links = observed_path(layout.index_dir(args.repo))
    if not links.exists():
        sys.exit(f"no observed coverage in {args.repo}: run `graph coverage import` first")
    print("== graph ∪ observed coverage")
    print(table(args.project, truth, args.repo))
    held = links.with_name(links.name + ".aside")
    shutil.move(links, held)
    try:
        print("== graph alone")
        print(table(args.project, truth, args.repo))
    finally:
        shutil.move(held, links)
    adds, false, examples = false_adds(truth, args.repo)
    print(f"tests the union adds (observed only): {adds}; none of whose items ran it: {false}")
    for uid, test in examples:
        print(f"  {uid}  <-  {test}")


if __name__ == "__main__":
    main()
