"""Write an annotated fixture (tests/lang/harness.py) from a project and what it indexes to.

    python tests/lang/annotate.py PROJECT_DIR OUT_FILE [--defines] [--header TEXT]

Indexes a copy of PROJECT_DIR with the installed code and writes every file of it into
OUT_FILE under `path:` markers, each source line followed by the assertions of the edges
(CALLS, IMPORTS, REFERENCES, EXTENDS, IMPLEMENTS) and unresolved sites the index has at
that line (`--defines`: and a `defines:` with its span for every definition, an `in:` for
its container, under `exact: defines, in`). A tool for turning a
language test into data: review the result, cut what the test is not about, say why in
comments. The harness re-indexes the annotated text, whose comment lines shift nothing a
resolver compares.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from lang import harness  # noqa: E402

CODE_SUFFIXES = {".py": "#", ".pyi": "#", ".ts": "//", ".tsx": "//", ".js": "//", ".jsx": "//",
                 ".mjs": "//", ".cjs": "//", ".go": "//", ".java": "//", ".rs": "//", ".c": "//",
                 ".h": "//", ".cpp": "//", ".hpp": "//", ".cc": "//", ".cs": "//", ".rb": "#",
                 ".php": "//", ".kt": "//", ".swift": "//", ".dart": "//"}  # fmt: skip
_CTOR = {"__init__", "constructor", "<init>", "new"}


def _last_name(qn: str) -> str:
    parts = re.split(r"\.|::|/", qn)
    name = parts[-1].split("#", 1)[0]
    if name in _CTOR and len(parts) > 1:
        name = parts[-2]
    return name


def _column(line: str, name: str) -> int:
    """Where `name` is written in `line` (the start of the dotted chain it ends), else the
    first non-blank column."""
    m = re.search(rf"(?<![\w$]){re.escape(name)}(?![\w$])", line) if name else None
    if m is None:  # the first call written on the line, else its first word
        m = re.search(r"[A-Za-z_$][\w$]*\s*\(", line)
        if m is None:
            return len(line) - len(line.lstrip())
    start = m.start()
    while start > 0:
        prev = line[:start]
        chain = re.search(r"[A-Za-z_$][\w$]*(?:\(\))?(?:\.|::)$", prev)
        if chain is None:
            break
        start = chain.start()
    return start


def _assertion(prefix: str, column: int, text: str, marker: str = "^") -> str:
    col = max(column, len(prefix) + 1)
    return " " * (col - len(prefix) - 1) + prefix + " " + marker + " " + text


def _index(repo: Path) -> harness.Graph:
    from codeimpact.indexer.build import analyze
    from codeimpact.indexer.config import IndexConfig, RunOptions

    analyze(repo, IndexConfig(), RunOptions(workers=1))
    return harness.Graph(repo)


def _with_spans(text: str, suffix: str) -> str:
    """`text` (a fixture) with each `defines:` given its span, read from an index of the
    fixture itself: its assertion lines are lines of its files, so its spans are not the
    project's."""
    work = Path(tempfile.mkdtemp(prefix="annotate-"))
    try:
        source = work / f"fixture{suffix}"
        source.write_text(text)
        fx = harness.parse(source)
        for rel, content in fx.files.items():
            (work / "repo" / rel).parent.mkdir(parents=True, exist_ok=True)
            (work / "repo" / rel).write_text(content)
        graph = _index(work / "repo")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    lines = text.splitlines()
    for a in fx.assertions:
        if a.relation == "defines" and not a.negated and not a.end:
            hits = [u for u in harness._defined_at(graph, a) if a.target in graph.names(u)]
            if len(hits) == 1:
                lines[a.fixture_line - 1] += f" {a.line}-{graph.ends[hits[0]][0]}"
    return "\n".join(lines) + "\n"


