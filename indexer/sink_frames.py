"""The messages of a full build's resolving processes to the builder, on their sinks
(indexer/resolve_workers.py `resolve_into`, read by indexer/resolve_host.py).

A chunk's outputs (each file's resolved blob and lookup keys: Django's 24.6 MB in 118
chunks) travel as a frame written from their own bytes (`send_chunk`: os.writev), read
into a buffer the reader keeps (`Frames`): marshalling them into one message and reading
that back (a fresh buffer per message on both sides, copied again by the read and by
marshal.loads) cost the builder ~28 ms and ~3.8K page faults of Django's resolution. Any
other message is a marshalled value (`send_value`). Both are framed as
multiprocessing.Connection.send_bytes frames them (a 4-byte big-endian size, or -1 then
8 bytes); a chunk's payload starts with a NUL, which no marshalled value does.
"""

from __future__ import annotations

import marshal
import os
import struct
from array import array
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (an annotation only: a no-op analyze imports this module, not multiprocessing)
    from multiprocessing.connection import Connection

Encoded = tuple[bytes, bytes]  # (resolved blob, lookup keys blob) of one file

_CHUNK = b"\0"
_WRITE_AT_ONCE = 512  # iovecs per os.writev (the system's limit is 1,024 at least)


def _size_head(n: int) -> bytes:
    return struct.pack("!i", n) if n <= 0x7FFFFFFF else struct.pack("!iQ", -1, n)


def frame_at(buf: bytearray, start: int, end: int) -> tuple[int, int]:
    """(bytes of its size, bytes of its payload) of the frame at `start`, (0, 0) while its
    size is not all read (as `_size_head` writes it: 4 bytes big-endian, or -1 then 8)."""
    if end - start < 4:
        return 0, 0
    n = int.from_bytes(buf[start : start + 4], "big", signed=True)
    if n != -1:
        return 4, n
    if end - start < 12:
        return 0, 0
    return 12, int.from_bytes(buf[start + 4 : start + 12], "big")


def send_value(sink: Connection, value: object) -> None:
    """A marshalled value: read back as it was by `Frames.read`."""
    sink.send_bytes(marshal.dumps(value))


def send_chunk(sink: Connection, c: int, outputs: list[Encoded]) -> None:
    """Chunk `c`'s outputs, written from their own bytes: `Frames.read` gives (c, outputs)."""
    sizes = array("I", [c, len(outputs)])
    for blob, keys in outputs:
        sizes.append(len(blob))
        sizes.append(len(keys))
    head = _CHUNK + sizes.tobytes()
    parts: list = [head]
    for blob, keys in outputs:
        parts.append(blob)
        parts.append(keys)
    write_frame(sink.fileno(), parts)


def write_frame(fd: int, parts: list) -> None:
    """One frame whose payload is `parts` joined, written from their own bytes (os.writev:
    no copy made of them): read back whole by `Frames.payload`."""
    _write_all(fd, [_size_head(sum(map(len, parts))), *parts])


def _write_all(fd: int, parts: list) -> None:
    while parts:
        done = os.writev(fd, parts[:_WRITE_AT_ONCE])
        while parts and done >= len(parts[0]):
            done -= len(parts[0])
            parts.pop(0)
        if done:  # (a write cut short: the rest of that part next)
            parts[0] = memoryview(parts[0])[done:]


class Frames:
    """Reads the messages of sinks, each into a buffer kept from message to message."""

    def __init__(self) -> None:
        self._buf = bytearray()

    def payload(self, conn: Connection) -> memoryview:
        """The next frame's payload on `conn`, read into the kept buffer: a view of it, which
        the caller releases before the next read. EOFError when the writer ended, before or
        in a frame."""
        fd = conn.fileno()
        n = struct.unpack("!i", _read_exact(fd, 4))[0]
        if n == -1:
            n = struct.unpack("!Q", _read_exact(fd, 8))[0]
        if len(self._buf) < n:
            self._buf = bytearray(n)
        with memoryview(self._buf) as whole:
            view = whole[:n]
        try:
            _read_into(fd, view)
        except BaseException:
            view.release()
            raise
        return view

    def read(self, conn: Connection) -> tuple:
        """The next message on `conn`: a value `send_value` sent, or (c, outputs) of
        `send_chunk`. EOFError when the writer ended, before or in a message."""
        with self.payload(conn) as view:
            if view[:1] != _CHUNK:
                return marshal.loads(view)
            c, count = struct.unpack_from("=II", view, 1)
            sizes = view[9 : 9 + 8 * count].cast("I")
            at = 9 + 8 * count
            outputs = []
            for i in range(0, 2 * count, 2):
                blob, keys = sizes[i], sizes[i + 1]
                outputs.append(
                    (bytes(view[at : at + blob]), bytes(view[at + blob : at + blob + keys]))
                )
                at += blob + keys
            sizes.release()
            return c, outputs


def _read_exact(fd: int, n: int) -> bytes:
    out = b""
    while len(out) < n:
        got = os.read(fd, n - len(out))
        if not got:
            raise EOFError
        out += got
    return out


def _read_into(fd: int, view: memoryview) -> None:
    at = 0
    while at < len(view):
        got = os.readv(fd, [view[at:]])
        if not got:
            raise EOFError
        at += got
