"""The process that brings the spare level after an incremental run publishes.

`start` runs it once the run has published (graph/spare_level.py says what it does and why
a kill of it at any point costs at most a copy). It is a fresh interpreter, not a fork of
the run: a caller may hold native threads (an MCP server with a Kùzu database open, an
agent's process), and a forked child holds a copy of whatever lock one of them held at the
fork, never released (fork_guard sees only Python threads). `/bin/sh` starts it in the
background and exits: the run waits for that shell only (~2 ms), so no child of the caller
is left running or unreaped; the leveller belongs to no one (init reaps it). It is detached:
a session of its own, its standard streams on /dev/null (a caller capturing the run's
output is not kept waiting), not killed with the run (the run is over).

What it levels with (the run's delta, the live generation's Meta and row counts) is in a
file of the spare's folder (JOB_NAME: plain data), written before it starts. The spare's
lock is taken before it starts and handed to it (its fd stays open in it), so no run can
take the spare between the publish and the leveller's start; the next run that wants the spare waits for
it to end (`spare.held`). It records its pid in the lock file, for a run that waited too
long to kill it, and says there when it makes a fresh copy of the spare (optional work, the
spare recorded as levelled meanwhile): a run that wants the spare then kills it at once. When it cannot be started (no shell, no interpreter) nothing runs and the
next run brings the spare level itself, as it did before.
"""

from __future__ import annotations

import contextlib
import gc
import marshal
import os
import sys
import time
from pathlib import Path
from typing import Any

from codeimpact.graph import layout, spare, spare_level
from codeimpact.graph.delta import GraphDelta
from codeimpact.graph.delta_log import delta_data, delta_of
from codeimpact.graph.meta_files import META_FILES

STARTED = "started"
# in the spare's folder: what the leveller levels with, as plain data (marshal: input read
# from disk stays data, never code): (JOB_FORMAT, live, delta_data, Meta in table, rows, pool)
JOB_NAME = "level-job.bin"
JOB_FORMAT = 1
# for tests: "stage:seconds:file" makes a leveller write its pid to `file` and sleep at `stage`
PAUSE_ENV = "CODEIMPACT_TEST_LEVELLER_PAUSE"
# for tests: a leveller's spare_level.CHECKPOINT_DB_MAX ("0": every database is a large one,
# its log left until wal_store.COMPACT_WAL_BYTES: the writer's checkpoint of several deltas)
CHECKPOINT_DB_ENV = "CODEIMPACT_TEST_LEVELLER_CHECKPOINT_DB_MAX"
# for tests: a leveller's spare_level.COPY_GROWTH, with no least growth ("0": every spare it
# levels is copied afresh, once the lineage's size is known, smaller or not)
COPY_ENV = "CODEIMPACT_TEST_LEVELLER_COPY_GROWTH"
SHELL = "/bin/sh"
# the shell starts the interpreter in the background and exits; "$0" is the interpreter
_LAUNCH = '"$0" -c "$1" "$2" "$3" </dev/null >/dev/null 2>&1 &'
_CODE = (
    "import sys; from codeimpact.indexer.spare_leveller import main; "
    "main(sys.argv[1], int(sys.argv[2]))"
)


class BadJob(ValueError):
    """The job file is not one this version wrote."""


def start(idx: Path, live: int, delta: GraphDelta, meta: dict[str, Any], rows: dict[str, int],
          buffer_pool: int) -> str:  # fmt: skip
    """Start the leveller of the spare to generation `live` (just published: `delta` made it
    from the one before, `meta` and `rows` are its Meta and row counts). Returns what the
    run's report says of it (`forks`)."""
    if not sys.executable or not os.path.exists(SHELL):
        return "not run: no interpreter to start; the next run brings the spare level"
    with spare.held(idx) as fd:
        if not spare_level.levellable(idx, live):
            return "not run: no spare of the generation before"
        in_table = {k: v for k, v in meta.items() if k not in META_FILES}
        job = spare.spare_dir(idx) / JOB_NAME
        # not synced: a job lost with the machine leaves a spare without a newer record
        job.write_bytes(marshal.dumps((JOB_FORMAT, live, delta_data(delta), in_table,
                                       rows, buffer_pool)))  # fmt: skip
        import subprocess  # here: the leveller itself does not need it

        try:
            shell = subprocess.Popen(
                # (from "/": `-c` puts the working folder first on the import path)
                [SHELL, "-c", _LAUNCH, sys.executable, _CODE, str(idx), str(fd)],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                pass_fds=(fd,), start_new_session=True, cwd="/",
            )  # fmt: skip
        except OSError as e:
            return f"not run: {e}; the next run brings the spare level"
        shell.wait()  # it exits once the leveller is started in the background
    return STARTED


def main(idx_arg: str, fd: int) -> None:
    """The leveller's body (a fresh interpreter, the spare's lock held on `fd`)."""
    code = 1
    try:
        gc.disable()  # it makes few objects
        me = os.getpid()
        spare.mark_leveller(fd, me)
        _pause_for_tests()
        if os.environ.get(CHECKPOINT_DB_ENV):
            spare_level.CHECKPOINT_DB_MAX = int(os.environ[CHECKPOINT_DB_ENV])
        if os.environ.get(COPY_ENV):
            spare_level.COPY_GROWTH = float(os.environ[COPY_ENV])
            spare_level.COPY_MIN_GROWTH_BYTES = float("-inf")
        idx = Path(idx_arg)
        job = spare.spare_dir(idx) / JOB_NAME
        live, delta, meta, rows, buffer_pool = read_job(job)
        job.unlink()
        spare_level.level(idx, live, delta, meta, rows, buffer_pool,
                          copying=lambda on: spare.mark_leveller(fd, me, on))  # fmt: skip
        code = 0
    except BaseException:  # a failed levelling leaves no record: the next run copies
        pass
    finally:
        with contextlib.suppress(BaseException):  # the run's old folder (layout.remove_stale)
            layout.remove_trash(Path(idx_arg))
            layout.stamp_live(Path(idx_arg))  # (what the removal left stale: off the next run)
        os._exit(code)  # no destructor runs: the spare's database must not be closed


def read_job(path: Path) -> tuple[int, GraphDelta, dict, dict, int]:
    """(live, delta, Meta in table, rows, buffer pool) of a job file; BadJob for a file of
    another format or version (nothing else is ever read from it)."""
    data = marshal.loads(path.read_bytes())
    if not (isinstance(data, tuple) and len(data) == 6 and data[0] == JOB_FORMAT):
        raise BadJob(f"{path}: not a leveller job of format {JOB_FORMAT}")
    _, live, fields, meta, rows, buffer_pool = data
    delta = delta_of(fields)
    if delta is None or not isinstance(meta, dict) or not isinstance(rows, dict):
        raise BadJob(f"{path}: not a leveller job of format {JOB_FORMAT}")
    return int(live), delta, meta, rows, int(buffer_pool)


def _pause_for_tests() -> None:
    value = os.environ.get(PAUSE_ENV)
    if not value:
        return
    stage, seconds, marker = value.split(":", 2)

    def pause(name: str) -> None:
        if name == stage:
            Path(marker).write_text(str(os.getpid()))
            time.sleep(float(seconds))

    spare_level.STAGE = pause
