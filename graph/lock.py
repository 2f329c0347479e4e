"""The one-writer lock of an index, and who holds it.

The lock is a `flock` on `.codeimpact/lock`, which the kernel drops when the holder dies.
The file also records who holds it: pid, start time (seconds since the epoch) and the
process's start in clock ticks since boot (`/proc/<pid>/stat`), so a pid reused by
another process is not taken for the holder.

A forked child shares its parent's open file description, and with it the flock: workers
orphaned by a `kill -9` of analyze would keep the lock held forever. So every child closes
its copy right after the fork (`HELD_LOCKS`, `os.register_at_fork`), and workers die with
their parent (`indexer/lifeline.py`). Should the flock still be held while the recorded
holder is gone (orphans of an older codeimpact, say), the lock is taken over: a fresh
lock file replaces the old one, whose stray holders then hold nothing anyone looks at.
`lock.takeover` serialises takeovers (exclusive) against writers recording themselves
as the holder (shared).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from pathlib import Path

LOCK = "lock"
LOCK_TAKEOVER = "lock.takeover"

# flock fds this process holds as a writer; closed in every forked child (see above)
HELD_LOCKS: set[int] = set()


def _close_held_locks_in_child() -> None:
    for fd in HELD_LOCKS:
        with contextlib.suppress(OSError):
            os.close(fd)
    HELD_LOCKS.clear()


os.register_at_fork(after_in_child=_close_held_locks_in_child)


def process_start_ticks(pid: int) -> int | None:
    """When process `pid` started (clock ticks since boot); None if it is gone or unknown."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return None
    # the command name (field 2) may hold spaces and parentheses: count from the last ')'
    fields = stat[stat.rfind(b")") + 2 :].split()
    try:
        return int(fields[19])  # field 22, starttime
    except (IndexError, ValueError):
        return None


def _holder_record() -> bytes:
    pid = os.getpid()
    return json.dumps(
        {"pid": pid, "since": time.time(), "start": process_start_ticks(pid)}
    ).encode()


def holder_alive(holder: dict) -> bool | None:
    """Whether the process a lock file names still runs (None: the record names none)."""
    pid = holder.get("pid")
    if not isinstance(pid, int) or pid <= 0:
        return None
    start = holder.get("start")
    now = process_start_ticks(pid)
    if now is not None:
        return not isinstance(start, int) or now == start
    if os.path.isdir("/proc/self"):
        return False  # /proc works and has no entry for the pid: it is gone
    try:
        os.kill(pid, 0)  # no /proc: whether the pid exists at all
    except ProcessLookupError:
        return False
    except OSError:
        return True  # it exists, owned by someone else
    return True


def _read_lock_record(fd: int) -> dict:
    try:
        data = json.loads(os.pread(fd, 4096, 0) or b"{}")
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def held_record(path: Path) -> dict | None:
    """The record in the lock file when its flock is held by someone, None when it is free."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            return _read_lock_record(fd)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def take_over(idx: Path, path: Path) -> dict | None:
    """Replace a lock file whose flock outlived its recorded holder; the old record, or None
    when the lock is not stale after all (its holder runs, or it was freed or replaced).

    Serialised by a second lock, so two analyzes cannot both replace the file."""
    guard = os.open(idx / LOCK_TAKEOVER, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(guard, fcntl.LOCK_EX)
        record = held_record(path)
        if record is None or holder_alive(record) is not False:
            return None
        fresh = path.with_name(f"{LOCK}.new{os.getpid()}")
        fresh.write_bytes(b"")
        os.replace(fresh, path)
        return record
    finally:
        os.close(guard)


def claim(idx: Path, path: Path, fd: int) -> bool:
    """Record this process as the holder of the flock on `fd`, if `fd` is still the lock
    file on disk. Done under the takeover guard (shared), so a takeover never reads the
    record of a dead holder that a live one is about to overwrite."""
    try:
        guard = os.open(idx / LOCK_TAKEOVER, os.O_RDWR | os.O_CREAT, 0o644)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(guard, fcntl.LOCK_SH)
        try:
            if os.fstat(fd).st_ino != os.stat(path).st_ino:
                return False
        except FileNotFoundError:
            return False
        os.ftruncate(fd, 0)
        os.write(fd, _holder_record())
        return True
    finally:
        os.close(guard)


def lock_holder(idx: Path) -> dict | None:
    """`{"pid", "since"}` of the analyze holding the lock, or None when nobody does.

    A flock whose recorded holder is gone is no analyze: a child of a killed run may hold
    it for a moment while it dies, and the next writer takes such a lock over."""
    data = held_record(idx / LOCK)
    if data is None or holder_alive(data) is False:
        return None
    return {"pid": data.get("pid"), "since": data.get("since")}
