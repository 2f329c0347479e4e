"""Language tests as data: annotated fixture sources, read and checked against a real index.

A fixture is one source file holding a small multi-file project. A `path:` comment line
starts each file of the project (the lines up to the next marker are its content; comment
lines before the first marker are the fixture's header):

    # path: pkg/mod.py
    def f():
        pass
    # path: pkg/main.py
    from pkg.mod import f
    # ^ imports: pkg.mod.f

    def g():
        f()
      # ^ calls: pkg.mod.f (import)

An assertion is a comment line whose `^` stands under a column of the nearest source line
above it, or whose `v` stands over a column of the nearest source line below it (for lines
nothing may follow, such as a decorator or an annotation, whose definition must come next).
Assertion lines are comments and stay in the indexed file, so line numbers are the
fixture's own. It says `relation: target`, where the target is a qualified name (or a
uid, or `<external>::dotted`) and may end with `(reason)`:

- `calls: T` - a call at that line resolves to T. Every CALLS edge at a line that has
  `calls:` assertions must be asserted: an extra edge fails too. `calls: -` says the line
  makes no CALLS edge at all; `!calls: T` that it makes none to T.
- `imports: T`, `references: T` - an IMPORTS / REFERENCES edge at that line (`!` negates).
- `extends: T`, `implements: T` - a definition starting at that line has that EXTENDS /
  IMPLEMENTS edge (`!` negates).
- `defines: T [kind] [N-M] [exported|unexported]` - a definition with that qualified name
  (and kind) starts at that line (N, the line itself) and ends at line M, and is (not)
  exported. A file's own module symbol is asserted at its line 1 (its name is nowhere
  written, so the column is free).
- `in: T` - the definition starting at that line is contained by T (a CONTAINS edge from T).

An edge's assertion may end with `from S`: the edge's source is S (the scope that calls, a
module's own calls: `calls: react.forwardRef (import) from ui/Button`).
- `unresolved: name` - an unresolved call site named `name` at that line.

A `calls:` target may end with `[static]`: a call the fixture's code makes on a path its
run does not take (a branch, a callback run by a thread). The index must have it all the
same; only the corpus's run check (benchmarks/truth/corpus_check.py) reads the flag.

A header line `exact: calls` (or `exact: calls, imports, ...`) makes every edge of those
relations in the project an edge that must be asserted, so a wrong extra edge fails as
surely as a missing one; `exact: defines` does the same for every definition of the
project's files, `exact: in` for every CONTAINS edge into them. A header line `expect: calls.builtin = 1` checks a count of the analyze report (`calls.*`,
`edges.*`), for what no single line shows (calls into the language's builtins).

The column of `^` is in the asserted text (the callee of a call, the name of a definition),
or just after it when that text starts at column 0 or 1, where the comment sign stands; the
harness checks that a definition's name is written there, so an annotation cannot drift off
its line unnoticed. `#` and `//` comments both work, so one
format serves every language.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

MARKER = re.compile(r"^\s*(?:#|//)\s*path:\s*(\S+)\s*$")
EXACT = re.compile(r"^\s*(?:#|//)\s*exact:\s*([a-z, ]+?)\s*$")
EXPECT = re.compile(r"^\s*(?:#|//)\s*expect:\s*([a-z_]+)\.([a-z_]+)\s*=\s*(\d+)\s*$")
ASSERTION = re.compile(r"^\s*(?:#|//)\s*([\^v])\s+(!?)([a-z-]+):\s*(.*?)\s*$")
REASON = re.compile(r"^(.*?)\s*\(([a-z-]+)\)$")
STATIC = re.compile(r"^(.*?)\s*\[static\]$")
CALLER = re.compile(r"^(.*?)\s+from\s+(\S+)$")
RELATIONS = {
    "calls": "CALLS",
    "imports": "IMPORTS",
    "references": "REFERENCES",
    "extends": "EXTENDS",
    "implements": "IMPLEMENTS",
    "in": "CONTAINS",
    "defines": None,
    "unresolved": None,
}
SPAN = re.compile(r"^(\d+)-(\d+)$")
_NAME = re.compile(r"[A-Za-z_$][\w$]*")


@dataclass
class Assertion:
    path: str  # the project file
    line: int  # 1-based line of the source line it is about
    column: int  # 0-based column of `^`
    relation: str  # calls, imports, ...
    target: str
    negated: bool = False
    reason: str = ""  # `(reason)` when given
    kind: str = ""  # defines: the kind, when given
    fixture_line: int = 0  # where the assertion stands in the fixture file
    static: bool = False  # `[static]`: not on the path the fixture's run takes
    end: int = 0  # defines: the end line, when given
    exported: bool | None = None  # defines: `exported` / `unexported`, when given
    caller: str = ""  # `from S`: the edge's source, when given

    def describe(self) -> str:
        neg = "!" if self.negated else ""
        extra = f" ({self.reason})" if self.reason else f" {self.kind}" if self.kind else ""
        if self.end:
            extra += f" {self.line}-{self.end}"
        if self.exported is not None:
            extra += " exported" if self.exported else " unexported"
        if self.caller:
            extra += f" from {self.caller}"
        return f"{self.path}:{self.line}:{self.column} {neg}{self.relation}: {self.target}{extra}"


@dataclass
class Fixture:
    source: Path
    files: dict[str, str] = field(default_factory=dict)  # path -> content
    assertions: list[Assertion] = field(default_factory=list)
    # header `expect: calls.unresolved = 3`: (report attribute, key) -> count
    expect: dict[tuple[str, str], int] = field(default_factory=dict)
    # header `exact: calls, references`: every such edge of the project must be asserted
    exact: set[str] = field(default_factory=set)


def parse(source: Path) -> Fixture:
    """The project files and assertions of one fixture file."""
    fx = Fixture(source)
    current: str | None = None
    lines: list[str] = []
    last_source: int = 0  # line (in the current file) of the last non-assertion line

    def flush() -> None:
        if current is not None:
            fx.files[current] = "\n".join(lines) + "\n"

    pending: list[Assertion] = []  # `v` assertions waiting for the line below them
    for n, text in enumerate(source.read_text().splitlines(), 1):
        m = MARKER.match(text)
        if m:
            flush()
            current, lines, last_source, pending = m.group(1), [], 0, []
            continue
        if current is None:  # a header: what the fixture is about, in comments
            if text.strip() and not text.lstrip().startswith(("#", "//")):
                raise ValueError(f"{source}:{n}: code before the first `path:` line")
            e = EXPECT.match(text)
            if e:
                fx.expect[(e.group(1), e.group(2))] = int(e.group(3))
            x = EXACT.match(text)
            if x:
                fx.exact |= {w.strip() for w in x.group(1).split(",") if w.strip()}
            continue
        lines.append(text)
        a = ASSERTION.match(text)
        if a is None or a.group(3) not in RELATIONS:
            last_source = len(lines)
            for p in pending:
                p.line = last_source
            pending = []
            continue
        marker, negated, relation, target = a.groups()
        if marker == "^" and last_source == 0:
            raise ValueError(f"{source}:{n}: an assertion with no source line above it")
        reason, kind, caller = "", "", ""
        c = CALLER.match(target)
        if c and relation in RELATIONS and RELATIONS[relation]:
            target, caller = c.group(1), c.group(2)
        s = STATIC.match(target)
        if s:
            target = s.group(1)
        r = REASON.match(target)
        if r:
            target, reason = r.group(1), r.group(2)
        end, exported = 0, None
        if relation == "defines" and " " in target:
            target, *words = target.split()
            for word in words:
                span = SPAN.match(word)
                if span:
                    end = int(span.group(2))
                    if marker == "^" and int(span.group(1)) != last_source:
                        raise ValueError(f"{source}:{n}: the span starts at {span.group(1)}, "
                                         f"the line above is {last_source}")  # fmt: skip
                elif word in ("exported", "unexported"):
                    exported = word == "exported"
                elif not kind:
                    kind = word
                else:
                    raise ValueError(f"{source}:{n}: {word!r}: not a kind, span or flag")
        column = text.index(marker, len(text) - len(text.lstrip()) + 1)
        found = Assertion(current, last_source, column, relation, target, negated == "!",
                          reason, kind, n, s is not None, end, exported, caller)  # fmt: skip
        fx.assertions.append(found)
        if marker == "v":
            pending.append(found)
    if pending:
        raise ValueError(f"{source}: a `v` assertion with no source line below it")
    flush()
    if not fx.files:
        raise ValueError(f"{source}: no `path:` line")
    return fx


_CHAIN = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)*")


def project_files(source: Path) -> dict[str, str]:
    """The project of a fixture as it is without its assertion lines: tests that need the
    project itself (its definitions' lines, an incremental edit) read it from the fixture."""
    out = {}
    for path, content in parse(source).files.items():
        kept = [ln for ln in content.splitlines() if not _is_assertion(ln)]
        out[path] = "\n".join(kept) + "\n"
    return out


def _is_assertion(line: str) -> bool:
    a = ASSERTION.match(line)
    return a is not None and a.group(3) in RELATIONS


def text_at(fx: Fixture, a: Assertion) -> str:
    """The dotted name written at the assertion's column (`self.helper`, `pkg.f`, `Foo`):
    the one the column falls in, else the nearest one before it (a `^` cannot stand under
    column 0 or 1, where the comment sign is)."""
    line = fx.files[a.path].splitlines()[a.line - 1]
    best = ""
    for m in _CHAIN.finditer(line):
        if m.start() > a.column:
            break
        best = m.group(0)
    return best


class Graph:
    """What the checks read of an index: symbols by uid and edges with their lines."""

    def __init__(self, repo: Path):
        from codeimpact.graph.schema import REL_TABLES
        from codeimpact.query.index import Index

        with Index.open(repo) as index:
            reader = index.reader
            _, rows = reader.query(
                "MATCH (s:Symbol) RETURN s.uid, s.qualified_name, s.kind, s.file, s.start_line, "
                "s.end_line, s.exported"
            )
            self.symbols = {r[0]: tuple(r[1:5]) for r in rows}
            self.ends = {r[0]: (r[5], r[6]) for r in rows}  # uid -> (end line, exported)
            self.edges: list[tuple] = []  # (rel, src uid, dst uid, line, reason)
            for rel, (src, _dst, props) in REL_TABLES.items():
                if src != "Symbol":
                    continue
                names = [p for p, _ in props]
                line = "r.line" if "line" in names else "-1"
                reason = "r.reason" if "reason" in names else "''"
                _, rows = reader.query(
                    f"MATCH (a)-[r:{rel}]->(b) RETURN a.uid, b.uid, {line}, {reason}"
                )
                self.edges += [(rel, *row) for row in rows]
        from codeimpact.graph import layout
        from codeimpact.graph.sidecar import read_unresolved

        self._flows: dict | None = None
        gen = layout.read_current(layout.index_dir(repo))
        self.unresolved = [
            (scope, name, line)
            for name, sites in read_unresolved(gen.path).items()
            for scope, line in sites
        ]

    def names(self, uid: str) -> set[str]:
        """What an assertion may call a symbol: its uid and its qualified name."""
        qn = self.symbols.get(uid, (uid,))[0]
        return {uid, qn}

    def file_of(self, uid: str) -> str:
        return uid.split("::", 1)[0]

    def owners(self, edge: tuple) -> set[str]:
        """The files whose line an edge's line is. A CALLS edge of value flow runs from the
        callee (where it calls its parameter) to the function passed, at the line of the
        call that passed it: that line is in the files that passed the function there."""
        rel, src, dst, line, reason = edge
        if rel == "CALLS" and reason == "value-flow":
            if self._flows is None:
                self._flows = {}
                for e in self.edges:
                    if e[0] == "REFERENCES" and e[4] == "value-flow":
                        self._flows.setdefault((e[2], e[3]), set()).add(self.file_of(e[1]))
            return self._flows.get((dst, line), set())
        return {self.file_of(src)}


def check(fx: Fixture, graph: Graph, report=None) -> list[str]:
    """Every failed assertion, described (`report`: the AnalyzeReport, for `expect:`)."""
    failures: list[str] = []
    for (attr, key), want in fx.expect.items():
        got = getattr(report, attr, {}).get(key) if report is not None else None
        if got != want:
            failures.append(f"{fx.source.name}: expect {attr}.{key} = {want}, got {got}")
    asserted_calls: dict[tuple[str, int], list[Assertion]] = {}
    for a in fx.assertions:
        if a.relation == "calls" and not a.negated:
            asserted_calls.setdefault((a.path, a.line), []).append(a)
        problem = _check_one(fx, graph, a)
        if problem:
            failures.append(f"{fx.source.name}:{a.fixture_line}: {a.describe()}: {problem}")
    # exactness: a line with `calls:` assertions makes those calls and no others; under
    # `exact: <relation>` every edge of that relation in the project is asserted
    asserted: dict[tuple[str, str, int], list[str]] = {}
    for a in fx.assertions:
        if not a.negated and a.relation in RELATIONS and RELATIONS[a.relation]:
            asserted.setdefault((RELATIONS[a.relation], a.path, a.line), []).append(a.target)
    for edge in graph.edges:
        rel, src, dst, eline, reason = edge
        word = next((w for w, r in RELATIONS.items() if r == rel), "")
        owners = graph.owners(edge)
        if rel in ("EXTENDS", "IMPLEMENTS"):
            eline = graph.symbols.get(src, ("", "", "", 0))[3]
        elif rel == "CONTAINS":  # asserted at the contained definition, naming its container
            eline = graph.symbols.get(dst, ("", "", "", 0))[3]
            owners, src, dst = {graph.file_of(dst)}, dst, src
        for path in sorted(owners & fx.files.keys()):
            key = (rel, path, eline)
            if word not in fx.exact and (rel != "CALLS" or (path, eline) not in asserted_calls):
                continue
            if not any(t in graph.names(dst) for t in asserted.get(key, ())):
                qn = graph.symbols.get(dst, (dst,))[0]
                failures.append(
                    f"{fx.source.name}: {path}:{eline}: unasserted {word} {qn}"
                    + (f" ({reason})" if reason else "")
                )
    if "defines" in fx.exact:
        defined = {(a.path, a.line, a.target) for a in fx.assertions
                   if a.relation == "defines" and not a.negated}  # fmt: skip
        for uid, (qn, kind, path, start) in sorted(graph.symbols.items()):
            if path not in fx.files or not fx.files[path].strip():  # (an empty file's module)
                continue
            if not any((path, start, t) in defined for t in graph.names(uid)):
                failures.append(f"{fx.source.name}: {path}:{start}: unasserted defines {qn} {kind}")
    return failures


def _edges_at(graph: Graph, a: Assertion, rel: str) -> list[tuple]:
    return [e for e in graph.edges
            if e[0] == rel and e[3] == a.line and a.path in graph.owners(e)]  # fmt: skip


def _defined_at(graph: Graph, a: Assertion) -> list[str]:
    """uids of the definitions that start at the assertion's line, innermost first."""
    found = [(uid.count("."), uid) for uid, (_qn, _kind, file, start) in graph.symbols.items()
             if file == a.path and start == a.line]  # fmt: skip
    return [uid for _, uid in sorted(found, reverse=True)]


_CONSTRUCTORS = {"__init__", "constructor", "<init>", "new"}


def _written_names(target: str) -> list[str]:
    """The names a definition's text may show for its qualified name or uid: its last part
    without an overload's `#2`, or for a constructor also its class's name (Java's `<init>`
    is written `Circle(...)`); none for an anonymous class (`$1`)."""
    parts = re.split(r"\.|::|/", target)
    last = parts[-1].split("#", 1)[0]
    if last.startswith("$"):
        return []
    return [last, parts[-2]] if last in _CONSTRUCTORS and len(parts) > 1 else [last]


def _check_one(fx: Fixture, graph: Graph, a: Assertion) -> str:
    written = text_at(fx, a)
    if a.relation == "unresolved":
        found = any(graph.file_of(s) == a.path and line == a.line and name == a.target
                    for s, name, line in graph.unresolved)  # fmt: skip
        return "" if found != a.negated else ("found" if found else "no such unresolved site")
    if a.relation == "defines":
        named = [u for u in _defined_at(graph, a) if a.target in graph.names(u)]
        names = _written_names(a.target)
        # a file's module and an anonymous class (`$1`) are named nowhere in the text, and a
        # definition starting at its decorator (`@Override`, `#[test]`) not on that line
        source_line = fx.files[a.path].splitlines()[a.line - 1].lstrip()
        unwritten = (bool(named) and all(u.endswith("::") for u in named) or not names
                     or source_line.startswith(("@", "#[")))  # fmt: skip
        if re.split(r"\.|::", written)[-1] not in names and not a.negated and not unwritten:
            return f"the text at the column is {written!r}, not {names[0]!r}"  # `A::m` in C++
        hits = [u for u in named if (not a.kind or graph.symbols[u][1] == a.kind)
                and (not a.end or graph.ends[u][0] == a.end)
                and (a.exported is None or graph.ends[u][1] == a.exported)]  # fmt: skip
        if bool(hits) == a.negated:
            if hits:
                return "defined"
            if named:
                u = named[0]
                return f"not defined here so ({graph.symbols[u][1]} to line {graph.ends[u][0]}, " + (
                    "exported)" if graph.ends[u][1] else "unexported)")  # fmt: skip
            return f"not defined here (defined: {_defined_at(graph, a)})"
        return ""
    rel = RELATIONS[a.relation]
    if a.relation == "in":
        defs = set(_defined_at(graph, a))
        if not defs:
            return "no definition starts at this line"
        edges = [
            (e[0], e[2], e[1], e[3], e[4]) for e in graph.edges if e[0] == rel and e[2] in defs
        ]
    elif a.relation in ("extends", "implements"):
        defs = set(_defined_at(graph, a))
        if not defs:
            return "no definition starts at this line"
        edges = [e for e in graph.edges if e[0] == rel and e[1] in defs]
    else:
        edges = _edges_at(graph, a, rel)
    if a.target == "-":
        found = [graph.symbols.get(e[2], (e[2],))[0] for e in edges]
        return f"found {found}" if edges else ""
    if a.relation == "calls" and not a.negated and not written:
        return "no name at the column of ^"
    hits = [e for e in edges if a.target in graph.names(e[2])
            and (not a.caller or a.caller in graph.names(e[1]))]  # fmt: skip
    if a.negated:
        return "found" if hits else ""
    if not hits:
        found = sorted({graph.symbols.get(e[2], (e[2],))[0] + (f" ({e[4]})" if e[4] else "")
                        + (f" from {graph.symbols.get(e[1], (e[1],))[0]}" if a.caller else "")
                        for e in edges})  # fmt: skip
        return f"not found (found at this line: {found})"
    if a.reason and not any(e[4] == a.reason for e in hits):
        return f"reason {sorted({e[4] for e in hits})}, not {a.reason}"
    return ""
