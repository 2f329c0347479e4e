"""What an impact question takes and gives: the relations and directions it walks, the
depth labels, the risk thresholds and list limits, the checks of its parameters, and the
result dataclasses of impact and blast radius (their JSON shapes, docs/json.md)."""

from __future__ import annotations

from dataclasses import dataclass, field

from codeimpact.graph.errors import BadInput
from codeimpact.query.freshness import Freshness
from codeimpact.query.graphview import SymbolRef

RELATIONS = ("CALLS", "IMPORTS", "EXTENDS", "IMPLEMENTS", "REFERENCES")
DIRECTIONS = ("upstream", "downstream")
DEFAULT_DEPTH = 3


def depth_label(depth: int) -> str:
    if depth <= 1:
        return "WILL BREAK"
    if depth == 2:
        return "LIKELY AFFECTED"
    return "MAY NEED TESTING"


# A level is reached when a metric is >= its threshold; the risk is the highest level
# any metric reaches (LOW when none does). Documented in README.md, `## Impact`.
RISK_LEVELS = ("LOW", "MEDIUM", "HIGH", "CRITICAL")
RISK_THRESHOLDS: dict[str, tuple[int, int, int]] = {
    # metric: (MEDIUM, HIGH, CRITICAL)
    "direct": (3, 10, 30),  # dependents at depth 1
    "total": (10, 50, 200),  # dependents at every depth
    "modules": (2, 5, 10),  # folders holding dependents
    "untested": (1, 10, 50),  # dependents that no test reaches through
}

DEFAULT_LIMIT = 50  # list entries shown per group / list; counts are always complete
SAMPLE_SITES = 20  # unresolved call sites listed in `completeness` (all are counted)


# --------------------------------------------------------------------------- result shapes


@dataclass
class ImpactEntry:
    uid: str
    kind: str
    name: str
    qualified_name: str
    file: str
    line: int
    depth: int
    relation: str  # of the edge that reached this symbol
    confidence: float
    path: list[str]  # uids: this symbol, ..., the target (or the member of it reached)
    is_test: bool


@dataclass
class DepthGroup:
    depth: int
    label: str  # WILL BREAK / LIKELY AFFECTED / MAY NEED TESTING
    count: int  # all entries at this depth; `entries` may be cut by `limit`
    entries: list[ImpactEntry]


@dataclass
class PathCount:
    path: str  # a file, or a folder ("." for the repository root)
    count: int  # entries in it


@dataclass
class TestHit:
    uid: str
    kind: str
    qualified_name: str
    file: str
    line: int
    depth: int | None  # hops from the target; None when only observed coverage selected it
    path: list[str]  # uids: the test ... the target (or the member reached / seen running)
    # the id its runner accepts (pytest `path::Class::test`, ...: indexer/test_ids.py)
    run_id: str = ""
    why: str = "reaches"  # the first of `reasons`
    # reaches (a graph path), covered (observed coverage saw it run the target), changed
    reasons: list[str] = field(default_factory=lambda: ["reaches"])
    stale: bool = False  # selected only by observed links whose files changed since
    stale_reason: str | None = None


@dataclass
class Counts:
    direct: int
    total: int
    files: int
    modules: int
    tests: int  # test symbols that reach the target (any depth)
    test_files: int
    untested: int  # entries no reached test depends on (through the followed edges)


@dataclass
class Risk:
    level: str  # LOW / MEDIUM / HIGH / CRITICAL
    reasons: list[str]  # e.g. "direct 12 >= 10 (HIGH)"


@dataclass
class UnresolvedSite:
    name: str  # the callee name at the call site
    caller: str  # uid of the calling symbol
    line: int


@dataclass
class Completeness:
    # exact: no unresolved call site could add to the answer; lower-bound: some could;
    # unknown: the index has no record of its unresolved call sites.
    status: str
    unresolved_sites: int
    sites: list[UnresolvedSite] = field(default_factory=list)  # the first SAMPLE_SITES
    # what else may leave it short (e.g. tests selected only by stale observed coverage)
    reasons: list[str] = field(default_factory=list)
    # definitions on the way that code outside the repository may call with no caller in the
    # graph (query/outside.py): a special method, an override of a library base
    entered_from_outside: int = 0
    # requests of fixtures no fixture of the repository binds (a plugin's: pytest-flask's
    # `client`), whose code may run this one: upstream, by tests not in the answer;
    # downstream, by the answer's own tests and fixtures (unresolved sites `fixture:NAME`)
    unbound_fixtures: int = 0
    # functions on the way with no caller at all in the graph (no CALLS, no REFERENCES in):
    # whatever runs them is a call the graph does not resolve (query/outside.py)
    no_caller: int = 0


class Reached:
    """What impact and blast radius both answer, in JSON order after their subject
    (`target` / `targets`). Not a dataclass base: a base's fields would come first, and the
    JSON lists the fields in declaration order (codeimpact/present.py), so `after_subject`
    appends these to each result's own fields instead; subclassing it only tells readers
    and type checkers the attributes are there."""

    members: int  # CONTAINS descendants used as extra sources
    direction: str
    depth: int
    relations: list[str]
    min_confidence: float
    include_tests: bool
    counts: Counts
    risk: Risk
    completeness: Completeness
    groups: list[DepthGroup]
    files: list[PathCount]
    modules: list[PathCount]
    tests: list[TestHit]  # the first `limit` (in uid order), with one path each
    test_files: list[str]  # every file holding a test that reaches the target: what to run
    freshness: Freshness


def after_subject(cls: type) -> type:
    """`cls` with Reached's fields declared after its own (applied before @dataclass)."""
    cls.__annotations__ = {**cls.__dict__.get("__annotations__", {}), **Reached.__annotations__}
    return cls


@dataclass
@after_subject
class ImpactResult(Reached):
    target: SymbolRef


@dataclass
@after_subject
class BlastRadiusResult(Reached):
    targets: list[SymbolRef]


# --------------------------------------------------------------------------- parameters


def parse_relations(relation: str | list[str] | tuple[str, ...] | None) -> list[str]:
    """`"CALLS,IMPORTS"` or `["CALLS"]` -> canonical names; None -> all five."""
    if relation is None:
        return list(RELATIONS)
    parts = relation.split(",") if isinstance(relation, str) else list(relation)
    names: list[str] = []
    for part in parts:
        name = str(part).strip().upper()
        if not name:
            continue
        if name not in RELATIONS:
            raise BadInput(f"unknown relation {part!r}: choose from {','.join(RELATIONS)}")
        if name not in names:
            names.append(name)
    if not names:
        raise BadInput(f"no relation given: choose from {','.join(RELATIONS)}")
    return [r for r in RELATIONS if r in names]


def check_params(direction: str, depth: int, min_confidence: float, limit: int | None) -> None:
    if direction not in DIRECTIONS:
        raise BadInput(f"direction must be upstream or downstream, got {direction!r}")
    if not isinstance(depth, int) or isinstance(depth, bool) or depth < 1:
        raise BadInput(f"depth must be a whole number >= 1, got {depth!r}")
    try:
        conf = float(min_confidence)
    except (TypeError, ValueError):
        raise BadInput(f"min-confidence must be a number, got {min_confidence!r}") from None
    if not 0.0 <= conf <= 1.0:
        raise BadInput(f"min-confidence must be between 0 and 1, got {min_confidence!r}")
    if limit is not None and (not isinstance(limit, int) or limit < 0):
        raise BadInput(f"limit must be a whole number >= 0, got {limit!r}")
