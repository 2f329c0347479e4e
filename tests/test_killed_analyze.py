"""A killed `graph analyze` leaves nothing that blocks: no worker alive, no lock held.

Everything here runs real processes and kills them with SIGKILL: the workers of
each kind (extraction, resolution, the forked sidecar writer) under a parent
that is killed, a whole `graph analyze` of a few thousand files killed mid-run,
and a lock whose flock outlived the process its file names.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from codeimpact.graph import layout, lock
from codeimpact.indexer.lifeline import die_with_parent

GONE_WITHIN_S = 20  # a bound on waiting, not a timing assertion


def _stat(pid: int) -> tuple[str, int, int] | None:
    """(state, ppid, pgid) of a process, or None once it is gone."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    fields = raw[raw.rfind(b")") + 2 :].split()
    return fields[0].decode(), int(fields[1]), int(fields[2])


def _alive(pid: int) -> bool:
    st = _stat(pid)
    return st is not None and st[0] not in ("Z", "X")  # a zombie runs nothing


def children_of(pid: int) -> list[int]:
    return [p for p in _all_pids() if (st := _stat(p)) is not None and st[1] == pid]


def group_members(pgid: int) -> list[int]:
    return [p for p in _all_pids() if (st := _stat(p)) is not None and st[2] == pgid]


def _all_pids() -> list[int]:
    return [int(n) for n in os.listdir("/proc") if n.isdigit()]


def wait_until(check, limit: float = GONE_WITHIN_S) -> bool:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return check()


# -------------------------------------------------------------- each kind of worker
PARENTS = {
    "extraction": """
        from codeimpact.indexer.workers import extract_parallel
        items = [(f"f{i}.py", "python", b"def f():\\n    return 1\\n") for i in range(50)]
        def on_blob(path, blob):
            print("ready", flush=True)
            time.sleep(600)  # the parent stops here, its workers alive
        extract_parallel(items, 2, 600, None, on_blob)
    """,
    "resolution": """
        from codeimpact.indexer.resolve_workers import resolve_parallel
        def slow(path):
            time.sleep(600)
        paths = [f"f{i}.py" for i in range(100)]
        print("ready", flush=True)
        for _ in resolve_parallel(paths, slow, 2):
            pass
    """,
    "sidecar writer": """
        from codeimpact.indexer.forked_job import ForkedJob
        job = ForkedJob(lambda: time.sleep(600), fork=True, name="sidecars")
        print("ready", flush=True)
        time.sleep(600)
    """,
}


@pytest.mark.parametrize("kind", sorted(PARENTS))
def test_workers_die_with_their_killed_parent(kind):
    code = "import time\n" + textwrap.dedent(PARENTS[kind])
    workers: list[int] = []
    parent = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout.readline().strip() == "ready"
        assert wait_until(lambda: len(children_of(parent.pid)) >= 1)
        workers = children_of(parent.pid)
        parent.kill()
        parent.wait()
        assert wait_until(lambda: not any(_alive(p) for p in workers)), [
            (p, _stat(p)) for p in workers if _alive(p)
        ]
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
        _kill_survivors(workers)


def _kill_survivors(pids: list[int]) -> None:
    """A failed test must not leave the orphans it found running."""
    for p in pids:
        if _alive(p):
            os.kill(p, signal.SIGKILL)


def test_a_child_whose_parent_is_already_gone_exits_at_once():
    # the race the death signal cannot close: the parent died between fork and prctl
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        die_with_parent(parent_pid=1 if os.getppid() != 1 else 2)  # not its parent
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 1


# ------------------------------------------------------------- a whole analyze
def _make_tree(root: Path, files: int) -> None:
    for i in range(files):
        pkg = root / f"pkg{i // 100}"
        pkg.mkdir(parents=True, exist_ok=True)
        (pkg / "__init__.py").touch()
        body = "\n".join(
            f"def f{i}_{j}(x):\n    return g{i}_{j}(x) + {j}\n\n\ndef g{i}_{j}(x):\n    return x\n"
            for j in range(20)
        )
        (pkg / f"m{i}.py").write_text(f"import os\n\n{body}\n\nclass C{i}:\n    def m(self):\n"
                                      f"        return f{i}_0(1)\n")  # fmt: skip


def _graph(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "codeimpact", *args],
        capture_output=True,
        text=True,
        timeout=600,
        **kw,
    )


