"""A pytest plugin that records what a project's own test suite really executes.

Loaded into the suite's interpreter with ``-p truth_hook`` (its folder on PYTHONPATH);
it imports nothing but the standard library, pytest and `truth_recorder` (the hook and
the raw record's shape), so it runs in any venv the suite needs. Environment:

- ``TRUTH_HOOK_ROOT``: the project tree; code whose file lies under it is the
  project's own ("project code"), everything else is external.
- ``TRUTH_HOOK_OUT``: where to write the raw record (JSON) when pytest ends.

The recorder starts when the plugin is imported, so conftest and package imports are
seen too (as ``outside``); each test item's executed set runs from the start of its
setup to the end of its teardown. `TracePlugin` is the same plugin as an object, for
a driver that runs pytest in-process (`truth_run.py`).
"""

from __future__ import annotations

import os

import pytest
from truth_recorder import Recorder


class TracePlugin:
    """Tells the recorder which test item runs, and writes its record when pytest ends."""

    def __init__(self, recorder: Recorder, out: str | None) -> None:
        self.recorder = recorder
        self.out = out

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        rec = self.recorder
        rec.current = rec.tests.setdefault(item.nodeid, set())
        rec.current_entries = rec.entries.setdefault(item.nodeid, set())
        try:
            return (yield)
        finally:
            rec.current = rec.outside
            rec.current_entries = set()

    def pytest_runtest_logreport(self, report) -> None:
        # the worst phase outcome wins: a test that passes but errors in teardown is "error"
        rank = {"passed": 0, "skipped": 1, "failed": 2, "error": 3}
        outcome = report.outcome
        if report.when != "call" and report.outcome == "failed":
            outcome = "error"
        old = self.recorder.outcomes.get(report.nodeid)
        if old is None or rank.get(outcome, 3) > rank.get(old, 3):
            self.recorder.outcomes[report.nodeid] = outcome

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session, exitstatus) -> None:
        self.recorder.stop()
        if self.out:
            self.recorder.dump(self.out, int(exitstatus))


if os.environ.get("TRUTH_HOOK_OUT"):  # loaded with -p truth_hook
    _RECORDER = Recorder(os.environ.get("TRUTH_HOOK_ROOT", os.getcwd()))
    _RECORDER.start()  # at plugin import: conftest and package imports are seen too

    def pytest_configure(config) -> None:
        config.pluginmanager.register(
            TracePlugin(_RECORDER, os.environ["TRUTH_HOOK_OUT"]), "truth-trace"
        )
