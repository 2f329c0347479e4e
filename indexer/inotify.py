"""Linux inotify, read without a thread: the kernel queues file events on a non-blocking
descriptor and the caller drains them when it wants to know what changed.

`Inotify()` raises OSError where inotify is missing (another OS, no free instance);
callers fall back to stat'ing.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import os
import struct
from typing import NamedTuple

# Event bits (linux/inotify.h).
IN_MODIFY = 0x00000002
IN_ATTRIB = 0x00000004
IN_CLOSE_WRITE = 0x00000008
IN_MOVED_FROM = 0x00000040
IN_MOVED_TO = 0x00000080
IN_CREATE = 0x00000100
IN_DELETE = 0x00000200
IN_DELETE_SELF = 0x00000400
IN_MOVE_SELF = 0x00000800
IN_UNMOUNT = 0x00002000
IN_Q_OVERFLOW = 0x00004000
IN_IGNORED = 0x00008000
IN_ONLYDIR = 0x01000000
IN_DONT_FOLLOW = 0x02000000
IN_ISDIR = 0x40000000

# What changes a folder's content or a file in it (not reads, not opens).
CHANGES = (
    IN_MODIFY
    | IN_ATTRIB
    | IN_CLOSE_WRITE
    | IN_MOVED_FROM
    | IN_MOVED_TO
    | IN_CREATE
    | IN_DELETE
    | IN_DELETE_SELF
    | IN_MOVE_SELF
)
# The watch itself is gone or events were lost: what was watched is no longer known.
LOST = IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT | IN_Q_OVERFLOW | IN_IGNORED

_HEADER = struct.Struct("iIII")  # wd, mask, cookie, len
_IN_NONBLOCK = os.O_NONBLOCK
_IN_CLOEXEC = os.O_CLOEXEC


class Event(NamedTuple):
    wd: int
    mask: int
    name: str


def _libc():
    name = ctypes.util.find_library("c")
    if name is None:
        raise OSError(errno.ENOSYS, "no C library")
    libc = ctypes.CDLL(name, use_errno=True)
    if not hasattr(libc, "inotify_init1"):
        raise OSError(errno.ENOSYS, "inotify is not available")
    libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
    return libc


class Inotify:
    def __init__(self) -> None:
        self._libc = _libc()
        fd = self._libc.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
        if fd < 0:
            e = ctypes.get_errno()
            raise OSError(e, os.strerror(e))
        self.fd = fd

    def add(self, path: str, mask: int = CHANGES | IN_ONLYDIR | IN_DONT_FOLLOW) -> int:
        """Watch folder `path`; its watch descriptor (OSError: ENOSPC past the user's limit)."""
        wd = self._libc.inotify_add_watch(self.fd, os.fsencode(path), ctypes.c_uint32(mask).value)
        if wd < 0:
            e = ctypes.get_errno()
            raise OSError(e, os.strerror(e), path)
        return wd

    def read(self) -> list[Event]:
        """Every event queued since the last read (none: an empty list, never a wait)."""
        out: list[Event] = []
        while True:
            try:
                data = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                return out
            if not data:
                return out
            pos = 0
            while pos + _HEADER.size <= len(data):
                wd, mask, _cookie, length = _HEADER.unpack_from(data, pos)
                pos += _HEADER.size
                raw = data[pos : pos + length].split(b"\0", 1)[0]
                pos += length
                out.append(Event(wd, mask, os.fsdecode(raw)))

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __del__(self) -> None:
        # an index dropped without close() must not keep the kernel's watches
        with contextlib.suppress(OSError):
            self.close()
