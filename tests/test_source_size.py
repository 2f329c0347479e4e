"""No source file of ours over 800 lines (the engine issue's limit): a file that grows past
it has stopped holding one job. The vendored tree-sitter runtime is not ours."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ROOMS = ("codeimpact", "indexer", "graph", "query", "native", "tests", "benchmarks", ".ci")
SUFFIXES = {".py", ".c", ".h", ".scm"}
VENDORED = ROOT / "native" / "tree_sitter"
# what the benchmarks download (.gitignore'd: the projects they measure) is no source of ours
DOWNLOADED = ROOT / "benchmarks" / ".cache"
LIMIT = 800


def _sources() -> list[Path]:
    found = []
    for room in ROOMS:
        for path in (ROOT / room).rglob("*"):
            if path.suffix not in SUFFIXES or not path.is_file():
                continue
            if VENDORED not in path.parents and DOWNLOADED not in path.parents:
                found.append(path)
    return found


def test_the_rooms_hold_sources():
    names = {p.relative_to(ROOT).as_posix() for p in _sources()}
    assert "indexer/lang/python/resolve.py" in names and "native/facts.c" in names


def test_no_source_file_is_over_the_limit():
    over = {}
    for path in _sources():
        with path.open("rb") as f:
            lines = sum(1 for _ in f)
        if lines > LIMIT:
            over[path.relative_to(ROOT).as_posix()] = lines
    assert not over, f"over {LIMIT} lines: {over}"
