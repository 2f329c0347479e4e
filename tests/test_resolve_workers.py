"""A full build resolved in worker processes says exactly what a serial one says."""

from __future__ import annotations

import os
import shutil
import time

import pytest
from test_incremental import dump

from codeimpact.indexer.build import PARALLEL_RESOLVE_MIN, analyze, resolve_workers
from codeimpact.indexer.config import IndexConfig, RunOptions
from codeimpact.indexer.fork_guard import FORKED
from codeimpact.indexer.resolve_workers import ResolveError, resolve_parallel
from conftest import write_files


def _package(n: int) -> dict[str, str]:
    """`n` modules that import, call, subclass and override one another across files."""
    files = {"pkg/__init__.py": "from pkg.m0 import Base0\n"}
    for i in range(n):
        prev = f"m{i - 1}" if i else None
        head = f"from pkg.{prev} import Base{i - 1}, helper{i - 1}\n" if prev else ""
        base = f"Base{i - 1}" if prev else "object"
        call = f"helper{i - 1}(x) + " if prev else ""
        files[f"pkg/m{i}.py"] = (
            f"{head}import os\n\n\n"
            f"def helper{i}(x):\n    return {call}len(os.sep) + x\n\n\n"
            f"class Base{i}({base}):\n"
            f"    def run(self, x):\n        return self.step(helper{i}(x))\n\n"
            f"    def step(self, x):\n        return x\n\n\n"
            f"def use{i}(obj: Base{i}):\n    return obj.run(1)\n"
        )
    files["tests/test_pkg.py"] = (
        "from pkg.m3 import use3, Base3\n\n\ndef test():\n    use3(Base3())\n"
    )
    return files


def test_a_build_resolved_by_workers_equals_a_serial_build(tmp_path):
    from test_fork_paths import OtherThread

    one, two, three = tmp_path / "one", tmp_path / "two", tmp_path / "three"
    write_files(one, _package(PARALLEL_RESOLVE_MIN + 40))
    shutil.copytree(one, two)
    shutil.copytree(one, three)
    serial = analyze(one, IndexConfig(), RunOptions(workers=1))
    parallel = analyze(two, IndexConfig(), RunOptions(workers=2))
    assert "resolvers" not in serial.forks and parallel.forks["resolvers"] == FORKED
    with OtherThread():  # no host process: the resolvers are built in the builder
        here = analyze(three, IndexConfig(), RunOptions(workers=2))
    assert here.forks["resolvers"].startswith("in this process: 1 other Python thread")
    assert serial.edges == parallel.edges == here.edges
    assert parallel.edges["CALLS"] > 3 * PARALLEL_RESOLVE_MIN
    assert parallel.edges["EXTENDS"] >= PARALLEL_RESOLVE_MIN
    assert dump(one, with_answers=False) == dump(two, with_answers=False)
    assert dump(one, with_answers=False) == dump(three, with_answers=False)


def _encode(path: str) -> tuple[bytes, bytes]:
    return path.encode(), str(len(path)).encode()


_PARENT = os.getpid()


def _dies_in_a_worker(path: str) -> tuple[bytes, bytes]:
    if path == "f0100" and os.getpid() != _PARENT:
        os._exit(3)  # a crash in a worker, not an exception
    return _encode(path)


def _raises(path: str) -> tuple[bytes, bytes]:
    if path == "f0042":
        raise KeyError(path)
    return _encode(path)


PATHS = [f"f{i:04d}" for i in range(500)]


@pytest.mark.parametrize("help_here", [False, True])
@pytest.mark.parametrize("resolve_one", [_encode, _dies_in_a_worker])
def test_outputs_come_in_path_order_even_when_a_worker_dies(resolve_one, help_here):
    got = list(resolve_parallel(PATHS, resolve_one, 1 if help_here else 2, help_here=help_here))
    assert got == [(p, p.encode(), str(len(p)).encode()) for p in PATHS]


def test_a_resolver_bug_in_a_worker_is_raised_in_the_parent():
    with pytest.raises(ResolveError, match="KeyError: 'f0042'"):
        list(resolve_parallel(PATHS, _raises, 2))


