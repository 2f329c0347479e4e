"""The Python call-resolution corpus (tests/lang/python/corpus): check it, score codeimpact on it.

    python benchmarks/score_corpus.py check            # run every case: executed == asserted?
    python benchmarks/score_corpus.py score            # index every case, precision/recall per construct
    python benchmarks/score_corpus.py score -k decorators --cases   # one construct, per case

`check` needs no index: it runs the cases under the trace recorder (truth/corpus_check.py).
`score` indexes each case with this checkout's codeimpact (truth/corpus_score.py).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from truth.corpus import load_corpus  # noqa: E402
from truth.corpus_check import check_case, run_cases  # noqa: E402
from truth.corpus_score import by_construct, format_scores, score_corpus  # noqa: E402

CORPUS = HERE.parent / "tests" / "lang" / "python" / "corpus"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=("check", "score"))
    parser.add_argument("-k", dest="select", help="only cases whose name contains this")
    parser.add_argument("--corpus", default=str(CORPUS))
    parser.add_argument("--cases", action="store_true", help="score: also print each case")
    parser.add_argument("--json", help="score: write the per-construct table here")
    args = parser.parse_args(argv)
    cases = [c for c in load_corpus(Path(args.corpus)) if not args.select or args.select in c.name]
    if args.command == "check":
        with tempfile.TemporaryDirectory(prefix="corpus-check-") as tmp:
            truths = run_cases(cases, Path(tmp))
            bad = 0
            for c in cases:
                problems = check_case(c, truths[c.name])
                if problems:
                    bad += 1
                    print(f"FAIL {c.name}")
                    for p in problems:
                        print(f"     {p}")
        print(f"{len(cases) - bad} of {len(cases)} cases run as asserted")
        return 1 if bad else 0
    scores = score_corpus(cases)
    if args.cases:
        for s in scores:
            mark = "ok  " if s.fp == 0 and s.fn == 0 else "    "
            print(f"{mark}{s.case}: tp {s.tp} fp {s.fp} fn {s.fn}")
            for e in sorted(s.expected - s.found):
                print(f"        missed {e[0]} -> {e[1]}")
            for e in sorted(s.found - s.expected):
                print(f"        wrong  {e[0]} -> {e[1]} ({s.reasons.get(e)})")
    table = by_construct(scores)
    print(format_scores(table))
    if args.json:
        Path(args.json).write_text(json.dumps(table, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
