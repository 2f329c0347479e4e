"""A name table kept as buckets of a few keys, each decoded when one of its keys is asked.

C's name tables (cfamily/name_tables.py) hold every name of the tree: ~3 million keys on the kernel,
136 MB marshalled. An edit of one file reads them for the few hundred names the file uses
and the ~1,000 headers it reaches, yet decoding them whole was 2.6 s of its 5 s of
resolution. So a table is written as buckets of consecutive keys (in the order the build
entered them: a bucket's values then share their paths, which marshal writes once) and an
index of every key's CRC-32 (sorted) with its bucket. A lookup finds its key's bucket by
the index and decodes that bucket alone; a key the index does not hold is no key of the
table, and nothing is decoded.

Grouping the keys by hash instead (the obvious bucketing) reads every key's value in hash
order: on the kernel's tables that random walk over a gigabyte of objects cost 3-4 times
the whole table's marshal, at every full build. Consecutive buckets are marshalled in the
order the objects were made.

Each bucket is a Marshalled (indexer/marshalled.py): a change marks its bucket; keys added
go to buckets of their own at the end. The next run's table is the untouched buckets'
bytes as they were, the changed ones encoded again.

Python's methods by name (python/tables.py) are kept so too: decoding Django's 18K names
whole was ~6.5 ms of every edit, which reads a handful. Neither reading a table nor
writing a small one imports numpy (an edit of a Python file imports none).
"""

from __future__ import annotations

import bisect
import marshal
import struct
import zlib
from array import array
from collections.abc import Iterator, Mapping, MutableMapping
from itertools import islice
from operator import methodcaller

from codeimpact.indexer.lang.api import native_core
from codeimpact.indexer.marshalled import Marshalled

# keys per bucket: a lookup decodes its bucket's other keys too
PER_BUCKET = 32
_utf8 = methodcaller("encode", "utf-8", "surrogatepass")
_MISSING = object()  # a key the table does not hold (memoised like a value)


def tuple_head(n: int) -> bytes:
    """marshal's header of a tuple of `n` items (its items' bytes follow, each marshalled
    alone at version 2: no back-references across them)."""
    return b"(" + struct.pack("<i", n)


def _crc(key: str) -> int:
    return zlib.crc32(_utf8(key))


# keys: a table with fewer has its index sorted in Python, without numpy (whose import,
# ~45 ms, is more than the sort: an edit that adds a Python file builds its tables anew)
SMALL = 1 << 17