def test_resolution_forks_only_while_the_workers_would_fit_in_the_memory_budget():
    opts = RunOptions(workers=2, memory_budget_mb=3072)
    assert resolve_workers(opts, 3000, 300) == 2  # Django: the parent holds ~300 MB
    assert resolve_workers(opts, 50000, 2000) == 1  # 50,000 files: one copy would not fit
    # each worker counts COW_SHARE of the parent (what it copies), not a whole copy
    assert resolve_workers(RunOptions(workers=4, memory_budget_mb=3072), 9000, 700) == 4
    assert resolve_workers(RunOptions(workers=4, memory_budget_mb=3072), 9000, 1000) == 3
    assert resolve_workers(opts, PARALLEL_RESOLVE_MIN - 1, 10) == 1  # too small to pay a fork


def test_a_consumer_that_stops_early_leaves_no_worker_behind():
    import multiprocessing

    out = resolve_parallel(PATHS, _encode, 2)
    assert next(out) == ("f0000", b"f0000", b"5")
    out.close()  # the consumer failed: the workers are stopped at once, not waited for
    assert multiprocessing.active_children() == []


@pytest.mark.parametrize("workers", [1, 2])
def test_a_full_build_reports_the_progress_of_extraction_then_resolution(tmp_path, workers):
    write_files(tmp_path, _package(PARALLEL_RESOLVE_MIN + 10))
    seen: list[tuple[str, int, int]] = []
    report = analyze(tmp_path, IndexConfig(), RunOptions(workers=workers),
                     progress=lambda phase, done, total: seen.append((phase, done, total)))  # fmt: skip
    phases = [p for p, _, _ in seen]
    assert phases.index("resolve") > max(i for i, p in enumerate(phases) if p == "extract")
    resolve = [(d, t) for p, d, t in seen if p == "resolve"]
    assert resolve[-1] == (report.files, report.files)
    assert [d for d, _ in resolve] == sorted(d for d, _ in resolve)


# ------------------------------------------------- the host (indexer/resolve_host.py)
_BUILDER = os.getpid()


def _projects() -> dict:
    return {"built in": os.getpid()}


def _host_encoder(crash: str | None, error: str | None):
    def encoder(projects: dict):
        def one(path: str) -> tuple[bytes, bytes]:
            if path == crash and os.getpid() != _BUILDER:
                os._exit(3)  # the host or one of its workers crashes, not an exception
            if path == error:
                raise KeyError(path)
            return _encode(path)

        return one

    return encoder


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("crash", [None, "f0000", "f0300"])
def test_the_host_streams_every_output_in_order_and_the_builder_takes_over_when_it_dies(
    workers, crash
):
    from codeimpact.indexer.resolve_host import Host

    host = Host(_projects, _host_encoder(crash, None), lambda projects: workers, PATHS)
    got = list(host.results())
    assert got == [(p, p.encode(), str(len(p)).encode()) for p in PATHS]
    # the module names and summaries come from whichever process built the projects last
    assert host.modules == {"built in": None} and host.summaries == {}


def test_a_resolver_bug_in_the_host_is_raised_in_the_builder_and_no_process_is_left():
    import multiprocessing

    from codeimpact.indexer.resolve_host import Host

    host = Host(_projects, _host_encoder(None, "f0042"), lambda projects: 2, PATHS)
    with pytest.raises(ResolveError, match="KeyError: 'f0042'"):
        list(host.results())
    assert multiprocessing.active_children() == []


def _roles_encoder(crash: bool = False):
    """Outputs that name the process resolving them: "host", "worker" or "builder"; with
    `crash`, a worker dies at its first file."""

    def encoder(projects: dict):
        host = projects["built in"]

        def one(path: str) -> tuple[bytes, bytes]:
            me = os.getpid()
            role = "builder" if me == _BUILDER else "host" if me == host else "worker"
            if crash and role == "worker":
                os._exit(3)
            time.sleep(0.0005)  # (a file's resolution: the host does not take every chunk)
            return path.encode(), role.encode()

        return one

    return encoder


