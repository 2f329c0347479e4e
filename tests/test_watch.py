"""`graph analyze --watch`: one refresh per burst of edits, and a clean stop on Ctrl-C."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from codeimpact.query.index import Index
from conftest import write_files


def _read_line(proc, deadline: float) -> str:
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if line:
            return line.strip()
    raise AssertionError("no output from --watch in time")


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_watch_refreshes_after_edits_and_stops_on_ctrl_c(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    others = {f"m{i}.py": f"def m{i}():\n    return {i}\n" for i in range(6)}
    write_files(
        repo,
        {
            "a.py": "def f():\n    return 1\n",
            "b.py": "from a import f\n\ndef g():\n    return f()\n",
            **others,
        },
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "codeimpact", "analyze", "--watch", str(repo)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        # Ctrl-C from a terminal reaches a process whose SIGINT is the default; an ignored
        # SIGINT is inherited through exec, and a suite started in the background by a
        # script (`pytest ... &` in a shell without job control) runs with SIGINT ignored, as
        # POSIX asks of such a job: without this the child was deaf to it there
        preexec_fn=_default_sigint,
    )
    try:
        first = _read_line(proc, time.monotonic() + 60)
        assert first.startswith("indexed 8 files")
        # a burst of saves to two files: one refresh
        (repo / "a.py").write_text("def f():\n    return h()\n\ndef h():\n    return 2\n")
        (repo / "c.py").write_text("from a import h\n\nh()\n")
        line = _read_line(proc, time.monotonic() + 60)
        # a.py, c.py and b.py (which uses `f`, whose body changed); the other six are untouched
        assert line.startswith("changed 2, re-parsed 2, re-resolved 3 (incremental) in ")
        assert line.endswith(" ms")
        with Index.open(repo) as index:
            rows = index.cypher("MATCH (a:Symbol)-[:CALLS]->(b:Symbol) RETURN a.uid, b.uid").rows
        assert ["c.py::", "a.py::h"] in rows and ["a.py::f", "a.py::h"] in rows
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "Traceback" not in err
