"""The process that brings the spare level after an incremental run publishes.

`start` forks it once the run has published (graph/spare_level.py says what it does and why
a kill of it at any point costs at most a copy). It is detached: a process of its own
session, its standard streams on /dev/null (a caller capturing the run's output is not kept
waiting), not killed with the run (the run is over), nobody waits for it. The spare's lock
is taken before the fork and the leveller inherits it, so no run can take the spare between
the publish and the leveller's start; the next run that wants the spare waits for it to end
(`spare.held`). It records its pid in the lock file, for a run that waited too long to kill
it. With another Python thread running a fork is unsafe (indexer/fork_guard.py): nothing is
forked, and the next run brings the spare level itself, as it did before.
"""

from __future__ import annotations

import contextlib
import faulthandler
import gc
import os
from pathlib import Path
from typing import Any

from codeimpact.graph import lock, spare, spare_level
from codeimpact.graph.delta import GraphDelta
from codeimpact.indexer.fork_guard import FORKED, fork_unsafe_reason


def start(idx: Path, live: int, delta: GraphDelta, meta: dict[str, Any], rows: dict[str, int],
          buffer_pool: int) -> str:  # fmt: skip
    """Fork the leveller of the spare to generation `live` (just published: `delta` made it
    from the one before, `meta` and `rows` are its Meta and row counts). Returns what the
    run's report says of it (`forks`)."""
    unsafe = fork_unsafe_reason()
    if unsafe:
        return f"not run: {unsafe}; the next run brings the spare level"
    with spare.held(idx) as fd:
        if not spare_level.levellable(idx, live):
            return "not run: no spare of the generation before"
        pid = os.fork()
        if pid == 0:  # never returns
            _leveller(fd, idx, live, delta, meta, rows, buffer_pool)
        os.waitpid(pid, 0)  # the intermediate child, which exits at once
    return FORKED


def _leveller(fd: int, idx: Path, live: int, delta: GraphDelta, meta: dict[str, Any],
              rows: dict[str, int], buffer_pool: int) -> None:  # fmt: skip
    code = 1
    try:
        os.setsid()  # (a Ctrl-C at the terminal is for the next command, not for it)
        if os.fork():
            os._exit(0)  # the leveller is the grandchild: nobody has to reap it
        gc.disable()  # it touches few objects: the run's heap stays shared, not copied
        faulthandler.disable()  # (its file may be a copy of the caller's stderr)
        null = os.open(os.devnull, os.O_RDWR)
        for std in (0, 1, 2):
            os.dup2(null, std)
        os.close(null)
        me = os.getpid()
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{me} {lock.process_start_ticks(me)}\n".encode(), 0)
        spare_level.level(idx, live, delta, meta, rows, buffer_pool)
        code = 0
    except BaseException:  # a failed levelling leaves no record: the next run copies
        pass
    finally:
        os._exit(code)  # no destructor runs: the spare's database must not be closed