def annotate(project: Path, defines: bool = False, header: str = "") -> str:
    work = Path(tempfile.mkdtemp(prefix="annotate-"))
    try:
        repo = work / "repo"
        shutil.copytree(project, repo, ignore=shutil.ignore_patterns(".codeimpact", ".git"))
        graph = _index(repo)
        files = {p.relative_to(repo).as_posix(): p.read_text()
                 for p in sorted(repo.rglob("*")) if p.is_file() and ".codeimpact" not in p.parts}  # fmt: skip
    finally:
        shutil.rmtree(work, ignore_errors=True)
    at: dict[tuple[str, int], list[tuple[int, str]]] = {}
    # a value-flow call's line is in the file that passed the function (harness.Graph.owners)

    def add(path: str, line: int, name: str, text: str) -> None:
        src = files.get(path, "").splitlines()
        if 0 < line <= len(src):
            at.setdefault((path, line), []).append((_column(src[line - 1], name), text))

    qn_count: dict[str, int] = {}
    for q, *_ in graph.symbols.values():
        qn_count[q] = qn_count.get(q, 0) + 1

    def qn(uid: str) -> str:
        """The qualified name, or the uid where it names one definition of several (the
        files of a Go package, overloads) or something outside the repository."""
        q = graph.symbols.get(uid, (uid,))[0]
        return uid if uid.startswith("<external>::") or qn_count.get(q, 0) > 1 else q

    for rel, src, dst, line, reason in sorted(graph.edges):
        if rel == "CONTAINS":
            continue
        path = graph.file_of(src)
        if rel in ("EXTENDS", "IMPLEMENTS"):
            sym = graph.symbols.get(src)
            if sym is None:
                continue
            add(path, sym[3], _last_name(qn(dst)), f"{rel.lower()}: {qn(dst)}")
            continue
        word = {"CALLS": "calls", "IMPORTS": "imports", "REFERENCES": "references"}[rel]
        suffix = f" ({reason})" if reason and rel != "IMPORTS" else ""
        for owner in sorted(graph.owners((rel, src, dst, line, reason))):
            add(owner, line, _last_name(qn(dst)), f"{word}: {qn(dst)}{suffix}")
    for scope, name, line in sorted(graph.unresolved):
        add(graph.file_of(scope), line, name.rstrip("!"), f"unresolved: {name}")
    if defines:
        containers = {dst: src for rel, src, dst, *_ in graph.edges if rel == "CONTAINS"}
        for uid, (q, kind, file, start) in sorted(graph.symbols.items()):
            if file in files:  # (a file's module: at line 1, its name written nowhere)
                add(file, start, _last_name(q), f"defines: {qn(uid)} {kind}")
                if uid in containers:
                    add(file, start, _last_name(q), f"in: {qn(containers[uid])}")
    code = [CODE_SUFFIXES[Path(p).suffix] for p in files if Path(p).suffix in CODE_SUFFIXES]
    marker = max(set(code), key=code.count) if code else "#"
    out = [f"{marker} {h}".rstrip() for h in header.splitlines()]
    exact = "calls, imports, references, extends, implements" + (", defines, in" if defines else "")
    out.append(f"{marker} exact: {exact}")
    for path, text in files.items():
        prefix = CODE_SUFFIXES.get(Path(path).suffix, marker)
        out.append(f"{marker} path: {path}")
        for n, line in enumerate(text.splitlines(), 1):
            found = sorted(at.get((path, n), ()), key=lambda x: (x[1], x[0]))
            # nothing may stand between a decorator, annotation or attribute and what it
            # decorates: its assertions go above it (`v`)
            above = line.lstrip().startswith(("@", "#["))
            if above:
                out.extend(_assertion(prefix, col, a, "v") for col, a in found)
            out.append(line)
            if not above:
                out.extend(_assertion(prefix, col, a) for col, a in found)
    text = "\n".join(out) + "\n"
    return _with_spans(text, "." + ("py" if marker == "#" else "ts")) if defines else text


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("project", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--defines", action="store_true")
    ap.add_argument("--header", default="")
    args = ap.parse_args()
    args.out.write_text(annotate(args.project, args.defines, args.header))
    return 0


if __name__ == "__main__":
    sys.exit(main())
