"""Collects the traversal timings of a benchmark run and prints the ratio table at the end."""

from __future__ import annotations

import pytest

TIMINGS_KEY = pytest.StashKey[dict]()
NOTES_KEY = pytest.StashKey[list]()

METHODS = ("native", "numpy", "cypher")


def pytest_configure(config: pytest.Config) -> None:
    config.stash[TIMINGS_KEY] = {}
    config.stash[NOTES_KEY] = []


@pytest.fixture(scope="session")
def timings(request: pytest.FixtureRequest) -> dict:
    """``{(size, traversal, method): (seconds, is_lower_bound)}``, filled by the benchmarks."""
    return request.config.stash[TIMINGS_KEY]


@pytest.fixture(scope="session")
def bench_notes(request: pytest.FixtureRequest) -> list:
    """Free-form lines printed under the table (graph shapes, result sizes, caps hit)."""
    return request.config.stash[NOTES_KEY]


def _fmt_time(value: tuple[float, bool] | None) -> str:
    if value is None:
        return "-"
    seconds, lower = value
    text = f"{seconds * 1e3:.3f} ms" if seconds < 1 else f"{seconds:.2f} s"
    return (">" if lower else "") + text


def _fmt_ratio(slow: tuple[float, bool] | None, fast: tuple[float, bool] | None) -> str:
    if slow is None or fast is None or fast[0] <= 0:
        return "-"
    return (">" if slow[1] else "") + f"{slow[0] / fast[0]:,.0f}x"


def pytest_terminal_summary(terminalreporter, exitstatus, config: pytest.Config) -> None:
    results: dict = config.stash.get(TIMINGS_KEY, {})
    if not results:
        return
    tr = terminalreporter
    tr.section("traversal ratios (median per call)")
    header = (
        f"{'nodes':>9} {'traversal':<16} {'native':>12} {'numpy':>12} {'cypher':>12}"
        f" {'numpy/native':>13} {'cypher/native':>14}"
    )
    tr.write_line(header)
    tr.write_line("-" * len(header))
    keys = sorted({(size, trav) for size, trav, _ in results})
    for size, trav in keys:
        row = {m: results.get((size, trav, m)) for m in METHODS}
        tr.write_line(
            f"{size:>9,} {trav:<16} {_fmt_time(row['native']):>12} {_fmt_time(row['numpy']):>12}"
            f" {_fmt_time(row['cypher']):>12} {_fmt_ratio(row['numpy'], row['native']):>13}"
            f" {_fmt_ratio(row['cypher'], row['native']):>14}"
        )
    for line in config.stash.get(NOTES_KEY, []):
        tr.write_line(line)
