"""Raw hook output -> the truth document: code objects mapped to definitions (uids).

A code object is named by (file, ``co_firstlineno``, ``co_qualname``). It maps to the
definition of that file that starts on that line with the last name of the
qualname (a decorated def's ``co_firstlineno`` is its first decorator line, where
its definition starts too). A lambda, comprehension or generator expression
(``f.<locals>.<lambda>``, ``C.<listcomp>``) folds into the innermost definition that
holds its line and has the name before it (``f``, ``C``), or the module: what it
executes counts as executed by that definition, calls made inside it are calls of
that definition, and a call *of* it is not an edge (it would be a call of the
enclosing definition, which never happened). ``<module>`` is the module.

Truth document (``schema: codeimpact.truth/1``)::

    {"schema", "project", "version", "python", "rules": [str, ...],
     "suite": {"exit": int, "tests": int, "outcomes": {outcome: count}},
     "definitions": [[uid, kind, is_test], ...],        # everything executed; index = id
     "externals": ["module:qualname", ...],
     "edges": [[caller, callee, kind, via, [line, ...]], ...],
         # kind "call": callee is a function/method that ran; "construct": callee is
         # the class of a `C(...)` that ran a project __init__/__new__/__post_init__.
         # via: null = called directly, else an index into externals.
         # lines: the caller's lines (for `via`, the project frame's line)
     "tests": {nodeid: {"outcome": str, "executed": [definition id, ...],
                        "entries": [definition id, ...]}},  # run by pytest: test, fixtures
     "outside": [definition id, ...],                  # executed while collecting
     "unmapped": [[path, line, qualname], ...]}
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

from truth.symtab import Definition, FileTable, file_table

SCHEMA = "codeimpact.truth/1"
TEST_PATH = re.compile(r"(^|/)(tests?|testing)/|(^|/)test_[^/]*\.py$|_test\.py$|(^|/)conftest\.py$")
RULES = [
    "edges run from the nearest project frame below the callee (module top level, class body, "
    "function or method) to a project function or method that started running",
    "via: the innermost external function between them, when the call went through external "
    "code; frames of code compiled from '<string>' (dataclass, namedtuple methods) are transparent",
    "C(...) that runs a project __init__/__new__/__post_init__ adds a 'construct' edge to C "
    "(the class of the object, so an inherited __init__ still names the class constructed); "
    "a class with no Python constructor runs no frame and is not seen",
    "lambdas and comprehensions fold into the enclosing definition: calls made in them are "
    "its calls, calls of them are not edges",
    "a generator's edge is recorded on its first resume, from the frame that resumed it",
    "a test item's executed set is everything that ran from its setup to its teardown, "
    "fixtures included (a module- or session-scoped fixture counts for the first test "
    "that set it up); code run at collection is 'outside'",
    "subprocesses are not traced",
]


def is_test_path(path: str) -> bool:
    return bool(TEST_PATH.search(path))


class _Mapper:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.tables: dict[str, FileTable | None] = {}

    def table(self, path: str) -> FileTable | None:
        if path not in self.tables:
            self.tables[path] = file_table(self.root, path)
        return self.tables[path]

    def map(self, path: str, line: int, qualname: str) -> tuple[Definition, bool] | None:
        """(definition, folded?) of a code object; None when its file is not parsed."""
        table = self.table(path)
        if table is None:
            return None
        if qualname == "<module>":
            return table.module, False
        parts = [p for p in qualname.split(".") if p != "<locals>"]
        cut = next((i for i, p in enumerate(parts) if p.startswith("<")), len(parts))
        folded = cut < len(parts)
        named = parts[:cut]
        if not folded:
            d = table.by_start.get((line, named[-1]))
            if d is not None:
                return d, False
        if not named:
            return table.module, True
        d = table.innermost(line, named[-1])
        if d is None:
            return None
        return d, folded


def build_truth(raw: dict, root: Path, project: str, version: str) -> dict:
    mapper = _Mapper(root)
    mapped: list[tuple[Definition, bool] | None] = [
        mapper.map(path, line, qual) for path, line, qual in raw["codes"]
    ]
    unmapped = [code for code, m in zip(raw["codes"], mapped) if m is None]

    ids: dict[str, int] = {}
    definitions: list[list] = []

    def def_id(d: Definition) -> int:
        i = ids.get(d.uid)
        if i is None:
            i = ids[d.uid] = len(definitions)
            definitions.append([d.uid, d.kind, is_test_path(d.file)])
        return i

    edges: dict[tuple, set[int]] = defaultdict(set)
    for caller, callee, via, line in raw["edges"]:
        a, b = mapped[caller], mapped[callee]
        if a is None or b is None or b[1] or b[0].kind not in ("function", "method"):
            continue  # unmapped, a folded lambda/comprehension, a module or class body
        key = (def_id(a[0]), def_id(b[0]), "call", None if via < 0 else via)
        edges[key].add(line)
    class_tables: dict[tuple[str, str], Definition | None] = {}
    for caller, cpath, cqual, via, line in raw["constructs"]:
        a = mapped[caller]
        if a is None:
            continue
        if (cpath, cqual) not in class_tables:
            class_tables[(cpath, cqual)] = _class_def(mapper, cpath, cqual)
        cls = class_tables[(cpath, cqual)]
        if cls is None:
            continue
        edges[(def_id(a[0]), def_id(cls), "construct", None if via < 0 else via)].add(line)

    def executed(codes: list[int]) -> list[int]:
        return sorted({def_id(mapped[c][0]) for c in codes if mapped[c] is not None})

    tests = {
        nodeid: {
            "outcome": t["outcome"],
            "executed": executed(t["codes"]),
            "entries": executed(t.get("entries", [])),
        }
        for nodeid, t in sorted(raw["tests"].items())
    }
    outside = executed(raw["outside"])
    outcomes: dict[str, int] = defaultdict(int)
    for t in tests.values():
        outcomes[t["outcome"]] += 1
    return {
        "schema": SCHEMA,
        "project": project,
        "version": version,
        "python": raw["python"],
        "rules": RULES,
        "suite": {"exit": raw["exit"], "tests": len(tests), "outcomes": dict(outcomes)},
        "definitions": definitions,
        "externals": raw["externals"],
        "edges": [[*k, sorted(lines)] for k, lines in sorted(edges.items(), key=_edge_order)],
        "tests": tests,
        "outside": outside,
        "unmapped": unmapped,
    }


def _edge_order(item) -> tuple:
    (a, b, kind, via), _ = item
    return (a, b, kind, -1 if via is None else via)


def _class_def(mapper: _Mapper, path: str, qualname: str) -> Definition | None:
    """The class named by a module file and ``__qualname__`` (``f.<locals>.C`` too)."""
    table = mapper.table(path)
    if table is None:
        return None
    parts = [p for p in qualname.split(".") if p != "<locals>"]
    candidates = [d for d in table.defs if d.kind == "class" and d.name == parts[-1]]
    exact = [
        d for d in candidates if re.sub(r"#\d+", "", d.uid.split("::", 1)[1]) == ".".join(parts)
    ]
    pick = exact or candidates
    return pick[0] if len(pick) == 1 else None