@pytest.mark.parametrize("crash", [False, True])
def test_the_host_and_its_worker_send_their_chunks_to_the_builder_in_order(crash):
    from codeimpact.indexer.resolve_host import Host

    host = Host(_projects, _roles_encoder(crash), lambda projects: 2, PATHS)
    got = list(host.results())
    assert [(p, b) for p, b, _ in got] == [(p, p.encode()) for p in PATHS]
    roles = [r for _, _, r in got]
    assert b"builder" not in roles  # no file resolved again here: the host lived
    # (a worker that died: what it took is resolved by the host)
    assert set(roles) == ({b"host"} if crash else {b"host", b"worker"})


def test_a_worker_takes_chunks_while_the_host_is_busy(tmp_path):
    """Every process takes its next chunk from one queue: while the host is held in the
    first chunk it took, its worker resolves every other one. (Handed out by the host
    between its own chunks, the worker resolved two and waited for the host.)"""
    from codeimpact.indexer.resolve_host import Host
    from codeimpact.indexer.resolve_workers import CHUNK_FILES

    seen = tmp_path / "worker"
    seen.touch()

    def encoder(projects: dict):
        host = projects["built in"]
        held = []

        def one(path: str) -> tuple[bytes, bytes]:
            if os.getpid() != host:
                with open(seen, "a") as f:
                    f.write(path + "\n")
                return path.encode(), b"worker"
            if not held:  # the host's first file: until the worker has done all the rest
                held.append(path)
                deadline = time.monotonic() + 30
                while time.monotonic() < deadline:
                    if len(seen.read_text().split()) >= len(PATHS) - CHUNK_FILES:
                        break
                    time.sleep(0.01)
            return path.encode(), b"host"

        return one

    got = list(Host(_projects, encoder, lambda projects: 2, PATHS).results())
    assert [p for p, _, _ in got] == PATHS
    roles = [r for _, _, r in got]
    assert roles.count(b"host") <= CHUNK_FILES
    assert roles.count(b"worker") >= len(PATHS) - CHUNK_FILES


def _pids_encoder(crash: tuple[str, str] | None):
    """Outputs that name the process resolving them: "host" or the worker's pid; a worker
    dies at a path in `crash` (the range [first, last))."""

    def encoder(projects: dict):
        host = projects["built in"]

        def one(path: str) -> tuple[bytes, bytes]:
            me = os.getpid()
            if crash and crash[0] <= path < crash[1] and me != host:
                os._exit(3)
            time.sleep(0.001)  # (a file's resolution: the host does not take every chunk)
            return path.encode(), b"host" if me == host else str(me).encode()

        return one

    return encoder


@pytest.mark.parametrize("crash", [None, ("f0600", "f9999")])
def test_the_worker_is_replaced_by_a_fresh_fork_at_each_mark(crash):
    # a worker holds its own copy of every page of the project it or the host wrote by the
    # end: fresh ones, forked at the marks, share the host's pages again
    import multiprocessing

    from codeimpact.indexer.resolve_host import GENERATIONS, Host
    from codeimpact.indexer.resolve_workers import CHUNK_FILES, RETIRE

    paths = [f"f{i:04d}" for i in range(40 * CHUNK_FILES)]
    host = Host(_projects, _pids_encoder(crash), lambda projects: 2, paths)
    got = list(host.results())
    assert [(p, b) for p, b, _ in got] == [(p, p.encode()) for p in paths]
    workers = [r for _, _, r in got if r != b"host"]
    runs = [w for i, w in enumerate(workers) if i == 0 or workers[i - 1] != w]
    # one after the other, each in a run of chunks of its own, from the first mark on; one
    # that dies (the second, in its share) leaves its chunks and the rest to the host
    assert GENERATIONS == len(RETIRE) + 1 == 3
    assert len(runs) == len(set(runs)) == (2 if crash else GENERATIONS)
    first = [p for p, _, r in got if r == runs[1]][0]
    assert paths.index(first) >= RETIRE[0] * len(paths)
    if crash:
        assert [r for p, _, r in got if p >= crash[0]] == [b"host"] * (len(paths) - 600)
    assert multiprocessing.active_children() == []