def _index(crcs) -> tuple[bytes, bytes]:
    """(the CRCs sorted, each one's bucket) of keys with these CRCs in item order (a list
    or an array("I")): equal CRCs stay in item order (a stable argsort)."""
    if len(crcs) < SMALL:
        # (CRC, bucket) packed in one int: equal CRCs then sort by bucket, their item order
        packed = sorted([c << 32 | i // PER_BUCKET for i, c in enumerate(crcs)])
        low = 0xFFFFFFFF
        return (array("I", [k >> 32 for k in packed]).tobytes(),
                array("I", [k & low for k in packed]).tobytes())  # fmt: skip
    import numpy as np  # (the kernel's: 3.4M keys, a whole build, which loads it anyway)

    crc = np.frombuffer(array("I", crcs), dtype=np.uint32)
    order = np.argsort(crc, kind="stable")
    where = np.arange(len(crc), dtype=np.uint32) // PER_BUCKET
    return crc[order].tobytes(), where[order].tobytes()


def _merged(crc: bytes, at: bytes, more: list[tuple[int, int]]) -> tuple[bytes, bytes]:
    """The index `(crc, at)` with the (CRC, bucket) pairs of `more` put in: after the equal
    CRCs already there, as `_index` of the whole would. Runs of the old index are copied
    whole (C's memcpy), one bisect per key added: no numpy, whatever the index's size."""
    old_crc, old_at = array("I", crc), array("I", at)
    out_crc, out_at = array("I"), array("I")
    i = 0
    for c, w in sorted(more):
        j = bisect.bisect_right(old_crc, c, i)
        out_crc += old_crc[i:j]
        out_at += old_at[i:j]
        out_crc.append(c)
        out_at.append(w)
        i = j
    out_crc += old_crc[i:]
    out_at += old_at[i:]
    return out_crc.tobytes(), out_at.tobytes()


def _chunks(items: Iterator[tuple]) -> tuple[list[bytes], list[int]]:
    """Marshalled buckets of PER_BUCKET items each, and each key's CRC-32 (in item order)."""
    blobs: list[bytes] = []
    crcs: list[int] = []
    while chunk := dict(islice(items, PER_BUCKET)):
        blobs.append(marshal.dumps(chunk))
        crcs.extend(map(zlib.crc32, map(_utf8, chunk)))
    return blobs, crcs


def split(table: Mapping[str, object]) -> tuple[tuple[bytes, ...], bytes, bytes]:
    """(the buckets, sorted key CRCs, each one's bucket) of a table (a dict, or a `Buckets`:
    its untouched buckets' bytes as read)."""
    if isinstance(table, Buckets):
        return table.encoded()
    core = native_core()
    if type(table) is dict and hasattr(core, "buckets_split"):
        # (in C: the same bytes; Django's 18K method names 23 -> ~6 ms of the resolve host's
        # shared summary: native/core_tables.c)
        blobs, crc_bytes = core.buckets_split(table, PER_BUCKET)
        if len(table) < SMALL:
            crc, at = core.crc_index(crc_bytes, PER_BUCKET)
        else:
            crc, at = _index(array("I", crc_bytes))
        return blobs, crc, at
    blobs, crcs = _chunks(iter(table.items()))
    crc, at = _index(crcs)
    return tuple(blobs), crc, at


def pieces(table: Mapping[str, object]) -> Iterator[bytes]:
    """`split(table)` marshalled, piece by piece: a full build writes the kernel's tables
    holding one bucket at a time, not every bucket and then their copy in one bytes."""
    if isinstance(table, Buckets):
        yield marshal.dumps(table.encoded(), 2)
        return
    n = -(-len(table) // PER_BUCKET)
    yield tuple_head(3) + tuple_head(n)
    crcs = array("I")  # (4 bytes a key, not a Python int: the kernel's tables have 3.4M)
    items = iter(table.items())
    while chunk := dict(islice(items, PER_BUCKET)):
        yield marshal.dumps(marshal.dumps(chunk), 2)
        crcs.extend(map(zlib.crc32, map(_utf8, chunk)))
    crc, at = _index(crcs)
    yield marshal.dumps(crc, 2) + marshal.dumps(at, 2)


class Buckets(MutableMapping):
    """key -> value of a table stored as `split` made it, each bucket decoded when first
    asked. Mutating a value in place is not seen: assign it again (name_tables does)."""

    def __init__(self, stored: tuple[tuple[bytes, ...], bytes, bytes]):
        self._stored = stored
        self._blobs = stored[0]
        # (memoryviews: bisect reads them item by item in C; a numpy scalar search costs
        # microseconds a call, and a full build's resolvers ask millions)
        self._crc = memoryview(stored[1]).cast("I")
        self._where = memoryview(stored[2]).cast("I")
        self._open: dict[int, Marshalled] = {}  # bucket -> it, once a key of it was asked
        self._added: dict = {}  # keys the index does not hold
        self._seen: dict = {}  # key -> its value or _MISSING, once looked up

    def _at(self, i: int) -> Marshalled:
        hit = self._open.get(i)
        if hit is None:
            hit = self._open[i] = Marshalled(self._blobs[i])
        return hit

    def _bucket(self, key: str) -> int | None:
        """The bucket holding `key`, or None."""
        crc = _crc(key)
        index = self._crc
        j = bisect.bisect_left(index, crc)
        while j < len(index) and index[j] == crc:
            i = self._where[j]
            if key in self._at(i).decoded():
                return i
            j += 1
        return None

    def _lookup(self, key):
        hit = self._seen.get(key, self)
        if hit is self:
            if key in self._added:
                hit = self._added[key]
            else:
                i = self._bucket(key)
                hit = _MISSING if i is None else self._open[i].decoded()[key]
            self._seen[key] = hit
        return hit

    def get(self, key, default=None):
        hit = self._lookup(key)
        return default if hit is _MISSING else hit

    def __getitem__(self, key):
        hit = self._lookup(key)
        if hit is _MISSING:
            raise KeyError(key)
        return hit

    def __contains__(self, key) -> bool:
        return self._lookup(key) is not _MISSING

    def __setitem__(self, key, value) -> None:
        i = None if key in self._added else self._bucket(key)
        if i is None:
            self._added[key] = value
        else:
            self._open[i][key] = value
        self._seen[key] = value

    def __delitem__(self, key) -> None:
        self._seen.pop(key, None)
        if key in self._added:
            del self._added[key]
            return
        i = self._bucket(key)
        if i is None:
            raise KeyError(key)
        del self._open[i][key]

    def __iter__(self) -> Iterator[str]:
        for i in range(len(self._blobs)):
            yield from self._at(i).decoded()
        yield from self._added

    def __len__(self) -> int:
        return sum(len(self._at(i)) for i in range(len(self._blobs))) + len(self._added)

    def encoded(self) -> tuple[tuple[bytes, ...], bytes, bytes]:
        """The table stored again: untouched buckets as read, changed ones marshalled anew,
        added keys in buckets of their own (a key removed may stay in the index: its
        bucket no longer holds it)."""
        changed = [i for i, bucket in self._open.items() if bucket.changed]
        if not changed and not self._added:
            return self._stored
        blobs = list(self._blobs)
        for i in changed:
            blobs[i] = self._open[i].encoded()
        crc, at = self._stored[1], self._stored[2]
        if self._added:
            more, crcs = _chunks(iter(self._added.items()))
            first = len(blobs)
            blobs += more
            crc, at = _merged(crc, at, [(c, first + k // PER_BUCKET) for k, c in enumerate(crcs)])
        return tuple(blobs), crc, at
