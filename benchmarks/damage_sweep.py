"""Every kind of damage to every file of an index: the sweep tests/test_damage.py samples.

    python benchmarks/damage_sweep.py [--repo REPO] [--where 0.0,0.5,0.99] [--kinds ...]

Without --repo the small repository of tests/damage.py is built in a temporary folder;
with one (e.g. a copy of Django, already indexed), its index is used as the template.
Each case copies the template, damages one file (flip one bit, truncate, zero 4 KB,
delete) at each relative position, asks the questions of tests/damage.py in a child
process, then runs a plain `graph analyze` and asks again. Prints one line per case that
went wrong (a crash, a different answer, an internal error, a damaged file called fresh,
a failed repair) and a summary; exits 1 if any did. With --repo, the questions are
--question NAME=ARGS (repeatable), e.g. `--question "impact=impact django.utils.crypto.salted_hmac --json"`.
"""

from __future__ import annotations

import argparse
import shlex
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import damage  # noqa: E402 - tests/ is no package


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repo", type=Path)
    ap.add_argument("--where", default="0.0,0.5,0.99")
    ap.add_argument("--kinds", default=",".join(damage.KINDS))
    ap.add_argument("--question", action="append", default=[])
    ap.add_argument("--files", default="", help="only index files whose name contains this")
    args = ap.parse_args()
    if args.question:
        damage.QUESTIONS = tuple(
            (q.split("=", 1)[0], shlex.split(q.split("=", 1)[1])) for q in args.question
        )
    where = [float(w) for w in args.where.split(",")]
    kinds = args.kinds.split(",")
    with tempfile.TemporaryDirectory(prefix="damage-sweep-") as tmp:
        root = Path(tmp)
        template = args.repo.resolve() if args.repo else damage.build(root)
        good = damage.ask(template)
        if good.crash or any(v[0] != 0 for k, v in good.by_question.items() if k != "status"):
            print(f"the undamaged index does not answer: {good}")
            return 2
        fresh = good.by_question["status"]  # a real tree may be stale (parse errors): kept
        files = [f for f in damage.index_files(template) if args.files in f]
        outcomes: Counter = Counter()
        bad = 0
        started = time.perf_counter()
        n = 0
        for name in files:
            for kind in kinds:
                for w in [0.0] if kind == "delete" else where:
                    n += 1
                    case = root / f"case-{n}"
                    copy = damage.copy_index(template, case / "repo")
                    changed = damage.damage(copy / ".codeimpact" / name, kind, w, 4096)
                    got = damage.ask(copy)
                    found = damage.problems(good, got, changed, damage.covered(name))
                    refused = sum(v[0] == 2 for k, v in got.by_question.items() if k != "status")
                    proc = damage.graph("analyze", "--index-only", str(copy))
                    after = damage.ask(copy)
                    if proc.returncode != 0:
                        found.append(f"analyze exited {proc.returncode}: {proc.stderr.strip()}")
                    elif (
                        after.crash
                        or after.by_question["status"][:1] != fresh[:1]
                        or ("damaged" in after.by_question["status"][2])
                    ):
                        found.append(f"not repaired: {after.crash or after.by_question['status']}")
                    else:
                        found += [
                            f"after repair: {p}" for p in damage.problems(good, after, False, False)
                        ]
                    outcomes["bad" if found else ("refused" if refused else "answered")] += 1
                    if found:
                        bad += 1
                        print(f"{name} {kind}@{w}: " + "; ".join(found), flush=True)
                    shutil.rmtree(case, ignore_errors=True)
        print(
            f"{n} cases over {len(files)} files in {time.perf_counter() - started:.0f} s: "
            + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items()))
        )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
