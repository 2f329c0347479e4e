"""The dense-id assignment (symbol uid -> id) as a file read in place.

The kernel has 2.2M symbols: its ids as a marshalled dict took 1.9 s of CPU to decode in
every incremental run, though an edit looks up only the ids of its files' symbols and their
edges' ends. The file (`state-ids.bin`) holds the uids in id order (ids are dense, 0..n-1)
and an index sorted by a 64-bit hash of each uid; `IdTable` maps it and answers a lookup
with one binary search, checking the uid's own bytes (a hash may collide). A run that adds
and drops no symbol links the file into the next generation untouched; one that does works
on a dict made from the table, and the next generation's file is written from that dict.

Layout: a 24-byte header (magic, n, length of the uid bytes), then uint64 hashes[n]
(ascending), int64 offsets[n+1] (uid i's bytes are blob[offsets[i]:offsets[i+1]]), uint32
order[n] (the id at each hash position), then the uids' utf-8 bytes in id order.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import struct
from array import array
from bisect import bisect_left
from collections.abc import Iterator, Mapping, MutableMapping
from operator import methodcaller
from pathlib import Path

import xxhash

from codeimpact.graph.layout import fsync_fd, fsync_file

MAGIC = b"CIIDS\x00\x00\x01"
_HEADER = struct.Struct("<8sqq")
_hash = xxhash.xxh3_64_intdigest
# as marshal writes strings: a path with undecodable bytes holds lone surrogates
_CODEC = ("utf-8", "surrogatepass")
_encode = methodcaller("encode", *_CODEC)
# uids written per chunk: the file is made without holding every uid's bytes at once
_CHUNK = 1 << 16


class IdTable(Mapping[str, int]):
    """uid -> id, read from a `state-ids.bin` file in place (see the module docstring)."""

    def __init__(self, path: Path):
        self.path = path
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size < _HEADER.size:
                raise ValueError(f"{path}: not an id table")
            self._mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        magic, n, blob_len = _HEADER.unpack_from(self._mm, 0)
        at = _HEADER.size
        if magic != MAGIC or at + 20 * n + 8 + blob_len != size:
            raise ValueError(f"{path}: not an id table")
        self._n = n
        # read in place as memoryviews (an edit imports no numpy: ~45 ms of CPU)
        view = memoryview(self._mm)
        self._hashes = view[at : at + 8 * n].cast("Q")
        self._offsets = view[at + 8 * n : at + 16 * n + 8].cast("q")
        self._order = view[at + 16 * n + 8 : at + 20 * n + 8].cast("I")
        self._blob = at + 20 * n + 8  # where the uid bytes start
        self._found: dict[str, int] = {}

    def _uid_bytes(self, i: int) -> bytes:
        a, b = self._offsets[i], self._offsets[i + 1]
        return self._mm[self._blob + a : self._blob + b]

    def _find(self, uid: str) -> int:
        """The id of `uid`, or -1."""
        hit = self._found.get(uid)
        if hit is not None:
            return hit
        raw = uid.encode(*_CODEC)
        h = _hash(raw)
        at = bisect_left(self._hashes, h)
        out = -1
        while at < self._n and self._hashes[at] == h:
            i = self._order[at]
            if self._uid_bytes(i) == raw:
                out = i
                break
            at += 1
        self._found[uid] = out
        return out

    def __getitem__(self, uid: str) -> int:
        i = self._find(uid) if isinstance(uid, str) else -1
        if i < 0:
            raise KeyError(uid)
        return i

    def __contains__(self, uid: object) -> bool:
        return isinstance(uid, str) and self._find(uid) >= 0

    def __len__(self) -> int:
        return self._n

    def uid_at(self, i: int) -> str:
        return self._uid_bytes(i).decode(*_CODEC)

    def uids(self) -> list[str]:
        """Every uid, in id order."""
        raw = self._mm[self._blob : self._blob + self._offsets[self._n]]
        ends = self._offsets.tolist()
        if raw.isascii():  # byte offsets are character offsets: one decode, then slices
            text = raw.decode("ascii")
            return [text[a:b] for a, b in zip(ends, ends[1:])]
        return [raw[a:b].decode(*_CODEC) for a, b in zip(ends, ends[1:])]

    def __iter__(self) -> Iterator[str]:
        return iter(self.uids())


class Ids(MutableMapping[str, int]):
    """The ids of a generation: a table file (the base, shared by generations through hard
    links) and the changes made since it was written (`changed`: uid -> id for uids added
    or moved; `gone`: uids of the base no longer there), which the state file carries. An
    edit that adds a symbol changes a few entries, not the kernel's 2.2M."""

    def __init__(self, base: IdTable, changed: dict[str, int] | None = None,
                 gone: set[str] | None = None, n: int | None = None):  # fmt: skip
        self.base = base
        self.changed = changed if changed is not None else {}
        self.gone = gone if gone is not None else set()
        if n is None:
            n = len(base) - len(self.gone) + sum(1 for u in self.changed if u not in base)
        self._n = n

    def copy(self) -> Ids:
        return Ids(self.base, dict(self.changed), set(self.gone), self._n)

    def __getitem__(self, uid: str) -> int:
        hit = self.changed.get(uid)
        if hit is not None:
            return hit
        if uid in self.gone:
            raise KeyError(uid)
        return self.base[uid]

    def __contains__(self, uid: object) -> bool:
        return uid in self.changed or (uid not in self.gone and uid in self.base)

    def __setitem__(self, uid: str, i: int) -> None:
        if uid not in self:
            self._n += 1
        self.gone.discard(uid)
        self.changed[uid] = i

    def __delitem__(self, uid: str) -> None:
        if uid not in self:
            raise KeyError(uid)
        self._n -= 1
        self.changed.pop(uid, None)
        if uid in self.base:
            self.gone.add(uid)

    def __len__(self) -> int:
        return self._n

    def __iter__(self) -> Iterator[str]:
        return iter(self.pairs()[0])

    def pairs(self) -> tuple[list[str], array]:
        """Every uid and its id (materialised: a few seconds on the kernel); the ids as an
        int64 array."""
        base = self.base.uids()
        if not self.changed and not self.gone:
            return base, array("q", range(len(base)))
        keep = [u for u in base if u not in self.changed and u not in self.gone]
        keep_ids = [i for i, u in enumerate(base) if u not in self.changed and u not in self.gone]
        uids = keep + list(self.changed)
        ids = array("q", keep_ids + list(self.changed.values()))
        return uids, ids

    def at_or_above(self, n: int) -> list[tuple[int, str]]:
        """(id, uid) of the uids holding an id >= n."""
        out = [(i, u) for u, i in self.changed.items() if i >= n]
        for i in range(n, len(self.base)):
            u = self.base.uid_at(i)
            if u not in self.changed and u not in self.gone:
                out.append((i, u))
        return out

    def max_id(self) -> int:
        """The highest id in use (-1 when none)."""
        top = max(self.changed.values(), default=-1)
        for i in range(len(self.base) - 1, top, -1):
            u = self.base.uid_at(i)
            if u not in self.changed and u not in self.gone:
                return i
        return top

    def to_dict(self) -> dict[str, int]:
        uids, ids = self.pairs()
        return dict(zip(uids, ids.tolist()))


