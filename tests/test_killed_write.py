"""A write killed with SIGKILL in the middle leaves the previous generation usable, and the
next plain analyze gets back to what a full build gives (real processes, really killed).

The kill lands while a process of the run has the new generation's database open (the
delta being committed into the spare database, graph/wal_store.py): the moment a crash
could leave a half-written graph behind. The first edit after the full build writes a copy
of the live database (a full build makes no spare); the edits after a completed one bring
the spare forward: the attempts below kill both kinds."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from test_incremental import assert_same_as_full

import index_dump
from codeimpact.graph import layout
from conftest import git, write_files

# A module of many functions, each calling the one before: rewriting it is a delta of a
# few thousand rows, so its write lasts long enough to be caught while it runs.
N_FUNCS = 600


def _module(tag: str) -> str:
    out = ["def f0():\n    return 0\n"]
    out += [f"def f{i}():\n    return f{i - 1}()  # {tag}\n" for i in range(1, N_FUNCS)]
    return "\n\n".join(out)


def _renamed(tag: str) -> str:
    """Every function renamed: each symbol and edge of the module goes and another comes."""
    return _module(tag).replace("def f", f"def {tag}_f").replace("return f", f"return {tag}_f")


def _analyze(repo: Path) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "codeimpact", "analyze", "--index-only", str(repo)]
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)  # fmt: skip


def _tree(root: int) -> list[int]:
    """`root` and its descendants."""
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        try:
            with open(f"/proc/{pid}/task/{pid}/children") as fh:
                todo += [int(c) for c in fh.read().split()]
        except OSError:
            continue
    return out


def _writing(root: int, db: Path) -> bool:
    """Whether a process of the tree has the database `db` open."""
    for pid in _tree(root):
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}") == str(db):
                    return True
            except OSError:
                continue
    return False


def _kill_mid_write(repo: Path) -> bool:
    """Run analyze and SIGKILL its whole process group once the new generation's database is
    open; False if the run ended first."""
    live = layout.read_current(layout.index_dir(repo))
    db = layout.index_dir(repo) / layout.generation_dirname(live.number + 1) / layout.DB_FILENAME
    proc = _analyze(repo)
    while proc.poll() is None:
        if _writing(proc.pid, db):
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            time.sleep(0.05)  # the writer child dies with its parent (PR_SET_PDEATHSIG)
            return True
    assert proc.returncode == 0, proc.stderr.read()
    return False


def test_a_write_killed_midway_leaves_the_previous_generation_usable(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    write_files(repo, {"chain.py": _module("base"), "use.py": "from chain import f9\n\n\n"
                       "def main():\n    return f9()\n"})  # fmt: skip
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "init")
    assert _analyze(repo).wait() == 0
    killed = 0
    for attempt in range(6):  # each edit renames every function: a write of ~3,600 rows
        before = index_dump.dump(repo, with_answers=False)
        live = layout.read_current(layout.index_dir(repo)).number
        (repo / "chain.py").write_text(_renamed(f"k{attempt}"))
        if not _kill_mid_write(repo):
            continue
        killed += 1
        # the previous generation is still the live one, whole, and answers as before
        assert layout.read_current(layout.index_dir(repo)).number == live
        assert index_dump.dump(repo, with_answers=False) == before
        status = subprocess.run([sys.executable, "-m", "codeimpact", "status", "--check",
                                 str(repo)], capture_output=True, text=True)  # fmt: skip
        assert "damaged" not in status.stdout + status.stderr, status.stdout
        # and the next plain analyze gets to what a full build of the tree gives
        assert _analyze(repo).wait() == 0
        assert_same_as_full(repo, tmp_path, with_answers=False)
    assert killed >= 2, f"only {killed} of 6 runs were caught writing"
