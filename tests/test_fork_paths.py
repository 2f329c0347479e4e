"""The indexer's fork paths and their in-process fallbacks build the same index, and the
run's report says which one ran (indexer/fork_guard.py).

A process running another Python thread must not fork (a lock that thread holds would stay
held in the child): the prestarted database writer and the incremental commit then take
their other path. An embedding application (an MCP server, a watcher)
runs threads, so those paths are as real as the forked ones.
"""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

from test_incremental import BASE

import index_dump
from codeimpact.indexer.build import analyze
from codeimpact.indexer.config import IndexConfig, RunOptions
from codeimpact.indexer.fork_guard import FORKED, fork_unsafe_reason
from codeimpact.indexer.spare_leveller import STARTED
from conftest import write_files

EDITS = [
    ("pkg/util.py", "def fmt(v):\n    return repr(v)\n\n\ndef apply(fn):\n    return fn(2)\n"),
    ("pkg/extra.py", "from pkg.core import helper\n\n\ndef more():\n    return helper(3)\n"),
]


class OtherThread:
    """A Python thread that runs until the block ends (what an embedding application has)."""

    def __enter__(self):
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._stop.wait, name="embedder")
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def _runs(repo: Path) -> list[dict[str, str]]:
    """A full build (two processes, so its jobs may fork) and two edits; each run's forks."""
    options = RunOptions(workers=2, memory_budget_mb=1 << 20)  # memory never decides here
    forks = [analyze(repo, IndexConfig(), options).forks]
    for rel, text in EDITS:
        (repo / rel).write_text(text)
        report = analyze(repo, IndexConfig(), options)
        assert report.mode == "incremental", report.reason
        forks.append(report.forks)
    return forks


def test_the_guard_names_the_threads_that_forbid_a_fork():
    assert fork_unsafe_reason() == ""
    with OtherThread():
        reason = fork_unsafe_reason()
    assert reason.startswith("1 other Python thread(s) running (embedder)"), reason
    assert fork_unsafe_reason() == ""


def test_with_a_thread_running_every_job_takes_its_other_path_and_the_index_is_the_same(
    tmp_path,
):
    forked = tmp_path / "forked"
    forked.mkdir()
    write_files(forked, BASE)
    here = tmp_path / "here"
    shutil.copytree(forked, here)

    reports = _runs(forked)
    assert reports[0] == {
        "runner identity": FORKED,
        "database writer": FORKED,
    }
    edit = {"tree fields": FORKED, "delta writer": FORKED, "spare leveller": STARTED}
    assert reports[1:] == [edit] * len(EDITS)

    with OtherThread():
        reports = _runs(here)
    why = "1 other Python thread(s) running (embedder)"
    assert reports[0]["database writer"].startswith(f"a new interpreter later: {why}"), reports
    assert reports[0]["runner identity"].startswith(f"in this process: {why}"), reports
    for later in reports[1:]:
        assert later["delta writer"].startswith(f"in this process: {why}"), reports
        assert later["tree fields"].startswith(f"in this process: {why}"), reports
        # a new interpreter, not a fork: a thread of the caller does not stop it
        assert later["spare leveller"] == STARTED, reports

    diff = index_dump.first_difference(index_dump.dump(forked), index_dump.dump(here))
    assert diff is None, f"the in-process paths built another index: {diff}"
