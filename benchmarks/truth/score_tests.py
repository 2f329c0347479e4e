"""Tests to run: the tests codeimpact names for a function vs the tests that really run it.

For every package function or method a test item executed (the truth's per-test
sets, test code aside), T(f) is the set of test items that executed it and G(f) the
items named by ``Index.impact(uid, include_tests=True, limit=None)`` (a test symbol
stands for its items: a function for its parametrised items, a class for its
methods', a module for the file's). Rows, as in issue 26's table:

- micro: sum |T ∩ G| / sum |T|;
- all named: the share of functions with T ⊆ G;
- selected: the mean over functions of |G| / |suite|;
- none named: the share of functions for which G holds none of T;
- exact but missed: functions with T ⊄ G whose answer said ``completeness: exact``.

Rows: codeimpact at the default depth (3) and at unlimited depth, the baseline
"tests whose files import the module, transitively" (`truth.imports`), and the
dynamic smallest safe selection (G = T).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from truth.breaks import BreakFinder, NodeIds
from truth.imports import import_closure
from truth.misses import LABELS, SourceIndex
from truth.symtab import python_files

UNLIMITED = 1_000_000


def _row(name: str, functions, truth_sets, selections, suite: int, exact=None) -> dict:
    total = sum(len(truth_sets[f]) for f in functions)
    hit = sum(len(truth_sets[f] & selections[f]) for f in functions)
    n = len(functions)
    row = {
        "row": name,
        "micro": round(hit / total, 3) if total else None,
        "all_named": round(sum(truth_sets[f] <= selections[f] for f in functions) / n, 3),
        "selected": round(sum(len(selections[f]) for f in functions) / n / suite, 3),
        "none_named": round(sum(not (truth_sets[f] & selections[f]) for f in functions) / n, 3),
    }
    if exact is not None:
        row["exact_but_missed"] = sum(
            1 for f in functions if exact.get(f) and not truth_sets[f] <= selections[f]
        )
    return row


def score_tests(
    truth: dict, index, root: Path, graph_pairs, with_breaks: bool = True, misses: bool = False
) -> dict:
    defs = truth["definitions"]
    tests = truth["tests"]
    suite = len(tests)
    test_symbols = {
        uid for uid, is_test in index.query("MATCH (s:Symbol) RETURN s.uid, s.is_test").rows
        if is_test
    }  # fmt: skip
    truth_sets: dict[int, set[str]] = {}
    for nodeid, t in tests.items():
        for d in t["executed"]:
            uid, kind, is_test = defs[d]
            if kind in ("function", "method") and not is_test and uid not in test_symbols:
                truth_sets.setdefault(d, set()).add(nodeid)
    functions = sorted(truth_sets)
    nodeids = NodeIds(tests)

    def named(result) -> set[str]:
        out: set[str] = set()
        for hit in result.tests:
            out |= nodeids.of_symbol(hit.uid)
        return out

    sel3, sel_inf, exact, why = {}, {}, {}, {}
    absent = []
    for f in functions:
        uid = defs[f][0]
        try:
            r3 = index.impact(uid, include_tests=True, limit=None, check_freshness=False)
            rinf = index.impact(
                uid, depth=UNLIMITED, include_tests=True, limit=None, check_freshness=False
            )
        except Exception:  # noqa: BLE001 - a symbol the index lacks selects nothing
            absent.append(uid)
            sel3[f] = sel_inf[f] = set()
            continue
        sel3[f], sel_inf[f] = named(r3), named(rinf)
        exact[f] = r3.completeness.status == "exact"
        why[f] = (r3.completeness.status, r3.completeness.reasons)

    files = python_files(root)
    closure = import_closure(root, files)
    test_files = {nid.partition("::")[0] for nid in tests}
    by_file: dict[str, set[str]] = {}
    for nid in tests:
        by_file.setdefault(nid.partition("::")[0], set()).add(nid)
    importers: dict[str, set[str]] = {}
    heuristic = {}
    for f in functions:
        path = defs[f][0].partition("::")[0]
        if path not in importers:
            importers[path] = {
                nid for tf in test_files if path in closure.get(tf, ()) for nid in by_file[tf]
            }
        heuristic[f] = importers[path]

    rows = [
        _row("codeimpact, depth 3", functions, truth_sets, sel3, suite, exact),
        _row("codeimpact, unlimited depth", functions, truth_sets, sel_inf, suite, exact),
        _row("tests whose files import the module, transitively", functions, truth_sets,
             heuristic, suite),
        _row("smallest safe selection (dynamic)", functions, truth_sets, truth_sets, suite),
    ]  # fmt: skip
    result = {
        "suite": suite,
        "functions": len(functions),
        "functions_absent_from_index": absent[:10],
        "rows": rows,
    }
    if with_breaks:
        finder = BreakFinder(truth, graph_pairs, SourceIndex(root))
        labels: Counter = Counter()
        executed = {nid: set(t["executed"]) for nid, t in tests.items()}
        entries = {nid: set(t["entries"]) for nid, t in tests.items()}
        per_function = []
        for f in functions:
            lost = truth_sets[f] - sel3[f]
            at: dict[tuple, list[str]] = {}
            blocked: Counter = Counter()  # (label, edge) -> tests with a further break behind
            for nid in sorted(lost):
                own = nodeids.own_function(nid)
                label, edge = finder.nearest(f, executed[nid], entries[nid], own)
                labels[label] += 1
                key = (label, _edge_text(defs, edge))
                at.setdefault(key, []).append(nid)
                if misses and (edge is None or finder.behind(f, executed[nid], entries[nid], own,
                                                             edge)):  # fmt: skip
                    blocked[key] += 1
            if misses and lost:
                per_function.append(
                    _function_misses(defs[f][0], truth_sets[f], lost, why.get(f), at, blocked)
                )
        missed = sum(labels.values())
        order = {label: i for i, label in enumerate(LABELS)}
        result["missed_links"] = missed
        result["breaks"] = {
            k: {"links": labels[k], "share": round(labels[k] / missed, 3)}
            for k in sorted(labels, key=lambda k: (-labels[k], order.get(k, len(order))))
        }
        if misses:
            result["misses"] = per_function
    return result


def _edge_text(defs, edge) -> str:
    """`caller -> callee @lines` of a truth edge, "" for none."""
    if edge is None:
        return ""
    caller, callee, kind, _via, lines = edge
    at = ",".join(str(n) for n in lines[:3])
    return f"{defs[caller][0]} -> {defs[callee][0]} ({kind} @{at})"


def _function_misses(uid: str, truth: set, lost: set, why, at: dict, blocked: Counter) -> dict:
    """One function whose tests are not all named: the tests it lost, grouped by the
    nearest break (label, edge) on their real path, largest group first; `behind`: how
    many of a group's tests meet a further break once that one is mended."""
    status, reasons = why if why is not None else ("absent", [])
    groups = sorted(at.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    return {
        "uid": uid,
        "truth": len(truth),
        "missed": len(lost),
        "completeness": status,
        "reasons": reasons,
        "breaks": [
            {
                "label": label,
                "edge": edge,
                "tests": len(nids),
                "sample": nids[:3],
                "behind": blocked[(label, edge)],
            }
            for (label, edge), nids in groups
        ],
    }


def format_misses(project: str, score: dict) -> str:
    """The per-function breakdown of `--misses`: functions with most missed tests first."""
    rows = sorted(score.get("misses", ()), key=lambda m: (-m["missed"], m["uid"]))
    out = [f"== {project}: {len(rows)} functions whose tests are not all named (depth 3)"]
    # the breaks that stop most functions from having all their tests named: `only` counts
    # the functions whose every missed test goes through this break, `alone` those of them
    # where no further break lies behind it on any of those tests' paths (mending it alone
    # names them all, the depth bound aside), `touched` those it is one of
    only: Counter = Counter()
    alone: Counter = Counter()
    touched: Counter = Counter()
    for m in rows:
        keys = {(b["label"], b["edge"]) for b in m["breaks"]}
        touched.update(keys)
        if len(keys) == 1:
            only.update(keys)
            if not any(b.get("behind") for b in m["breaks"]):
                alone.update(keys)
    out.append("breaks by functions (alone / only / touched):")
    for key in sorted(touched, key=lambda k: (-alone[k], -only[k], -touched[k], k))[:60]:
        label, edge = key
        out.append(f"  {alone[key]:>4} {only[key]:>4} {touched[key]:>4}  {label}  {edge}")
    for m in rows:
        out.append(f"{m['uid']}  missed {m['missed']}/{m['truth']}  [{m['completeness']}]")
        for b in m["breaks"]:
            edge = f"  {b['edge']}" if b["edge"] else ""
            more = f"  ({b['behind']} with a further break behind)" if b.get("behind") else ""
            out.append(f"    {b['tests']:>4}  {b['label']}{edge}{more}")
            out.append(f"          e.g. {', '.join(b['sample'])}")
    return "\n".join(out)


def format_tests(project: str, score: dict) -> str:
    out = [
        f"== {project}: tests to run, per executed package function "
        f"({score['functions']} functions, suite of {score['suite']} items)",
        f"{'selection':<52} {'micro':>6} {'all named':>10} {'selected':>9} {'none named':>11}"
        f" {'exact but missed':>17}",
    ]
    for r in score["rows"]:
        out.append(
            f"{r['row']:<52} {_f(r['micro']):>6} {_f(r['all_named']):>10} {_f(r['selected']):>9}"
            f" {_f(r['none_named']):>11} {r.get('exact_but_missed', '-'):>17}"
        )
    if "breaks" in score:
        out.append(
            f"missed test links ({score['missed_links']}), by the nearest break in the real path:"
        )
        for label, v in score["breaks"].items():
            out.append(f"  {v['links']:>7}  {v['share']:.2f}  {label}")
    return "\n".join(out)


def _f(x) -> str:
    return "-" if x is None else f"{x:.2f}"
