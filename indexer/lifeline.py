"""Forked workers die with the process that forked them.

`kill -9` of `graph analyze` gives it no chance to stop its workers (extraction,
resolution, the database writer). Left alive they would go on using CPU, hold
copies of the index lock's file (see `graph/layout.py`) and write into a
generation folder nobody will publish. So each worker calls `die_with_parent`
first thing after the fork:

- On Linux, `prctl(PR_SET_PDEATHSIG, SIGKILL)` asks the kernel to kill it when
  the thread that forked it exits (every fork happens on the thread that runs
  the build, which outlives its workers).
- The parent may have died between the fork and that call, and then the kernel
  will never send the signal: the worker checks that its parent is still the
  process that forked it and exits at once if it is not.
- Elsewhere (no prctl), a daemon thread watches the parent pid instead.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

PR_SET_PDEATHSIG = 1
WATCH_INTERVAL_S = 0.5


def _set_death_signal(sig: int) -> bool:
    """Whether the kernel will send `sig` to this process when its parent dies."""
    if not sys.platform.startswith("linux"):
        return False
    try:  # the extension every run loads (native/runner.py): ctypes' import was ~2 ms of each
        from codeimpact.native._syntax import set_death_signal
    except ImportError:  # not built: through libc
        pass
    else:
        return set_death_signal(sig)
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, sig, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch_parent(parent_pid: int) -> None:
    while os.getppid() == parent_pid:
        time.sleep(WATCH_INTERVAL_S)
    os._exit(1)


def die_with_parent(parent_pid: int) -> None:
    """Call in a forked child, first; `parent_pid` is the parent's `os.getpid()` before the fork."""
    if not _set_death_signal(signal.SIGKILL):
        threading.Thread(target=_watch_parent, args=(parent_pid,), daemon=True).start()
    if os.getppid() != parent_pid:  # orphaned before the death signal was set
        os._exit(1)
