"""A write that failed because of the file system, said as what it is.

A full disk, a path that may not be written and a read-only file system are not
bugs: `storage_error` turns the exception a write raised (an OSError, or Kùzu's
RuntimeError, which carries the C library's message and the path in its text)
into a one-line `StorageError` naming the path (exit 2). The caller raises it
only after the failed generation was thrown away, so the previous index stays
the one queries read.

Kùzu sometimes loses the cause: when it cannot write the rollback of a failed
write it reports "Invalid transaction type to rollback". A Kùzu failure while the
file system holding the index has almost no space left is taken for what it is.
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Iterator
from pathlib import Path

from codeimpact.graph.errors import StorageError

# errno -> what the user is told
KINDS = {
    errno.ENOSPC: "no space left on device",
    errno.EDQUOT: "disk quota exceeded",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.EROFS: "read-only file system",
}
FIX = {
    errno.ENOSPC: "free some space, then run `graph analyze` again",
    errno.EDQUOT: "free some space, then run `graph analyze` again",
    errno.EACCES: "check the owner and mode of the path",
    errno.EPERM: "check the owner and attributes of the path",
    errno.EROFS: "remount it read-write, or work on a copy",
}
# the C library's messages, as Kùzu quotes them
_BY_MESSAGE = {os.strerror(code): code for code in KINDS}
_KUZU_PATH = re.compile(r"\bpath: (\S+)")
LOW_SPACE_BYTES = 64 * 1024 * 1024  # less than this free: a Kùzu write failure is a full disk


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__


def free_bytes(path: Path) -> int | None:
    """Bytes an unprivileged user may still write on the file system holding `path`."""
    for candidate in (path, *path.parents):
        try:
            st = os.statvfs(candidate)
        except OSError:
            continue
        return st.f_bavail * st.f_frsize
    return None


def unwritable(code: int, path: object, *, kept: bool = False) -> StorageError:
    """The one-line error for `path` that could not be written (`code`: one of KINDS)."""
    tail = " (the previous index is kept)" if kept else ""
    return StorageError(f"{KINDS[code]}: cannot write {path}: {FIX[code]}{tail}")


def unwritable_folder(folder: Path) -> StorageError:
    """Why `folder`, which exists, cannot be written: a read-only file system or its mode."""
    try:
        read_only = bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        read_only = False
    code = errno.EROFS if read_only else errno.EACCES
    return unwritable(code, f"the index folder {folder}", kept=(folder / "CURRENT").exists())


def storage_error(exc: BaseException, index_dir: Path) -> StorageError | None:
    """The StorageError `exc` stands for, or None when the file system is not the cause."""
    kept = (index_dir / "CURRENT").exists()
    kuzu_failed = False
    for e in _chain(exc):
        if isinstance(e, StorageError):
            return e
        if isinstance(e, OSError) and e.errno in KINDS:
            return unwritable(e.errno, e.filename or index_dir, kept=kept)
        if isinstance(e, RuntimeError):
            text = str(e)
            kuzu_failed = True
            for message, code in _BY_MESSAGE.items():
                if message in text:
                    found = _KUZU_PATH.search(text)
                    return unwritable(code, found.group(1) if found else index_dir, kept=kept)
    if kuzu_failed:
        free = free_bytes(index_dir)
        if free is not None and free < LOW_SPACE_BYTES:
            where = f"the index database under {index_dir} ({free // 1024} KB free)"
            return unwritable(errno.ENOSPC, where, kept=kept)
    return None