@pytest.fixture(scope="module")
def big_tree(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("killed") / "tree"
    _make_tree(root, 1500)
    out = _graph("analyze", "--index-only", "--workers", "2", str(root))
    assert out.returncode == 0, out.stderr
    return root


def test_kill_9_of_analyze_leaves_no_worker_and_no_blocking_lock(big_tree):
    live_before = layout.read_current(layout.index_dir(big_tree))
    killed = subprocess.Popen(
        [sys.executable, "-m", "codeimpact", "analyze", "--force", "--index-only",
         "--workers", "2", str(big_tree)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # its own process group: every process it starts is in it
    )  # fmt: skip
    try:
        # mid-run: its extraction workers are up
        assert wait_until(lambda: len(children_of(killed.pid)) >= 2, limit=120)
        workers = children_of(killed.pid)
        os.kill(killed.pid, signal.SIGKILL)
        killed.wait()
        assert wait_until(lambda: not any(_alive(p) for p in group_members(killed.pid))), [
            (p, _stat(p)) for p in group_members(killed.pid) if _alive(p)
        ]
        assert not any(_alive(p) for p in workers)
    finally:
        _kill_survivors(group_members(killed.pid))

    # the previous generation is live and answers
    assert layout.read_current(layout.index_dir(big_tree)) == live_before
    out = _graph("search", "f17_3", "--repo", str(big_tree), "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["total"] >= 1
    impact = _graph("impact", "g17_3", "--repo", str(big_tree), "--json")
    assert impact.returncode == 0, impact.stderr
    assert json.loads(impact.stdout)["counts"]["direct"] >= 1

    # the next analyze runs at once: no --wait, no cleanup
    again = _graph("analyze", "--index-only", str(big_tree))
    assert again.returncode == 0, again.stderr
    assert _graph("status", "--check", str(big_tree)).returncode == 0


# --------------------------------------------------------------- a stale lock
HOLDER = """
import fcntl, json, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
fcntl.flock(fd, fcntl.LOCK_EX)
os.ftruncate(fd, 0)
os.write(fd, sys.argv[2].encode())
print("held", flush=True)
time.sleep(600)
"""


def _hold_lock(idx: Path, record: dict) -> subprocess.Popen:
    """A process holding the flock of `idx`'s lock, whose file names `record` as holder
    (as an orphaned worker of a killed analyze would)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(idx / lock.LOCK), json.dumps(record)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout.readline().strip() == "held"
    return proc


def _dead_pid() -> int:
    gone = subprocess.Popen(["true"])
    gone.wait()
    return gone.pid


@pytest.fixture
def small_repo(make_repo, index_repo):
    repo = make_repo({"a.py": "def f():\n    return 1\n\n\ndef g():\n    return f()\n"})
    index_repo(repo)
    return repo


@pytest.mark.parametrize(
    ("record", "running"),
    [
        pytest.param(lambda: {"pid": _dead_pid(), "since": time.time()}, False, id="holder gone"),
        pytest.param(
            lambda: {"pid": os.getpid(), "since": time.time(), "start": 1},
            False,
            id="pid reused by another process",
        ),
        pytest.param(
            lambda: {
                "pid": os.getpid(),
                "since": time.time(),
                "start": lock.process_start_ticks(os.getpid()),
            },
            True,
            id="holder runs",
        ),
    ],
)
def test_status_names_an_analyze_only_while_its_holder_runs(small_repo, record, running):
    # A child of a killed analyze can hold the flock for a moment while it dies: status
    # must not call that an analyze in progress (the next writer takes such a lock over).
    idx = layout.index_dir(small_repo)
    stray = _hold_lock(idx, record())
    try:
        assert (lock.lock_holder(idx) is not None) is running
        out = _graph("status", "--json", str(small_repo))
        assert out.returncode == 0, out.stderr
        analyzing = json.loads(out.stdout)["analyzing"]
        assert (analyzing is not None) is running, analyzing
        if running:
            assert analyzing["pid"] == os.getpid()
    finally:
        stray.kill()
        stray.wait()


@pytest.mark.parametrize(
    "record",
    [
        pytest.param(lambda: {"pid": _dead_pid(), "since": time.time()}, id="holder gone"),
        pytest.param(
            lambda: {"pid": os.getpid(), "since": time.time(), "start": 1},
            id="pid reused by another process",
        ),
    ],
)
def test_a_lock_whose_holder_is_gone_is_taken_over(small_repo, record):
    idx = layout.index_dir(small_repo)
    stray = _hold_lock(idx, record())
    try:
        out = _graph("analyze", str(small_repo))
        assert out.returncode == 0, out.stderr
        lines = out.stderr.splitlines()
        assert len(lines) == 1 and "took over the index lock" in lines[0], out.stderr
        assert _graph("status", "--check", str(small_repo)).returncode == 0
        assert lock.lock_holder(idx) is None  # the stray holds only the replaced file
    finally:
        stray.kill()
        stray.wait()


def test_a_lock_whose_holder_runs_is_not_taken_over(small_repo):
    idx = layout.index_dir(small_repo)
    me = {
        "pid": os.getpid(),
        "since": time.time(),
        "start": lock.process_start_ticks(os.getpid()),
    }
    stray = _hold_lock(idx, me)
    try:
        out = _graph("analyze", str(small_repo))
        assert out.returncode == 5, out.stderr
        assert f"pid {os.getpid()}" in out.stderr
    finally:
        stray.kill()
        stray.wait()
