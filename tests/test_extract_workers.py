"""Extraction workers: every file answered, in any mix of sizes, without the pipes jamming."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from codeimpact.indexer.reading import extract_source
from codeimpact.indexer.workers import extract_parallel

# Run in a child so that a deadlock fails the test (after the time limit) instead of hanging
# the suite. Thousands of small files after a few large ones: a worker held hundreds of small
# files per batch while the parent sent it a batch per answer; those filled the socket, the
# parent blocked sending and the worker blocked answering (a real 52,452-file tree hung so).
_MANY_SMALL_FILES = textwrap.dedent(
    """
    from codeimpact.indexer.workers import extract_parallel
    items = [(f"big{i}.py", "python", b"def f(x):\\n    return g(x)\\n" * 20000) for i in range(4)]
    items += [(f"f{i}.py", "python", b"x = 1\\n" * 15) for i in range(30000)]
    got = []
    n, failed = extract_parallel(items, 2, 60.0, None, lambda path, blob: got.append(path))
    assert n == len(items) and not failed, (n, failed)
    assert sorted(got) == sorted(p for p, _, _ in items)
    print("ok")
    """
)


def test_many_small_files_after_large_ones_do_not_deadlock_the_workers():
    out = subprocess.run(
        [sys.executable, "-c", _MANY_SMALL_FILES], capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "ok"


def test_workers_give_the_same_blob_as_extracting_in_this_process():
    items = [
        (
            f"m{i}.py",
            "python",
            f"import os\n\ndef f{i}(x):\n    return os.path.join(x, {i})\n".encode(),
        )
        for i in range(300)
    ]
    items.append(("app.ts", "typescript", b"export function g(a: number) { return h(a); }\n"))
    blobs: dict[str, bytes] = {}
    n, failed = extract_parallel(items, 2, 60.0, None, blobs.__setitem__)
    assert n == len(items) and not failed
    for path, language, data in items:
        assert blobs[path] == extract_source(language, data), path


def test_workers_read_files_the_parent_did_not_keep(tmp_path):
    """A file the scan hashed but did not keep is read by its worker: the same blob as from
    bytes; one changed since the scan is reported with its new hash (its blob is of what
    was parsed); one gone since is a skipped file, not a failed run."""
    from codeimpact.indexer.reading import read_source
    from codeimpact.indexer.workers import Unread

    items = []
    for i in range(40):
        (tmp_path / f"m{i}.c").write_bytes(f"int f{i}(int x) {{ return g(x) + {i}; }}\n".encode())
        rr = read_source(str(tmp_path), f"m{i}.c", 1 << 20)
        items.append((f"m{i}.c", "c", Unread(rr.size, rr.content_hash)))
    (tmp_path / "m3.c").write_bytes(b"int changed(void) { return 0; }\n")
    (tmp_path / "m5.c").unlink()
    blobs: dict[str, bytes] = {}
    reread: dict[str, tuple[int, str]] = {}
    n, failed = extract_parallel(items, 2, 60.0, None, blobs.__setitem__, root=str(tmp_path),
                                 max_size=1 << 20,
                                 on_read=lambda p, r: reread.__setitem__(p, (r.size, r.content_hash)))  # fmt: skip
    assert n == len(items) - 1 and list(failed) == ["m5.c"]
    assert failed["m5.c"].startswith("unreadable: ")
    now = read_source(str(tmp_path), "m3.c", 1 << 20)
    assert reread == {"m3.c": (now.size, now.content_hash)}
    for path, _language, _unread in items:
        if path != "m5.c":
            assert blobs[path] == extract_source("c", (tmp_path / path).read_bytes()), path


def test_a_scan_that_keeps_no_bytes_indexes_the_same_graph(tmp_path, monkeypatch):
    """Past SCAN_KEEP_BYTES the scan drops the bytes it read and extraction reads the files
    again (a kernel tree's source is not held): the index is the same. A new index (and a
    forced rebuild) is read by its extraction workers without a scan, so each repository is
    indexed, every file changed, and indexed again: that run's scan keeps the bytes or not."""
    from codeimpact.indexer import pipeline, scanning
    from codeimpact.indexer.build import analyze

    held: list[int] = []
    real_scan = pipeline.scan

    def counted(*args, **kwargs):
        records, data = real_scan(*args, **kwargs)
        held.append(len(data))
        return records, data

    monkeypatch.setattr(pipeline, "scan", counted)
    reports = []
    for keep in (scanning.SCAN_KEEP_BYTES, 0):
        repo = tmp_path / f"keep{keep}"
        repo.mkdir()
        (repo / "util.h").write_bytes(b"int helper(int x);\n")
        (repo / "util.c").write_bytes(b'#include "util.h"\nint helper(int x) { return x; }\n')
        (repo / "main.c").write_bytes(b'#include "util.h"\nint main(void) { return helper(1); }\n')
        (repo / "app.py").write_bytes(b"def f():\n    return g()\n\ndef g():\n    return 1\n")
        analyze(repo)
        for f in repo.iterdir():
            if f.is_file():
                f.write_bytes(f.read_bytes() + (b"# x\n" if f.suffix == ".py" else b"/* x */\n"))
        monkeypatch.setattr(scanning, "SCAN_KEEP_BYTES", keep)
        reports.append(analyze(repo))
    # the second runs scanned: the first kept every file's bytes, the second none
    assert held == [4, 0]
    full, reread = reports
    assert reread.parsed == full.parsed == 4
    assert (reread.symbols, reread.edges, reread.calls) == (full.symbols, full.edges, full.calls)
    assert full.edges["CALLS"] >= 2