@pytest.mark.parametrize("workers", [1, 2])
def test_the_host_writes_the_shared_summaries_once_its_worker_is_forked(tmp_path, workers):
    # (resolution.stage_shared: encoded, written and synced beside the worker's first
    # chunks, not on the way to them; with no worker, before the host's first file)
    import multiprocessing

    from codeimpact.indexer.resolve_host import Host

    seen = tmp_path / "seen"

    def built(projects: dict) -> None:
        assert os.getpid() == projects["built in"]  # (in the host)
        seen.write_text(str(len(multiprocessing.active_children())))

    host = Host(_projects, _roles_encoder(), lambda projects: workers, PATHS, built)
    got = list(host.results())
    assert [(p, b) for p, b, _ in got] == [(p, p.encode()) for p in PATHS]
    assert seen.read_text() == str(workers - 1)


def test_a_host_that_sent_its_end_is_left_to_exit_and_reaped_later(monkeypatch):
    """results(reap_later=True) returns once the host sent its end and every chunk, without
    waiting for its exit (~170 MB freed on Django, on the critical path); reap() waits."""
    import multiprocessing
    import threading

    from codeimpact.indexer.resolve_host import Host

    r, w = os.pipe()
    done = Host._host

    def host(self, sinks, parent_pid):
        done(self, sinks, parent_pid)
        os.read(r, 1)  # (exiting: until the test lets it go)

    monkeypatch.setattr(Host, "_host", host)
    # (without reap_later the builder would wait for the host: let it go in the end)
    timer = threading.Timer(20, os.write, (w, b"x"))
    timer.start()
    try:
        h = Host(_projects, _host_encoder(None, None), lambda projects: 2, PATHS)
        got = list(h.results(reap_later=True))
        assert [p for p, _, _ in got] == PATHS
        assert len(multiprocessing.active_children()) == 1  # (the host, not waited for)
        os.write(w, b"x")
        h.reap()
        assert multiprocessing.active_children() == []
    finally:
        timer.cancel()
        os.close(r)
        os.close(w)


_RESOLVED_HERE = [0]  # (files resolved by this process: the host's count, in the host)


class _Summarised:
    """A project whose summaries note how many files the host had resolved when asked."""

    def __init__(self, note: str) -> None:
        self.note = note

    def summaries(self) -> dict:
        with open(self.note, "a") as f:
            f.write(f"{_RESOLVED_HERE[0]}\n")
        return {"a.py": ("a", (), (), ())}


def test_the_host_sends_the_files_summaries_once_its_worker_is_forked(tmp_path):
    """The files' summaries (made with the project) are encoded and sent beside the
    resolution, once the host's worker is forked and before the host resolves a file, not on
    the serial end after the last chunk."""
    import marshal

    from codeimpact.indexer.resolve_host import Host

    note = tmp_path / "note"

    def encoder(projects: dict):
        def one(path: str) -> tuple[bytes, bytes]:
            _RESOLVED_HERE[0] += 1
            return path.encode(), b""

        return one

    host = Host(lambda: {"python": _Summarised(str(note))}, encoder, lambda projects: 2, PATHS)
    assert [p for p, _, _ in host.results()] == PATHS
    assert host.summaries == {"a.py": marshal.dumps(("a", (), (), ()))}
    assert note.read_text().split() == ["0"]  # (asked once, in the host, before it resolved)


