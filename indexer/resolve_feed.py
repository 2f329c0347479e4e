"""A new index's facts handed to its resolve host as the extraction makes them.

The resolve host (indexer/resolve_host.py) builds the resolvers once the extraction has
ended, on one core while the builder imports Arrow and takes the tree's fields (~0.3 s
on Django, ~0.15 of a core idle). A first part of that build is decoding every file's
facts blob (~0.09 s): a host forked before the extraction (`Host.start(feed=True)`)
decodes each blob as it comes instead, beside the extraction workers.

The builder writes the (path, blob) of each file on the feed's pipe (`Feed.send`), a
few hundred KB at a time (a write per blob was ~2,900 system calls on Django), and never
waits for the host: what the pipe cannot take now waits in `Feed`'s backlog, written
at a later send (a blocked builder would leave the extraction workers' answers unread). Its
last frame (`Feed.go`) carries what the host needs beyond the blobs; the host reads the
frames with `received`. Each frame is an 8-byte head (the path's and the blob's lengths,
little-endian), the path (UTF-8, surrogates escaped) and the blob; the last one's path
length is GO.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import struct
from collections.abc import Callable

_HEAD = struct.Struct("<II")
GO = 0xFFFFFFFF  # the path length of the last frame: its blob is `Feed.go`'s payload
_AT_ONCE = 512  # iovecs per os.writev (the system's limit is 1,024 at least)
_BATCH = 256 << 10  # the backlog's bytes from which a send writes it
# The feed pipe's capacity asked for (Linux: F_SETPIPE_SZ; capped by the system's limit): a
# Django blob is up to ~300 KB, and the host decodes a burst of them while the builder goes on
_PIPE_BYTES = 1 << 20


class Feed:
    """The builder's end of the feed: a pipe's write end `fd`, owned from now on."""

    def __init__(self, fd: int) -> None:
        with contextlib.suppress(OSError, AttributeError):  # (a smaller pipe only waits more)
            fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, _PIPE_BYTES)
        os.set_blocking(fd, False)
        self._fd = fd
        self._backlog: list[memoryview | bytes] = []
        self._held = 0  # the backlog's bytes
        # the backlog's bytes from which a send writes it: _BATCH more than it held when the
        # pipe was last full (a host that lags: each send tried again a writev of up to
        # _AT_ONCE parts that the full pipe refused)
        self._write_at = _BATCH
        self.broken = False  # the host went away: nothing is written any more

    def send(self, path: str, blob: bytes) -> None:
        """Hand `path`'s facts blob to the host (now, or at a later send)."""
        if self.broken:
            return
        name = path.encode("utf-8", "surrogateescape")
        self._backlog += (_HEAD.pack(len(name), len(blob)) + name, blob)
        self._held += _HEAD.size + len(name) + len(blob)
        if self._held >= self._write_at:
            self._write()

    def go(self, payload: bytes) -> None:
        """The last frame, `payload` its blob, written with the backlog (waiting for the
        host to read it now); the pipe then closed."""
        if self.broken:
            return
        self._backlog.extend((_HEAD.pack(GO, len(payload)), payload))
        os.set_blocking(self._fd, True)
        self._write()
        self.close()

    def close(self) -> None:
        """Close the pipe (the host, still reading, sees its end: it stops)."""
        if self._fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = -1
        self._backlog.clear()
        self._held = 0

    def _write(self) -> None:
        backlog = self._backlog
        while backlog:
            parts = backlog[:_AT_ONCE]
            try:
                done = os.writev(self._fd, parts)
            except BlockingIOError:  # (the pipe is full: the rest at a later send)
                self._write_at = self._held + _BATCH
                return
            except OSError:  # the host died: it resolves nothing, the builder does
                self.broken = True
                self.close()
                return
            self._held -= done
            self._write_at = _BATCH
            if done == sum(map(len, parts)):
                del backlog[: len(parts)]
                continue
            # a write cut short: on from the first part not written whole
            whole = 0
            while done >= len(backlog[whole]):
                done -= len(backlog[whole])
                whole += 1
            del backlog[:whole]
            if done:
                backlog[0] = memoryview(backlog[0])[done:]


def received(fd: int, decode: Callable[[bytes], object]) -> tuple[dict[str, object], bytes]:
    """The host's end: path -> decode(blob) of every frame on the pipe `fd` (closed here),
    and the last frame's payload. EOFError when the pipe ends before it (the builder gave
    up: an error, or resolving in its own process after all)."""
    decoded: dict[str, object] = {}
    with open(fd, "rb", buffering=_PIPE_BYTES) as f:
        while True:
            head = f.read(_HEAD.size)
            if len(head) < _HEAD.size:
                raise EOFError("the feed ended before its last frame")
            n, m = _HEAD.unpack(head)
            if n == GO:
                payload = f.read(m)
                if len(payload) < m:
                    raise EOFError("the feed ended inside its last frame")
                return decoded, payload
            name, blob = f.read(n), f.read(m)
            if len(blob) < m:
                raise EOFError("the feed ended inside a frame")
            decoded[name.decode("utf-8", "surrogateescape")] = decode(blob)
