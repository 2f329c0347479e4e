"""Whether this process may fork now, and if not, why: one rule for every forked job.

A fork copies only the thread that calls it: a lock another Python thread holds (the
allocator's, logging's, an import lock) stays held in the child, which would wait for it
forever. So each job the indexer would fork (the prestarted database writer, the sidecar
writer, the incremental delta's commit) takes its other path while another thread runs, and
the run's report (`AnalyzeReport.forks`, `analyze --json`) says which path each job took
and why, so a slow or different run is explained by its report.

Native threads (Kùzu's, Arrow's) are not Python threads and are not seen here: the callers
fork before those start, or in a process that has none.
"""

from __future__ import annotations

import threading

FORKED = "forked"


def fork_unsafe_reason() -> str:
    """Empty when this process may fork now; otherwise why not, naming the other threads."""
    me = threading.current_thread()
    others = sorted(t.name for t in threading.enumerate() if t is not me)
    if not others:
        return ""
    shown = ", ".join(others[:3]) + (f" and {len(others) - 3} more" if len(others) > 3 else "")
    return f"{len(others)} other Python thread(s) running ({shown}): a fork copies only one"


def in_process(reason: str) -> str:
    """What a report says of a job that ran in this process instead of a forked child."""
    return f"in this process: {reason}"
