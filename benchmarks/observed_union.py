"""What observed coverage adds to the tests the graph selects, on a repository whose
coverage was imported (`pytest --cov=PKG --cov-context=test`, then `graph coverage import`).

For every non-test function some test was seen running, the observed tests are the
truth (as far as one run tells); the graph's selection is what `impact` lists without
the observed links, the union what it lists with them. Prints, per repository:
- the imported tests, functions and links;
- micro recall of the graph alone against the observed tests (share of (function,
  observed test) pairs the graph names), and the share of functions it names all of;
- what the union adds: pairs, functions that gain a test, functions with no test at all
  from the graph that get one; and the share of the suite the union selects on average.

    python benchmarks/observed_union.py /path/to/repo [--depth 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys

from codeimpact.query.impact import analyse
from codeimpact.query.index import Index


def measure(repo: str, depth: int) -> dict:
    with Index.open(repo) as idx:
        cov = idx.observed
        if cov is None:
            sys.exit(f"no observed coverage in {repo}: run `graph coverage import` first")
        view = idx.graph
        s = view.symbols
        obs = cov.observation
        suite = {t.uid for t in obs.tests if t.uid in s.by_uid}
        truth: dict[int, set[str]] = {}
        for sid, ks in cov.tests_of.items():
            if not s.is_test[sid]:
                truth[sid] = {obs.tests[k].uid for k in ks}
        pairs = hit = full = added_pairs = gained = rescued = 0
        shares = []
        for sid, observed in sorted(truth.items()):
            static = analyse(view, [sid], depth=depth, limit=0)
            union = analyse(view, [sid], depth=depth, limit=0, observed=cov)
            s_uids = {t.uid for t in static["tests"]}
            u_uids = {t.uid for t in union["tests"]}
            assert observed <= u_uids, s.uid[sid]
            pairs += len(observed)
            hit += len(observed & s_uids)
            full += observed <= s_uids
            added = u_uids - s_uids
            added_pairs += len(added)
            gained += bool(added)
            rescued += bool(added) and not s_uids
            shares.append(len(u_uids & suite) / max(len(suite), 1))
        return {
            "repo": repo,
            "commit": (obs.commit or "")[:12],
            "tests": len(obs.tests),
            "functions": len(obs.functions),
            "links": sum(len(r) for r in obs.links),
            "functions_measured": len(truth),
            "graph_micro_recall": round(hit / max(pairs, 1), 3),
            "graph_functions_all_named": round(full / max(len(truth), 1), 3),
            "union_added_pairs": added_pairs,
            "functions_gaining_tests": gained,
            "functions_with_no_graph_test_rescued": rescued,
            "union_suite_share_mean": round(statistics.fmean(shares), 3) if shares else 0.0,
        }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("repos", nargs="+")
    ap.add_argument("--depth", type=int, default=3)
    args = ap.parse_args()
    for repo in args.repos:
        for key, value in measure(repo, args.depth).items():
            print(f"{key:40} {value}")
        print()


if __name__ == "__main__":
    main()
