"""Per-test watchdogs: a test that hangs ends the run with a traceback, not CI's time limit;
a test that leaves a Python thread running errors.

Each test (setup, call, teardown) runs under an ITIMER_REAL timer of TEST_TIMEOUT_S seconds
(env CODEIMPACT_TEST_TIMEOUT overrides it). When it expires, SIGALRM reaches faulthandler's
C handler, which writes every thread's Python traceback to the terminal's stderr (not the
captured one) and then, chained to SIGALRM's default action, ends the process: pytest exits
with a failure naming the hung test in the traceback. It works when the hang is in C (a
collector pass, a native destructor, a blocking read) as well as in Python.

Why not a thread: the indexer forks only while this process runs one thread (indexer/
fork_guard.py), so a watchdog thread (pytest-timeout's thread method) would switch every
test to the in-process paths. Why not faulthandler.dump_traceback_later: its C thread is
invisible to `threading`, but a forked child inherits its "running" state without the
thread, and a child that exits through interpreter finalisation then waits for that thread
forever. A timer and a signal handler are neither: a forked child inherits no timer.

For the same reason a thread a test leaves running would silently move every later test onto
the in-process paths: `no_thread_left` makes the test that left one error at teardown.
"""

from __future__ import annotations

import faulthandler
import os
import signal
import threading

import pytest

# how long a test's threads get to end after it (a thread told to stop may need a moment)
THREAD_GRACE_S = 5.0
# The longest test (the Django incremental == full sweep) takes ~4 min on an idle 2-core
# machine and ~20 min under the shared machine's load: well above both.
TEST_TIMEOUT_S = float(os.environ.get("CODEIMPACT_TEST_TIMEOUT", "1800"))

_dump_file = None


def pytest_configure(config: pytest.Config) -> None:
    global _dump_file
    if TEST_TIMEOUT_S <= 0 or not hasattr(signal, "setitimer"):
        return
    # fd 2 is the terminal now; while a test runs, output capture points it at a temp file
    _dump_file = os.fdopen(os.dup(2), "w")
    faulthandler.register(signal.SIGALRM, file=_dump_file, all_threads=True, chain=True)


def pytest_unconfigure(config: pytest.Config) -> None:
    global _dump_file
    if _dump_file is not None:
        signal.setitimer(signal.ITIMER_REAL, 0)
        faulthandler.unregister(signal.SIGALRM)
        _dump_file.close()
        _dump_file = None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    if _dump_file is None:
        return (yield)
    signal.setitimer(signal.ITIMER_REAL, TEST_TIMEOUT_S)
    try:
        return (yield)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


@pytest.fixture(autouse=True)
def no_thread_left():
    """Every test ends with this process on its one thread (see the module docstring)."""
    yield
    others = [t for t in threading.enumerate() if t is not threading.main_thread()]
    for t in others:
        t.join(THREAD_GRACE_S)
    left = sorted(t.name for t in others if t.is_alive())
    assert not left, f"the test left Python threads running: {left} (indexer/fork_guard.py)"
