"""One job run in a forked child while the parent goes on with other work.

A new index's runner identity (indexer/identity.py) is computed by a child
while the parent lists the files: each alone would leave a core idle.

The child gets its inputs by fork (copy-on-write, nothing is serialised) and
sends back only an exception, if it raised one, which `wait` raises in the
parent. Forking is skipped when the run was asked to use one process, or when
this process runs other Python threads (indexer/fork_guard.py): the job then
runs in the caller, in `start`, exactly as before; `path` says which ran.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Callable

from codeimpact.indexer.fork_guard import FORKED, fork_unsafe_reason, in_process
from codeimpact.indexer.lifeline import die_with_parent


class ForkedJobError(RuntimeError):
    """The child died without a word (killed, or a crash in native code)."""


def _child(conn, job: Callable[[], None], parent_pid: int) -> None:
    die_with_parent(parent_pid)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    try:
        job()
        conn.send(None)
    except BaseException as e:  # everything goes to the parent, which raises it
        try:
            import pickle

            pickled = pickle.dumps(e)
        except Exception:
            pickled = None
        conn.send((pickled, f"{type(e).__name__}: {e}"))


class ForkedJob:
    """`job()` in a forked child (or at once in this process: see the module docstring)."""

    def __init__(self, job: Callable[[], None], *, fork: bool, name: str = "the forked job",
                 why_not: str = "not asked to fork"):  # fmt: skip
        self.name = name
        self._proc = None
        self._conn = None
        unsafe = fork_unsafe_reason() if fork else why_not
        # which path ran, for the run's report: "forked", or "in this process: why"
        self.path = in_process(unsafe) if unsafe else FORKED
        if self.path != FORKED:
            job()
            return
        # here, not at the top: a run that forks nothing (a no-op) never imports it
        import multiprocessing as mp

        ctx = mp.get_context("fork")
        self._conn, child = ctx.Pipe(duplex=False)
        self._proc = ctx.Process(target=_child, args=(child, job, os.getpid()), daemon=True)
        self._proc.start()
        child.close()

    @property
    def forked(self) -> bool:
        return self._proc is not None

    def exited(self) -> None:
        """Until the child has exited, its answer left for `wait`: safe from another thread."""
        proc = self._proc
        if proc is not None:
            from multiprocessing.connection import wait

            wait([proc.sentinel])

    def wait(self) -> None:
        """Until the job is done; raises what it raised."""
        if self._proc is None:
            return
        proc, conn = self._proc, self._conn
        self._proc = self._conn = None
        try:
            answer = conn.recv()
        except (EOFError, OSError):
            proc.join()
            raise ForkedJobError(f"{self.name} exited with code {proc.exitcode}") from None
        finally:
            conn.close()
        proc.join()
        if answer is None:
            return
        pickled, text = answer
        import pickle

        try:
            error = pickle.loads(pickled) if pickled is not None else None
        except Exception:  # an exception class that does not unpickle: its text still tells
            error = None
        raise error if isinstance(error, BaseException) else RuntimeError(text)

    def cancel(self) -> None:
        """Stop the child now (the run failed or was interrupted); a no-op once waited for."""
        if self._proc is None:
            return
        self._proc.kill()
        self._proc.join()
        with contextlib.suppress(OSError):
            self._conn.close()
        self._proc = self._conn = None
