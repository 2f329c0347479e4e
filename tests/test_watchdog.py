"""The suite's per-test watchdogs (tests/watchdog.py): a hang ends the run with a traceback,
a thread left running fails its test, and the watchdog adds no thread (the indexer's fork
guards would see one)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

from codeimpact.indexer.forked_job import ForkedJob

TESTS = Path(__file__).parent

HANGS = """
import os


def test_blocks_in_c():
    read_end, write_end = os.pipe()
    os.read(read_end, 1)  # nobody writes: blocks in the kernel, not in Python
"""


LEAKS = """
import threading


def test_leaves_a_thread():
    threading.Thread(target=threading.Event().wait, name="leaked", daemon=True).start()
"""


def _pytest(tmp_path: Path, name: str, text: str, **env: str) -> subprocess.CompletedProcess:
    """pytest with only the watchdog plugin, on one test file, in a child process."""
    (tmp_path / name).write_text(textwrap.dedent(text))
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "watchdog", "-p", "no:cacheprovider"]
    return subprocess.run(
        [*cmd, name],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(TESTS), **env},
        capture_output=True,
        text=True,
        timeout=300,  # this test must not hang either
    )


def test_each_test_runs_under_a_timer_and_the_process_keeps_one_thread(tmp_path):
    remaining, _ = signal.getitimer(signal.ITIMER_REAL)
    assert remaining > 0, "the watchdog is not armed (tests/conftest.py loads it)"
    assert threading.active_count() == 1, [t.name for t in threading.enumerate()]
    job = ForkedJob(lambda: None, fork=True)
    assert job.forked, job.path  # so the indexer takes its fork paths under the watchdog
    job.wait()


def test_a_hung_test_ends_the_run_with_its_traceback(tmp_path):
    res = _pytest(tmp_path, "test_hangs.py", HANGS, CODEIMPACT_TEST_TIMEOUT="2")
    assert res.returncode == -signal.SIGALRM, (res.returncode, res.stdout, res.stderr)
    # every thread's traceback, the hung test's frame in it
    assert re.search(r'test_hangs\.py", line \d+ in test_blocks_in_c', res.stderr), res.stderr


def test_a_test_that_leaves_a_thread_running_errors(tmp_path):
    res = _pytest(tmp_path, "test_leaks.py", LEAKS)
    assert res.returncode == 1, (res.stdout, res.stderr)
    assert "1 passed, 1 error" in res.stdout, res.stdout
    assert "the test left Python threads running: ['leaked']" in res.stdout, res.stdout
