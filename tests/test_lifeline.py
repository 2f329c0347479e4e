"""A forked worker asks the kernel for its death signal through the native extension that
every run loads, not through ctypes (whose import was ~2 ms of every run's start-up)."""

from __future__ import annotations

import subprocess
import sys

import pytest

CHILD = """
import os, signal, sys
from codeimpact.indexer import lifeline

pid = os.fork()
if pid == 0:
    ok = lifeline._set_death_signal(signal.SIGUSR1)
    if not ok or "ctypes" in sys.modules:
        os._exit(2)
    import ctypes  # only now, to read the signal back: PR_GET_PDEATHSIG

    sig = ctypes.c_int(0)
    ctypes.CDLL(None).prctl(2, ctypes.byref(sig), 0, 0, 0)
    os._exit(0 if sig.value == signal.SIGUSR1 else 3)
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux's")
def test_the_death_signal_is_set_natively_without_importing_ctypes():
    assert subprocess.run([sys.executable, "-c", CHILD]).returncode == 0