# Each language's query and fact engine are made once, by the process that forks the
# workers, not by every worker at its first file (~30 ms of query analysis per language).
_ENGINES_BEFORE_THE_FORK = textwrap.dedent(
    """
    import importlib, os, sys
    from codeimpact.indexer.workers import extract_parallel
    py = importlib.import_module("codeimpact.indexer.lang.python.extract")
    queries = importlib.import_module("codeimpact.indexer.lang.queries")
    made_by = sys.argv[1]

    def noted(make):
        def wrapper(*args, **kwargs):
            with open(made_by, "a") as fh:
                fh.write(f"{os.getpid()}\\n")
            return make(*args, **kwargs)
        return wrapper

    # (both are called on a cache miss only: once per language and process)
    py.fact_engine, queries.QueryRunner = noted(py.fact_engine), noted(queries.QueryRunner)
    items = [(f"m{i}.py", "python", b"import os\\nos.path.join(1)\\n") for i in range(20)]
    items += [(f"m{i}.js", "javascript", b"const a = require('b');\\na.c();\\n") for i in range(20)]
    n, failed = extract_parallel(items, 2, 60.0, None, lambda path, blob: None)
    assert n == len(items) and not failed, (n, failed)
    print(os.getpid())
    """
)


def test_engines_are_made_before_the_workers_are_forked(tmp_path):
    made_by = tmp_path / "made_by"
    out = subprocess.run(
        [sys.executable, "-c", _ENGINES_BEFORE_THE_FORK, str(made_by)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-2000:]
    # python's engine and javascript's runner, made in the parent only
    made = made_by.read_text().split()
    assert len(made) >= 2 and set(made) == {out.stdout.strip()}, made


# Every worker forked here starts 0.4 s late (a fork hook that sleeps in the child: a busy
# machine scheduling it late), and its files take far less than the 0.2 s timeout.
_SLOW_START = textwrap.dedent(
    """
    import os, time
    from codeimpact.indexer.workers import extract_parallel
    os.register_at_fork(after_in_child=lambda: time.sleep(0.4))
    items = [(f"f{i}.py", "python", b"def f(x):\\n    return g(x)\\n") for i in range(6)]
    n, failed = extract_parallel(items, 2, 0.2, None, lambda path, blob: None)
    print(n, sorted(failed.items()))
    """
)


def test_a_worker_slow_to_start_does_not_time_out_its_first_files():
    # the timeout is the parse's: a worker's own start-up is not charged to the file it holds
    out = subprocess.run([sys.executable, "-c", _SLOW_START], capture_output=True, text=True,
                         timeout=60)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[0] == "6 []"


def test_files_added_after_the_workers_forked_are_extracted_as_the_others():
    """Items listed while the workers run (a new index's discover: Extraction.add) reach
    workers that never inherited them, each its own blob; answers that came meanwhile are
    kept for `run`."""
    from codeimpact.indexer.workers import Extraction

    items = [
        (f"m{i}.py", "python", f"def f{i}(x):\n    return g{i}(x) + {i}\n".encode() * (1 + i % 7))
        for i in range(400)
    ]
    items.append(("late.ts", "typescript", b"export function g(a: number) { return h(a); }\n"))
    pool = Extraction(items[:40], 2, 60.0)
    try:
        for k in range(40, len(items), 60):  # (the first ones answered meanwhile)
            pool.add(items[k : k + 60])
        blobs: dict[str, bytes] = {}
        n, failed = pool.run(None, blobs.__setitem__)
    finally:
        pool.cancel()
    assert n == len(items) and not failed, failed
    for path, language, data in items:
        assert blobs[path] == extract_source(language, data), path


def test_a_worker_killed_while_items_are_added_leaves_the_others_to_finish():
    """A worker that dies while discover still lists files (a crash in a grammar) is seen by
    `run`, as one that dies later: `add` hands its items on, never raises."""
    import os
    import signal

    from codeimpact.indexer.workers import Extraction

    items = [(f"m{i}.py", "python", f"def f{i}():\n    return {i}\n".encode()) for i in range(300)]
    pool = Extraction(items[:40], 2, 60.0)
    try:
        victim = next(iter(pool._procs.values()))[0]
        os.kill(victim.pid, signal.SIGKILL)
        victim.join()
        for k in range(40, len(items), 20):
            pool.add(items[k : k + 20])
        blobs: dict[str, bytes] = {}
        n, failed = pool.run(None, blobs.__setitem__)
    finally:
        pool.cancel()
    # (the file the killed worker was on, if it was on one, is failed: the rest extracted)
    assert n + len(failed) == len(items) and len(failed) <= 1, failed
    assert all(why.startswith("error: worker exited") for why in failed.values()), failed
    for path, language, data in items:
        if path not in failed:
            assert blobs[path] == extract_source(language, data), path


def test_the_parent_takes_the_answers_of_several_files_per_wakeup(monkeypatch):
    """While every worker holds more work, the parent reads the answers a few ms after a
    wakeup that took some (workers._PACE_S): each wakeup (a read, the worker handed more) cost
    ~1,100 bytecodes beside its answers, once per answer or so when the workers answered as
    fast as the parent read, while both cores parse. Every file is still answered."""
    from codeimpact.indexer import workers

    reads: list[int] = []
    real_read = workers._Inbox.read

    def read(inbox, fd):
        answers = real_read(inbox, fd)
        reads.append(len(answers))
        return answers

    monkeypatch.setattr(workers._Inbox, "read", read)
    body = "".join(f"def f{i}(x):\n    return g(x, {i})\n" for i in range(20)).encode()
    items = [(f"m{i}.py", "python", body + f"# {i}\n".encode()) for i in range(3000)]
    got: list[str] = []
    n, failed = extract_parallel(items, 2, 60.0, None, lambda path, blob: got.append(path))
    assert n == len(items) and not failed and len(got) == len(items)
    assert sum(reads) == len(items) + 2  # (each worker's READY)
    assert len(reads) <= len(items) / 2, (len(reads), len(items))
