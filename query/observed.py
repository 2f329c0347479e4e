"""Observed coverage as one generation sees it: links over symbol ids, with their staleness.

The links were recorded against the files' contents at the observation
(`graph/observed.py`). Against the graph a query answers from, a link is
- *gone* when its test or its function is no longer a symbol (renamed, deleted):
  it is left out, since a test id that no longer exists cannot be run;
- *stale* when the file of its function (or of its test) has changed since the
  observation: it still selects its test, flagged `stale` with the reason, since
  the test may no longer run that function, and tests added since were never seen.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from codeimpact.graph import layout
from codeimpact.graph.errors import CorruptIndex
from codeimpact.graph.observed import Observation, file_of, read_observed

COVERAGE_STATUS_SCHEMA = "codeimpact.coverage-status/1"


@dataclass
class ObservedCoverage:
    """The imported links of one index, mapped onto its live generation's symbol ids."""

    observation: Observation
    test_ids: list[int]  # per observed test: its symbol id now (-1: gone)
    function_ids: list[int]  # per observed function: its symbol id now (-1: gone)
    tests_of: dict[int, list[int]]  # function symbol id -> observed test indexes
    stale_files: dict[str, str]  # path -> why its links are stale
    # per observed test: the runner id when it is not the test symbol's own (a subclass
    # running an inherited test method), else ""
    run_ids: list[str] = field(default_factory=list)
    test_stale: list[str | None] = field(default_factory=list)  # per observed test
    function_stale: dict[int, str] = field(default_factory=dict)  # function symbol id -> why

    @property
    def commit(self) -> str | None:
        return self.observation.commit

    def stale_reason(self, test: int, function_id: int) -> str | None:
        """Why the link test -> function is stale (None: it is not)."""
        return self.function_stale.get(function_id) or self.test_stale[test]

    def gone(self) -> tuple[int, int]:
        """(observed tests, observed functions) that are no longer symbols of the index."""
        return sum(1 for i in self.test_ids if i < 0), sum(1 for i in self.function_ids if i < 0)


def own_run_id(uid: str, run_id: str) -> bool:
    """Whether a pytest node id is the test symbol's own (`f::C.t` is `f::C::t`), and not
    the id of a subclass that inherits it."""
    file, _, local = uid.partition("::")
    return not run_id or run_id == "::".join([file, *local.split("#", 1)[0].split(".")])


def _short(commit: str | None) -> str:
    return commit[:12] if commit else "an uncommitted tree"


def load_observed(index) -> ObservedCoverage | None:
    """The observed links of an open Index, None when none were imported.

    Damaged links raise CorruptIndex: a query refuses rather than answering from them.
    """
    obs = read_observed(layout.index_dir(index.repo))
    if obs is None:
        return None
    by_uid = index.graph.symbols.by_uid
    test_ids = [by_uid.get(t.uid, -1) for t in obs.tests]
    function_ids = [by_uid.get(u, -1) for u in obs.functions]
    tests_of: dict[int, list[int]] = {}
    for k, row in enumerate(obs.links):
        if test_ids[k] < 0:
            continue
        for j in row:
            sid = function_ids[j]
            if sid >= 0:
                tests_of.setdefault(sid, []).append(k)
    paths = sorted(obs.file_hashes)
    try:
        _, rows = index.reader.query(
            "MATCH (f:File) WHERE f.path IN $paths RETURN f.path, f.content_hash",
            {"paths": paths},
        )
    except RuntimeError as e:
        raise CorruptIndex(
            f"the index at {index.repo} is unreadable ({str(e).splitlines()[0]}): "
            f"run `graph analyze --force {index.repo}`"
        ) from e
    now = dict(rows)
    cov = ObservedCoverage(
        obs,
        test_ids,
        function_ids,
        tests_of,
        {},
        run_ids=["" if own_run_id(t.uid, t.run_id) else t.run_id for t in obs.tests],
    )
    return _with_stale(cov, _stale_files(obs, {p: now.get(p) for p in paths}, ""))


