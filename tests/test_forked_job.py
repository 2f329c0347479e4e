"""A job in a forked child: its result is on disk, its exception raised in the parent."""

from __future__ import annotations

import os
import threading
import time

import pytest

from codeimpact.indexer.forked_job import ForkedJob, ForkedJobError


def _write_pid(path):
    return lambda: path.write_text(str(os.getpid()))


def test_the_job_runs_in_a_child_while_the_parent_goes_on(tmp_path):
    out = tmp_path / "pid"
    job = ForkedJob(_write_pid(out), fork=True)
    assert job.forked and job.path == "forked"
    job.wait()
    assert int(out.read_text()) != os.getpid()


def test_without_fork_the_job_is_done_before_start_returns(tmp_path):
    out = tmp_path / "pid"
    job = ForkedJob(_write_pid(out), fork=False, why_not="one process asked for")
    assert not job.forked and job.path == "in this process: one process asked for"
    assert int(out.read_text()) == os.getpid()
    job.wait()  # nothing left to wait for


def test_a_process_running_other_threads_does_not_fork(tmp_path):
    stop = threading.Event()
    other = threading.Thread(target=stop.wait, name="other")
    other.start()
    try:
        out = tmp_path / "pid"
        job = ForkedJob(_write_pid(out), fork=True)
        assert not job.forked
        assert job.path.startswith("in this process: 1 other Python thread(s) running (other)")
        assert int(out.read_text()) == os.getpid()
    finally:
        stop.set()
        other.join()


class _Odd(Exception):
    def __init__(self, a, b):  # does not pickle back (two arguments, one given)
        super().__init__(f"{a}/{b}")


def _raise(e: BaseException):
    def job():
        raise e

    return job


def test_the_childs_exception_is_raised_in_the_parent():
    job = ForkedJob(_raise(OSError(28, "No space left on device")), fork=True)
    with pytest.raises(OSError, match="No space left") as info:
        job.wait()
    assert info.value.errno == 28


def test_an_exception_that_does_not_pickle_still_reaches_the_parent_as_text():
    job = ForkedJob(_raise(_Odd("a", "b")), fork=True)
    with pytest.raises(Exception, match="a/b"):
        job.wait()


def test_a_child_that_dies_without_a_word_is_an_error_naming_the_job():
    job = ForkedJob(lambda: os._exit(7), fork=True, name="the sidecar writer")
    with pytest.raises(ForkedJobError, match="the sidecar writer exited with code 7"):
        job.wait()


def test_cancel_stops_a_running_child_at_once():
    job = ForkedJob(lambda: time.sleep(60), fork=True)
    pid = job._proc.pid
    t = time.monotonic()
    job.cancel()
    assert time.monotonic() - t < 10
    with pytest.raises(ProcessLookupError):  # reaped, not a zombie
        os.kill(pid, 0)
    job.cancel()  # twice is harmless
    job.wait()


def test_another_thread_can_wait_for_the_child_to_exit_and_leave_its_answer(tmp_path):
    out = tmp_path / "pid"

    def slow_then_fail():
        time.sleep(0.2)
        out.write_text(str(os.getpid()))
        raise ValueError("the answer is kept")

    job = ForkedJob(slow_then_fail, fork=True)
    seen = []
    waiter = threading.Thread(target=lambda: (job.exited(), seen.append(out.exists())))
    waiter.start()
    waiter.join(timeout=30)
    assert seen == [True]  # exited() returned only after the child had done its work
    with pytest.raises(ValueError, match="the answer is kept"):
        job.wait()  # the answer was left for wait


def test_exited_returns_at_once_without_a_child(tmp_path):
    job = ForkedJob(_write_pid(tmp_path / "pid"), fork=False)
    job.exited()
