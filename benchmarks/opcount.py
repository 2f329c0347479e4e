"""Where a resolution's bytecodes go, per Python function: counted, not sampled.

    python benchmarks/resolve_one.py prep /work/src/django-5.2.8 -o /tmp/dj.facts
    python benchmarks/opcount.py run /tmp/dj.facts --every 4 -o /tmp/op.json   # ~1 min
    python benchmarks/opcount.py show /tmp/op.json [self|incl|lines NAME|callees NAME|callers NAME]

`run` resolves as resolve_one.py does (the same digest) under a `sys.settrace` hook that
counts every bytecode executed (frame.f_trace_opcodes) for its function: self, inclusive of
its outermost calls (a recursion counted once), by line, and per caller -> callee. The
counts do not depend on the machine's load, and unlike cProfile's times they are not
inflated per call; they leave out what C does under a bytecode (a dict probe, a hash, an
allocation: ~70 instructions per bytecode on average in Django's resolution, ~10 for the
simplest), so confirm a change's gain with resolve_one.py's callgrind count.
"""

from __future__ import annotations

import argparse
import json
import linecache
import os
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import resolve_one  # noqa: E402 (this directory's script, a module here)


class _Counts:
    def __init__(self) -> None:
        self.total = 0
        self.self: Counter = Counter()
        self.incl: Counter = Counter()
        self.calls: Counter = Counter()
        self.edge: Counter = Counter()
        self.line: Counter = Counter()
        self.stack: list = []  # (code, total at entry, caller code)
        self.active: Counter = Counter()

    def local(self, frame, event, arg):
        if event == "opcode":
            self.total += 1
            code = frame.f_code
            self.self[code] += 1
            self.line[(code, frame.f_lineno)] += 1
        elif event == "return":
            code, start, caller = self.stack.pop()
            self.active[code] -= 1
            if not self.active[code]:
                self.incl[code] += self.total - start
            if caller is not None:
                self.edge[(caller, code)] += self.total - start
        return self.local

    def call(self, frame, event, arg):
        if event != "call":
            return None
        frame.f_trace_opcodes = True
        code = frame.f_code
        self.stack.append((code, self.total, self.stack[-1][0] if self.stack else None))
        self.active[code] += 1
        self.calls[code] += 1
        return self.local

    def as_json(self) -> dict:
        def name(c) -> str:
            return f"{c.co_filename}:{c.co_firstlineno}:{c.co_qualname}"

        return {
            "total": self.total,
            "functions": {name(c): [self.self[c], self.incl[c], self.calls[c]] for c in self.calls},
            "edges": [[name(a), name(b), v] for (a, b), v in self.edge.items()],
            "lines": [[name(c), line, v] for (c, line), v in self.line.items()],
        }


def run(facts: Path, every: int, out: Path) -> None:
    counts = _Counts()
    resolve = resolve_one.resolve_some

    def traced(*args):
        sys.settrace(counts.call)
        try:
            return resolve(*args)
        finally:
            sys.settrace(None)

    resolve_one.resolve_some = traced
    resolve_one.run(facts, every, None, None)
    out.write_text(json.dumps(counts.as_json()))
    print(f"\n{counts.total} bytecodes -> {out}")


def _short(name: str) -> str:
    path, first, qual = name.rsplit(":", 2)
    return f"{os.path.basename(path)}:{first}:{qual}"


def show(data: Path, what: str, pattern: str | None, n: int) -> None:
    d = json.loads(data.read_text())
    total = d["total"]
    fns = d["functions"]
    print(f"{total} bytecodes")
    if what in ("self", "incl"):
        at = 0 if what == "self" else 1
        for k, v in sorted(fns.items(), key=lambda kv: -kv[1][at])[:n]:
            print(f"{v[at] / 1e6:8.2f}M {100 * v[at] / total:5.1f}%  self {v[0] / 1e6:6.2f}M "
                  f"calls {v[2]:7d}  {_short(k)}")  # fmt: skip
    elif what == "lines":
        rows = [r for r in d["lines"] if pattern in r[0]]
        for name, line, v in sorted(rows, key=lambda r: -r[2])[:n]:
            text = linecache.getline(name.rsplit(":", 2)[0], line).strip()
            print(f"{v / 1e3:8.0f}K {line:5d}  {text[:100]}")
    else:  # callees / callers of the functions matching `pattern`
        side = 0 if what == "callees" else 1
        rows = [e for e in d["edges"] if pattern in e[side]]
        for a, b, v in sorted(rows, key=lambda e: -e[2])[:n]:
            print(f"{v / 1e6:8.2f}M  {_short(a)} -> {_short(b)}")


def main() -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("facts", type=Path)
    r.add_argument("--every", type=int, default=4)
    r.add_argument("-o", type=Path, required=True)
    s = sub.add_parser("show")
    s.add_argument("data", type=Path)
    s.add_argument("what", nargs="?", default="incl",
                   choices=("self", "incl", "lines", "callees", "callers"))  # fmt: skip
    s.add_argument("pattern", nargs="?", default="")
    s.add_argument("-n", type=int, default=40)
    a = ap.parse_args()
    if a.cmd == "run":
        run(a.facts, a.every, a.o)
        sys.stdout.flush()
        os._exit(0)  # (as resolve_one: no teardown of the indexes)
    show(a.data, a.what, a.pattern, a.n)


if __name__ == "__main__":
    main()
