"""`graph coverage import`: coverage.py per-test data -> observed test -> function links.

The contexts are matched to test symbols and the executed lines to function symbols
(`coverage_map`), against the live index generation. Lines are only as good as the
content they were measured on, so a measured file's lines are used only when that
content is the indexed content, as far as can be told:
- the file now has the content hash the index recorded (else: `graph analyze` first);
- it was last modified before the coverage data was written (else it may have
  changed after the run: a checkout, an edit);
- every executed line exists in it.
A file that fails a check is listed with the reason and gives no link. The links
are stored with the commit and the content hash of every file they rest on
(`graph/observed.py`), so queries can tell when a file changed since.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from codeimpact.graph import layout
from codeimpact.graph.errors import BadInput, CorruptIndex
from codeimpact.graph.observed import Observation, ObservedTest, read_observed, write_observed
from codeimpact.graph.store import Reader
from codeimpact.indexer.coverage_commit import MeasuredAt, checked_at, functions_at, lines_in
from codeimpact.indexer.coverage_data import RECIPE, CoverageRun, is_static_label, parse_context
from codeimpact.indexer.coverage_map import (
    CALLABLE_KINDS,
    MatchedTest,
    TestMatcher,
    body_spans,
    callers_of_silent,
    line_owners,
    silent_bodies,
)
from codeimpact.indexer.gitinfo import head_commit
from codeimpact.indexer.lang import language_for
from codeimpact.indexer.pipeline import check_repo
from codeimpact.indexer.reading import content_hash
from codeimpact.indexer.resolved import SymbolRow

IMPORT_SCHEMA = "codeimpact.coverage-import/1"
DEFAULT_DATA_FILE = ".coverage"
SAMPLE = 10  # unmatched contexts named in the report (all are counted)
PYTHON_SUFFIXES = (".py", ".pyw")


@dataclass
class SkippedFile:
    path: str  # repository-relative
    reason: str


@dataclass
class ImportReport:
    schema: str
    repo: str
    data_file: str
    commit: str | None  # HEAD at import: the commit the links are recorded at
    indexed_commit: str | None
    generation: int
    context_kind: str  # pytest / test_function / mixed
    contexts: int  # contexts that name something (the empty one left out)
    tests: int  # contexts matched to a test of the index (distinct tests)
    unmatched_contexts: int
    unmatched_sample: list[str]
    files: int  # measured files of the repository whose lines were used
    skipped_files: list[SkippedFile]  # measured files of the repository whose lines were not
    outside_files: int  # measured files outside the repository (left out)
    functions: int  # distinct functions some test executed
    links: int  # test -> function links recorded
    replaced: bool  # an earlier import was replaced
    notes: list[str] = field(default_factory=list)

    def summary(self) -> str:
        skipped = f", {len(self.skipped_files)} skipped" if self.skipped_files else ""
        return (
            f"imported {self.links} test->function links: {self.tests} tests "
            f"({self.unmatched_contexts} of {self.contexts} contexts unmatched), "
            f"{self.functions} functions, from the lines of {self.files} measured files"
            f"{skipped}; "
            f"observed at {(self.commit or 'no commit')[:12]}"
        )


@dataclass
class _IndexFacts:
    files: dict[str, str]  # path -> content hash of every indexed Python file
    symbols: list[SymbolRow]
    bases: dict[str, list[str]]
    indexed_commit: str | None
    generation: int


def _read_index(repo: Path) -> _IndexFacts:
    with Reader(repo) as reader:
        _, rows = reader.query(
            "MATCH (f:File) WHERE f.language = 'python' RETURN f.path, f.content_hash"
        )
        files = {p: h for p, h in rows if h}
        _, rows = reader.query(
            "MATCH (s:Symbol) WHERE s.kind IN ['function', 'method', 'class'] AND s.file <> '' "
            "RETURN s.uid, s.kind, s.name, s.qualified_name, s.file, s.start_line, s.end_line, "
            "s.start_byte, s.end_byte, s.signature, s.exported, s.is_test, s.language"
        )
        symbols = [SymbolRow(*r) for r in rows]
        _, rows = reader.query(
            "MATCH (a:Symbol)-[:EXTENDS]->(b:Symbol) WHERE a.kind = 'class' RETURN a.uid, b.uid"
        )
        bases: dict[str, list[str]] = {}
        for a, b in rows:
            bases.setdefault(a, []).append(b)
        commit = reader.meta.get("indexed_commit")
        return _IndexFacts(
            files,
            symbols,
            bases,
            commit if isinstance(commit, str) else None,
            reader.gen.number,
        )


def _repo_relative(roots: list[str], measured: str) -> str | None:
    """A measured file's path relative to the repository (by its text only: nothing
    outside the repository is read), or None when it is outside."""
    if not os.path.isabs(measured):  # `relative_files = True`: relative to where it ran
        rel = os.path.normpath(measured).replace(os.sep, "/")
        return None if rel.startswith("../") or rel == ".." else rel
    norm = os.path.normpath(measured)
    for root in roots:
        if norm.startswith(root + os.sep):
            return os.path.relpath(norm, root).replace(os.sep, "/")
    return None


def _recorded_root(measured: str, by_basename: dict[str, list[str]]) -> str | None:
    """Where the tests may have run, for a path outside the repository that ends with an
    indexed path (`/ci/work/repo/pkg/a.py` -> `/ci/work/repo`): a hint, never a mapping."""
    norm = measured.replace(os.sep, "/")
    found = [f for f in by_basename.get(norm.rpartition("/")[2], ()) if norm.endswith("/" + f)]
    return norm[: -len(max(found, key=len)) - 1] if found else None


def _checked_source(
    repo: Path, rel: str, indexed_hash: str, data_mtime: float, lines: list[int]
) -> tuple[bytes | None, str]:
    """The file's bytes when its measured lines can be trusted, else (None, why not)."""
    full = repo / rel
    try:
        data = full.read_bytes()
        mtime = os.stat(full).st_mtime
    except OSError as e:
        return None, f"unreadable: {e.strerror or e}"
    if content_hash(data) != indexed_hash:
        return None, "changed since indexing: run `graph analyze`, then import again"
    if mtime > data_mtime:
        return None, "modified after the coverage data was written: re-run the tests"
    n_lines = lines_in(data)
    if lines and max(lines) > n_lines:
        return None, f"line {max(lines)} measured, the file has {n_lines}: it changed since"
    return data, ""


