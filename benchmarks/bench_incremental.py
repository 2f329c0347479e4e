"""Issue 4: a full index of Django, a no-change re-run, and re-runs after one-file edits, each
as the CLI runs it, with its ratio to the full index.

The edits: a comment in a leaf module and in a widely imported one (`django/db/models/
__init__.py`, imported by ~1,000 files), a function body in a widely imported module
(`django.utils.functional`), a new class in a leaf module, and a new subclass (with a
method) of a model class. `seconds` is the work done inside analyze (start-up excluded);
wall includes start-up.

    pytest benchmarks/bench_incremental.py --benchmark-only -s
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from sources import fresh_copy, run_measured, sdist

LEAF = "django/utils/timesince.py"
WIDE = "django/db/models/__init__.py"
BODY = (
    "django/utils/functional.py",
    "return keep_lazy(str)(func)",
    "return keep_lazy(str, str)(func)",
)
NEW_CLASS = "\n\nclass Added:\n    def added(self):\n        return timesince(None)\n"
SUBCLASS = ("django/contrib/flatpages/models.py",
            "\n\nclass ExtraPage(FlatPage):\n    def extra_title(self):\n        return self.title\n")  # fmt: skip
ROWS: list[tuple[str, float, float, str]] = []


@pytest.fixture(scope="module")
def django(tmp_path_factory) -> Path:
    try:
        src = sdist("django", "5.2.8")
    except Exception as e:
        pytest.skip(f"cannot fetch the Django sdist: {e}")
    return fresh_copy(src, tmp_path_factory.mktemp("incr") / "django")


def analyze(repo: Path, *extra: str) -> tuple[float, dict]:
    wall, _peak, out = run_measured(
        [sys.executable, "-m", "codeimpact", "analyze", "--index-only", "--json", *extra, str(repo)]
    )
    return wall, json.loads(out)


def touch(repo: Path, rel: str, n: int) -> None:
    p = repo / rel
    p.write_text(p.read_text() + f"\n# edit {n}\n")


def append(repo: Path, rel: str, text: str) -> None:
    p = repo / rel
    p.write_text(p.read_text() + text)


def replace(repo: Path, rel: str, old: str, new: str) -> None:
    p = repo / rel
    text = p.read_text()
    assert old in text, f"{rel} no longer holds {old!r}"
    p.write_text(text.replace(old, new, 1))


def test_incremental_runs(benchmark, django):
    wall, full = analyze(django, "--force")
    ROWS.append(("full index", wall, full["seconds"], full["mode"]))
    counter = iter(range(10_000))

    def run(label, edit=None):
        if edit:
            edit()
        wall, rep = analyze(django)
        detail = f"{rep['mode']}; parsed {rep.get('parsed', 0)}, resolved {rep.get('resolved', 0)}"
        ROWS.append((label, wall, rep["seconds"], detail))
        return rep

    assert run("no change")["mode"] == "unchanged"
    benchmark.pedantic(
        lambda: run("leaf edit", lambda: touch(django, LEAF, next(counter))), rounds=3, iterations=1
    )
    edits = [
        ("widely imported edit", lambda: touch(django, WIDE, next(counter))),
        ("widely imported body", lambda: replace(django, *BODY)),
        ("new class in a leaf", lambda: append(django, LEAF, NEW_CLASS)),
        ("new model subclass", lambda: append(django, *SUBCLASS)),
    ]
    for label, edit in edits:
        assert run(label, edit)["mode"] == "incremental"


@pytest.fixture(scope="module", autouse=True)
def print_rows():
    yield
    if not ROWS:
        return
    full = ROWS[0][2]
    print("\n== Django 5.2.8 incremental re-index ==")
    print(f"{'run':<22} {'wall':>8} {'work':>8} {'work/full':>10}  detail")
    for label, wall, work, detail in ROWS:
        print(f"{label:<22} {wall:>7.2f}s {work:>7.2f}s {work / full:>9.3f}  {detail}")