def _stale_files(obs: Observation, now: dict[str, str | None], where: str) -> dict[str, str]:
    """path -> why its links are stale, for the observed files whose content hash `now`
    (None: the file is gone) differs from the observation's."""
    since = f"since the observation at {_short(obs.commit)}{where}"
    out: dict[str, str] = {}
    for p, h in now.items():
        if p not in obs.file_hashes:
            continue
        if h is None:
            out[p] = f"{p} was deleted {since}"
        elif h != obs.file_hashes[p]:
            out[p] = f"{p} changed {since}"
    return out


def _with_stale(cov: ObservedCoverage, stale: dict[str, str]) -> ObservedCoverage:
    obs = cov.observation
    cov.stale_files = stale
    cov.test_stale = [stale.get(t.file) for t in obs.tests]
    cov.function_stale = {
        sid: stale[file_of(u)]
        for u, sid in zip(obs.functions, cov.function_ids)
        if sid >= 0 and file_of(u) in stale
    }
    return cov


def as_of(cov: ObservedCoverage | None, contents: dict[str, str | None]) -> ObservedCoverage | None:
    """The links as a change sees them: `contents` holds the content hash of each file on
    the change's new side (None: deleted there), which the index may not have yet (an
    edit not analyzed, a branch under review). A link into such a file that differs from
    what was measured is stale, though the index still holds the measured content."""
    if cov is None:
        return None
    extra = _stale_files(cov.observation, contents, " (in this change)")
    if not extra.keys() - cov.stale_files.keys():
        return cov
    out = ObservedCoverage(
        cov.observation, cov.test_ids, cov.function_ids, cov.tests_of, {}, run_ids=cov.run_ids
    )
    return _with_stale(out, {**extra, **cov.stale_files})


# ---------------------------------------------------------------------- coverage status
@dataclass
class CoverageStatus:
    schema: str
    repo: str
    imported: bool  # False: `graph coverage import` was never run (or cleared)
    imported_at: str | None  # ISO 8601, UTC
    data_file: str | None
    commit: str | None  # the commit the links were observed at
    context_kind: str | None
    tests: int
    functions: int
    links: int
    skipped_files: list[dict] = field(default_factory=list)  # [{path, reason}] at import
    tests_gone: int = 0  # observed tests that are no longer symbols of the index
    functions_gone: int = 0
    stale_files: list[dict] = field(default_factory=list)  # [{path, reason}] now
    stale_links: int = 0  # links resting on a stale file


def _iso(ts: float) -> str:
    return (
        dt.datetime.fromtimestamp(ts, dt.timezone.utc)
        .isoformat(timespec="seconds")
        .replace("+00:00", "Z")
    )


def coverage_status(index) -> CoverageStatus:
    """What `graph coverage status` prints: the imported links and how they hold now."""
    cov = load_observed(index)
    if cov is None:
        return CoverageStatus(
            COVERAGE_STATUS_SCHEMA, str(index.repo), False, None, None, None, None, 0, 0, 0
        )
    obs = cov.observation
    tests_gone, functions_gone = cov.gone()
    stale_links = 0
    for k, row in enumerate(obs.links):
        test_stale = obs.tests[k].file in cov.stale_files
        stale_links += sum(
            1 for j in row if test_stale or file_of(obs.functions[j]) in cov.stale_files
        )
    return CoverageStatus(
        schema=COVERAGE_STATUS_SCHEMA,
        repo=str(index.repo),
        imported=True,
        imported_at=_iso(obs.imported_at),
        data_file=obs.data_file,
        commit=obs.commit,
        context_kind=obs.context_kind,
        tests=len(obs.tests),
        functions=len(obs.functions),
        links=sum(len(row) for row in obs.links),
        skipped_files=[{"path": p, "reason": r} for p, r in sorted(obs.skipped_files.items())],
        tests_gone=tests_gone,
        functions_gone=functions_gone,
        stale_files=[{"path": p, "reason": r} for p, r in sorted(cov.stale_files.items())],
        stale_links=stale_links,
    )
