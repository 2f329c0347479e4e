"""The suite's per-test watchdog (tests/watchdog.py): a hang ends the run with a traceback,
and the watchdog adds no thread (the indexer's fork guards would see one)."""

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


def test_each_test_runs_under_a_timer_and_the_process_keeps_one_thread(tmp_path):
    remaining, _ = signal.getitimer(signal.ITIMER_REAL)
    assert remaining > 0, "the watchdog is not armed (tests/conftest.py loads it)"
    assert threading.active_count() == 1, [t.name for t in threading.enumerate()]
    job = ForkedJob(lambda: None, fork=True)
    assert job.forked, job.path  # so the indexer takes its fork paths under the watchdog
    job.wait()


def test_a_hung_test_ends_the_run_with_its_traceback(tmp_path):
    (tmp_path / "test_hangs.py").write_text(textwrap.dedent(HANGS))
    env = {**os.environ, "CODEIMPACT_TEST_TIMEOUT": "2", "PYTHONPATH": str(TESTS)}
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "watchdog", "-p", "no:cacheprovider"]
    res = subprocess.run(
        [*cmd, "test_hangs.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,  # this test must not hang either
    )
    assert res.returncode == -signal.SIGALRM, (res.returncode, res.stdout, res.stderr)
    # every thread's traceback, the hung test's frame in it
    assert re.search(r'test_hangs\.py", line \d+ in test_blocks_in_c', res.stderr), res.stderr