def max_id(ids: Mapping[str, int]) -> int:
    """The highest id in use (-1 when none)."""
    return ids.max_id() if isinstance(ids, Ids) else max(ids.values(), default=-1)


def copy_ids(ids: Mapping[str, int]) -> MutableMapping[str, int]:
    """The ids to change, apart from `ids` (an `Ids` copies its changes only)."""
    return ids.copy() if isinstance(ids, Ids) else dict(ids)


def at_or_above(ids: Mapping[str, int], n: int) -> list[tuple[int, str]]:
    """(id, uid) of the uids holding an id >= n."""
    if isinstance(ids, Ids):
        return ids.at_or_above(n)
    return [(i, u) for u, i in ids.items() if i >= n]


def pairs(ids: Mapping[str, int]) -> tuple[list[str], array]:
    """Every uid and its id (an int64 array)."""
    if isinstance(ids, Ids):
        return ids.pairs()
    return list(ids), array("q", ids.values())


def write_id_table(path: Path, ids: Mapping[str, int]) -> None:
    """Write `ids` (dense: its ids are 0..len-1) as a table file, durably, in place of
    `path` (a temporary file renamed over it)."""
    import numpy as np  # (an edit that adds or drops many symbols: the others link the file)

    if isinstance(ids, Ids):
        ids = ids.to_dict()
    n = len(ids)
    by_id: list[str | None] = [None] * n
    for uid, i in ids.items():
        by_id[i] = uid  # an id outside 0..n-1 raises: ids are dense
    if None in by_id:
        raise ValueError("ids are not dense")

    def encoded():
        return map(_encode, by_id)

    lens = np.fromiter(map(len, encoded()), np.int64, n)
    offsets = np.zeros(n + 1, np.int64)
    np.cumsum(lens, out=offsets[1:])
    del lens
    hashes = np.fromiter(map(_hash, encoded()), np.uint64, n)
    order = np.argsort(hashes, kind="stable")
    hashes = hashes[order]
    tmp = path.with_name(path.name + f".tmp{os.getpid()}")
    with open(tmp, "wb") as fh:
        fh.write(_HEADER.pack(MAGIC, n, int(offsets[-1])))
        fh.write(hashes.tobytes())
        fh.write(offsets.tobytes())
        fh.write(order.astype(np.uint32).tobytes())
        for at in range(0, n, _CHUNK):
            fh.write("".join(by_id[at : at + _CHUNK]).encode(*_CODEC))
        fh.flush()
        fsync_fd(fh.fileno(), path)
    os.replace(tmp, path)
    with contextlib.suppress(OSError):
        fsync_file(path.parent)