def import_coverage(
    path: str | os.PathLike = ".",
    data_file: str | os.PathLike | None = None,
    *,
    recorded_root: str | os.PathLike | None = None,
    commit: str | None = None,
    lock_wait: float = 0.0,
) -> ImportReport:
    """Read `data_file` (default `<repo>/.coverage`) and store its test -> function links.

    `recorded_root`: where the repository was when the tests ran (a CI checkout), when
    the data names its files by absolute paths under another folder. `commit`: the commit
    the tests ran at, when it is not this checkout's content: the lines are mapped on the
    files as they were there (indexer/coverage_commit.py), and links into files that
    differ here are stale from the start."""
    repo = check_repo(path)
    data_path = Path(data_file) if data_file is not None else repo / DEFAULT_DATA_FILE
    run = CoverageRun(data_path.absolute())
    facts = _read_index(repo)

    matcher = TestMatcher(facts.symbols, set(facts.files), facts.bases)
    matched: dict[str, MatchedTest] = {}  # context -> test
    unmatched: list[str] = []
    kinds: set[str] = set()
    for ctx in run.contexts:
        parsed = parse_context(ctx)
        if parsed is None:
            if ctx.strip() and not is_static_label(ctx.strip()):
                unmatched.append(ctx)  # a static label alone is code run outside any test
            continue
        kinds.add(parsed.kind)
        test = matcher.match(parsed)
        if test is None:
            unmatched.append(ctx)
        else:
            matched[ctx] = test
    named = len(matched) + len(unmatched)
    if not matched:
        sample = ", ".join(repr(c) for c in unmatched[:3])
        raise BadInput(
            f"none of the {named} test contexts in {run.path} names a test of the index at "
            f"{repo} (e.g. {sample}): import in the repository the tests ran in, after "
            "`graph analyze`"
        )

    tests: dict[str, int] = {}  # run_id -> test index
    test_rows: list[ObservedTest] = []
    test_of_context: dict[str, int] = {}
    for ctx, t in sorted(matched.items()):
        k = tests.get(t.run_id)
        if k is None:
            k = tests[t.run_id] = len(test_rows)
            test_rows.append(ObservedTest(t.uid, t.run_id, t.file, ctx))
        test_of_context[ctx] = k

    functions_by_file: dict[str, list[SymbolRow]] = {}
    for s in facts.symbols:
        if s.kind in CALLABLE_KINDS:
            functions_by_file.setdefault(s.file, []).append(s)

    links: list[set[str]] = [set() for _ in test_rows]
    skipped: list[SkippedFile] = []
    used_files: dict[str, str] = {}
    outside = 0
    roots = [str(repo)]  # resolved: links in its path are followed already
    if recorded_root is not None:
        roots.insert(0, os.path.normpath(os.fspath(recorded_root)))
    by_basename: dict[str, list[str]] = {}
    for f in facts.files:
        by_basename.setdefault(f.rpartition("/")[2], []).append(f)
    not_python = 0
    elsewhere: str | None = None  # a root the outside files suggest (see _recorded_root)
    at = MeasuredAt.resolve(repo, commit) if commit is not None else None
    measured_here: list[tuple[str, str]] = []  # (measured path, repository path)
    for measured in run.files:
        rel = _repo_relative(roots, measured)
        if rel is None:
            outside += 1
            elsewhere = elsewhere or _recorded_root(measured, by_basename)
            continue
        if rel.startswith(layout.INDEX_DIRNAME + "/"):
            outside += 1
            continue
        if rel not in facts.files:
            if not rel.endswith(PYTHON_SUFFIXES):
                not_python += 1  # a template compiled to code (Jinja, Mako) names its source
            else:
                skipped.append(SkippedFile(rel, "not an indexed Python file"))
            continue
        measured_here.append((measured, rel))
    # with the commit the tests ran at, every file is read as it was there, in one git call
    at_commit = (
        at.read(sorted({r for _, r in measured_here} | {t.file for t in test_rows}))
        if at is not None
        else {}
    )
    for measured, rel in measured_here:
        by_line = run.lines(measured)
        lines = [
            ln for ln, ctxs in by_line.items() if ln > 0 and any(c in test_of_context for c in ctxs)
        ]
        rows: list = functions_by_file.get(rel, [])
        if at is None:
            source, why = _checked_source(repo, rel, facts.files[rel], run.mtime, lines)
            measured_hash = facts.files[rel]
        else:
            source = at_commit.get(rel)
            why = checked_at(source, at.commit[:12], lines)
            measured_hash = content_hash(source) if source is not None else ""
            if source is not None and measured_hash != facts.files[rel]:
                rows = functions_at(rel, source)  # lines as they were: stale links, not wrong
        if source is None or why:
            skipped.append(SkippedFile(rel, why))
            continue
        used_files[rel] = measured_hash
        spec = language_for(rel)
        bodies = spec.function_bodies(source) if spec and spec.function_bodies else None
        spans = body_spans(bodies, rows)
        owners = line_owners(spans, max(lines, default=0))
        contexts_of: dict[str, set[str]] = {}  # function -> the contexts that ran its body
        for line in lines:
            owner = owners[line]
            if owner is not None:
                contexts_of.setdefault(owner, set()).update(by_line[line])
        for span in silent_bodies(spans) if run.has_arcs else ():
            header = range(span.header, span.first + 1)
            touched = {c for ln in header for c in by_line.get(ln, ()) if c in test_of_context}
            if not touched:
                continue
            for ctx in callers_of_silent(
                span, sorted(touched), lambda cs, m=measured: run.arcs(m, cs)
            ):
                contexts_of.setdefault(span.uid, set()).add(ctx)
        for owner, ctxs in contexts_of.items():
            for k in {test_of_context[c] for c in ctxs if c in test_of_context}:
                test_uid = test_rows[k].uid
                if owner != test_uid and not owner.startswith(test_uid + "."):
                    links[k].add(owner)
    hint = (
        f"if the tests ran in another checkout, import with --recorded-root {elsewhere}"
        if elsewhere
        else f"{RECIPE}, in this repository"
    )
    if not used_files and not skipped:
        raise BadInput(
            f"none of the {len(run.files)} files measured in {run.path} is in the repository "
            f"{repo}: {hint}"
        )

    n_mapped = len(used_files)
    functions = sorted({u for row in links for u in row})
    position = {u: i for i, u in enumerate(functions)}
    for t in test_rows:  # the tests' own files: a query tells when they changed since
        if t.file in facts.files:
            at_hash = content_hash(at_commit[t.file]) if at_commit.get(t.file) else None
            used_files.setdefault(t.file, at_hash or facts.files[t.file])
    kind = kinds.pop() if len(kinds) == 1 else "mixed"
    commit = at.commit if at is not None else head_commit(repo)
    report = ImportReport(
        schema=IMPORT_SCHEMA,
        repo=str(repo),
        data_file=str(run.path),
        commit=commit,
        indexed_commit=facts.indexed_commit,
        generation=facts.generation,
        context_kind=kind,
        contexts=named,
        tests=len(test_rows),
        unmatched_contexts=len(unmatched),
        unmatched_sample=unmatched[:SAMPLE],
        files=n_mapped,
        skipped_files=skipped,
        outside_files=outside,
        functions=len(functions),
        links=sum(len(row) for row in links),
        replaced=False,
    )
    obs = Observation(
        imported_at=time.time(),
        data_file=str(run.path),
        data_mtime=run.mtime,
        commit=commit,
        indexed_commit=facts.indexed_commit,
        generation=facts.generation,
        context_kind=kind,
        file_hashes=dict(sorted(used_files.items())),
        tests=test_rows,
        functions=functions,
        links=[sorted(position[u] for u in row) for row in links],
        skipped_files={f.path: f.reason for f in skipped},
        summary={
            "contexts": report.contexts,
            "tests": report.tests,
            "unmatched_contexts": report.unmatched_contexts,
            "files": report.files,
            "skipped_files": len(skipped),
            "functions": report.functions,
            "links": report.links,
        },
    )
    if not report.links:
        report.notes.append(
            "no test executed a line inside a function of the repository: "
            "was --cov given the repository's packages?"
        )
    if outside:
        report.notes.append(
            f"{outside} measured files outside the repository were left out"
            + (f" ({hint})" if elsewhere else "")
        )
    if recorded_root is not None and at is None:
        report.notes.append(
            "measured in another checkout: its lines were mapped on this checkout's files; "
            "if the tests ran at another commit, import with --commit REV (that commit)"
        )
    if not_python:
        report.notes.append(
            f"{not_python} measured files of the repository are not Python source "
            "(templates run as code): left out"
        )
    idx = layout.ensure_index_dir(repo)
    with layout.writer_lock(idx, lock_wait):
        try:
            report.replaced = read_observed(idx) is not None
        except CorruptIndex:  # a damaged earlier import is replaced all the same
            report.replaced = True
        write_observed(idx, obs)
    return report