def test_the_host_sends_its_end_before_it_waits_for_its_workers_exits(tmp_path):
    """A worker's exit (its copies of the project's pages given back: ~10-20 ms on Django)
    is not waited for by the builder: the host sends its end once every chunk is in a sink,
    then reaps its workers."""
    import threading

    from codeimpact.indexer.resolve_host import Host

    go, pids = tmp_path / "go", tmp_path / "workers"

    def linger() -> None:  # (a process's exit waits for its threads that are not daemons)
        deadline = time.monotonic() + 20
        while not go.exists() and time.monotonic() < deadline:
            time.sleep(0.01)

    def encoder(projects: dict):
        host = projects["built in"]

        def one(path: str) -> tuple[bytes, bytes]:
            if os.getpid() != host and not threading.active_count() > 2:
                with open(pids, "a") as f:
                    f.write(f"{os.getpid()}\n")
                threading.Thread(target=linger).start()
            time.sleep(0.0005)  # (a file's resolution: the host does not take every chunk)
            return _encode(path)

        return one

    h = Host(_projects, encoder, lambda projects: 2, PATHS)
    try:
        got = list(h.results(reap_later=True))
        assert [p for p, _, _ in got] == PATHS
        lingering = [int(p) for p in pids.read_text().split()]
        assert lingering  # (the worker resolved a file)
        for pid in lingering:
            os.kill(pid, 0)  # still there: the end came before its exit
    finally:
        go.touch()
        h.reap()


@pytest.mark.parametrize("room", [None, 4096])
def test_every_chunk_is_taken_once_from_the_queue_even_when_its_pipe_is_small(room):
    """The chunk numbers sit in a pipe every process takes from; a pipe that cannot hold them
    all (4 KiB when its user has many pipes open: a write would block there) holds runs of
    chunks instead, each resolved by whoever took it."""
    import marshal

    from codeimpact.indexer.resolve_workers import _Queue

    n = 5000  # (20,000 bytes of numbers)
    queue = _Queue(n, room)
    assert queue.per == (1 if room is None else 5)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # a second taker, at the same time
        taken = []
        while (c := queue.take()) is not None:
            taken.append(c)
        os.write(w, marshal.dumps(taken))
        os._exit(0)
    os.close(w)
    mine = []
    while (c := queue.take()) is not None:
        mine.append(c)
    with os.fdopen(r, "rb") as f:
        theirs = marshal.loads(f.read())
    os.waitpid(pid, 0)
    queue.close()
    assert sorted(mine + theirs) == list(range(n))
    assert mine == sorted(mine) and theirs == sorted(theirs)


def _retirement_encoder(projects: dict, log: str):
    """Outputs whose keys say, at each worker's first file, how many of the workers forked
    before it still exist (b"earlier alive N"); a file takes 3 ms, a chunk ~70 ms: a
    replacement forked at the mark meets the worker it replaces in its last chunk."""
    host, me_first = projects["built in"], []

    def one(path: str) -> tuple[bytes, bytes]:
        time.sleep(0.003)
        me = os.getpid()
        if me == host or me in me_first:
            return path.encode(), b""
        me_first.append(me)
        with open(log, "a+") as f:
            f.seek(0)
            earlier = [int(line) for line in f.read().split()]
            f.write(f"{me}\n")
        alive = 0
        for pid in earlier:
            try:
                os.kill(pid, 0)  # (a zombie, exited but not reaped, still answers)
                alive += 1
            except ProcessLookupError:
                pass
        return path.encode(), f"earlier alive {alive}".encode()

    return one


def test_a_retired_worker_is_gone_before_its_replacement_is_forked(tmp_path):
    # the two would hold their copies of the project's pages at once, and the host, whose
    # every page the replacement shares again, would copy those it writes meanwhile: the
    # build's PSS peak (Django: +15-30 MB); the host forks the replacement once the old
    # worker has exited and been reaped
    from codeimpact.indexer.resolve_host import Host
    from codeimpact.indexer.resolve_workers import CHUNK_FILES

    log = str(tmp_path / "workers")
    paths = [f"f{i:04d}" for i in range(40 * CHUNK_FILES)]
    host = Host(_projects, lambda projects: _retirement_encoder(projects, log), lambda p: 2,
                paths)  # fmt: skip
    firsts = [keys for _, _, keys in host.results() if keys]
    assert len(firsts) == 3  # the first worker and its two replacements
    assert firsts == [b"earlier alive 0"] * 3
