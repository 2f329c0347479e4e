"""Extraction in worker processes, with a per-file time limit.

tree-sitter's Python binding (0.26) can no longer cancel a parse, so a
pathological file is stopped from outside: each worker says which file it
starts, and a worker still on one file after the limit is killed, the file is
recorded as `timeout`, and a fresh worker carries on with the rest.

Workers are forked and inherit the list of work, so only indices travel to
them and only compact facts blobs travel back.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import queue
import signal
import time
from collections.abc import Callable

from codeimpact.indexer.reading import extract_source

Item = tuple[str, str, bytes]  # (path, language, bytes)

_ITEMS: list[Item] = []  # set in the parent just before forking; read by the workers


def _worker(tasks, results, wid: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    while True:
        idx = tasks.get()
        if idx is None:
            return
        results.put(("start", wid, idx, time.monotonic()))
        path, language, data = _ITEMS[idx]
        try:
            blob = extract_source(language, data)
            results.put(("done", wid, idx, blob))
        except Exception as e:  # an extractor bug must not stop the run
            results.put(("error", wid, idx, f"{type(e).__name__}: {e}"))


def extract_parallel(
    items: list[Item],
    workers: int,
    timeout_s: float,
    progress: Callable[[str, int, int], None] | None = None,
) -> tuple[dict[str, bytes], dict[str, str]]:
    """Facts blobs by path, and the files that failed (path -> `timeout: ...`/`error: ...`)."""
    global _ITEMS
    ctx = mp.get_context("fork")
    # biggest first, so a large file does not finish last
    order = sorted(range(len(items)), key=lambda i: -len(items[i][2]))
    _ITEMS = items
    tasks = ctx.Queue()
    results = ctx.Queue()
    for i in order:
        tasks.put(i)
    procs: dict[int, mp.Process] = {}
    current: dict[int, tuple[int, float]] = {}  # worker -> (item, started)
    next_wid = 0

    def spawn() -> None:
        nonlocal next_wid
        p = ctx.Process(target=_worker, args=(tasks, results, next_wid), daemon=True)
        p.start()
        procs[next_wid] = p
        next_wid += 1

    n_workers = max(1, min(workers, len(items)))
    for _ in range(n_workers):
        spawn()
    blobs: dict[str, bytes] = {}
    failed: dict[str, str] = {}
    finished = 0
    try:
        while finished < len(items):
            try:
                kind, wid, idx, payload = results.get(timeout=0.05)
            except queue.Empty:
                kind = None
            if kind == "start":
                current[wid] = (idx, payload)
            elif kind in ("done", "error"):
                current.pop(wid, None)
                finished += 1
                if kind == "done":
                    blobs[items[idx][0]] = payload
                else:
                    failed[items[idx][0]] = f"error: {payload}"
                if progress:
                    progress("extract", finished, len(items))
            now = time.monotonic()
            for wid, (idx, started) in list(current.items()):
                if now - started > timeout_s:
                    p = procs.pop(wid)
                    os.kill(p.pid, signal.SIGKILL)
                    p.join()
                    current.pop(wid)
                    failed[items[idx][0]] = f"timeout: parse took over {timeout_s:g}s"
                    finished += 1
                    spawn()
            for wid, p in list(procs.items()):
                if not p.is_alive() and wid in current and p.exitcode not in (0, None):
                    # a worker that died (e.g. a crash in a grammar): that file fails, go on
                    idx, _ = current.pop(wid)
                    procs.pop(wid)
                    failed[items[idx][0]] = f"error: worker exited with {p.exitcode}"
                    finished += 1
                    spawn()
    finally:
        for _ in procs:
            tasks.put(None)
        for p in procs.values():
            p.join(timeout=5)
            if p.is_alive():
                p.kill()
        tasks.close()
        results.close()
        _ITEMS = []
    return blobs, failed
