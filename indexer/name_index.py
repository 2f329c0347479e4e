"""Which files' lookups use a name: the lookup keys (plan.lookup_keys_blob) inverted.

An edit that touches names asks which unchanged files use them (plan.affected_files) or
read them through a flow binder (plan.FlowIndex); without this index each ask decoded every
file's lookup keys (Django: 2,817 blobs, ~45 ms of CPU, ~40% of an edit's resolution).

The index is made from the lookup keys as a generation's state-keys.bin holds them (the
state's `keys_base`; the files whose keys changed since are carried in state-graph.bin and
read directly), so it holds as long as that file is linked on from generation to
generation. It is written with that file (state-names.bin, with the keys file's digest),
whoever writes it anew: a full build's sidecar writer, beside Kùzu's write, so the first
edit after a build costs what a later one does (made by that edit, it was ~450 M of its
~530 M instructions of resolution on Django), or an edit whose keys changed too much to be
carried. A generation without one (written before this) has it made by the first edit
that asks.
"""

from __future__ import annotations

import marshal
from array import array
from bisect import bisect_left
from collections import defaultdict
from collections.abc import Iterable
from itertools import accumulate, chain, repeat
from operator import methodcaller, mul
from pathlib import Path

from codeimpact.graph.layout import atomic_write
from codeimpact.indexer.resolved import native_core

NAMES_NAME = "state-names.bin"
# 2: the names and postings packed (`NameIndex`); a file of another format reads as none
FORMAT = 2

# The first byte of a lookup keys blob (`keys_blob`): the version of its layout. A blob written
# before it (marshal's bytes of two lists) never starts with it; `read_keys` reads both.
KEYS_FORMAT = 1
_KEYS_HEAD, _KEYS_HEAD_CHAR = bytes([KEYS_FORMAT]), chr(KEYS_FORMAT)


def keys_blob(used: list[str], extra: list[str]) -> bytes:
    """A file's lookup keys as plan.lookup_keys_blob writes them: KEYS_FORMAT, then its used
    names one a line, a NUL, its other binder names one a line, in the order given (the order
    its facts first name them: the facts alone fix it, so the same facts give the same bytes
    without a sort; sorted() and marshal.dumps of two lists were ~0.13 G instructions over
    Django's files). Names that could not be read back so (a newline or a NUL in one, a lone
    empty name: never identifiers) go as marshal's two sorted lists."""
    u, e = "\n".join(used), "\n".join(extra)
    if (
        u.count("\n") + e.count("\n") != max(len(used) - 1, 0) + max(len(extra) - 1, 0)
        or "\0" in u
        or "\0" in e
        or [""] in (used, extra)
    ):
        return marshal.dumps((sorted(used), sorted(extra)))
    return "".join((_KEYS_HEAD_CHAR, u, "\0", e)).encode("utf-8", "surrogatepass")


def read_keys(blob: bytes) -> tuple[list[str], list]:
    """(used names, binder names) of a lookup keys blob (`keys_blob`); of a marshal one,
    what it holds: the two lists, or (an index written before binder names were kept) the
    used names and the binders themselves."""
    if blob[:1] != _KEYS_HEAD:
        return marshal.loads(blob)
    used, _, extra = blob[1:].decode("utf-8", "surrogatepass").partition("\0")
    return used.split("\n") if used else [], extra.split("\n") if extra else []


Offsets = array | memoryview  # of "I" items: an index built, or read from its file


class NameIndex:
    """name -> the files whose lookup keys hold it: each posting an array of
    2 * (the file's place in `paths`) + 1 when the file uses the name (its lookups), + 0
    when only its flow binders read it.

    Packed as state-names.bin holds it: the names sorted (UTF-8) in one blob, the postings
    in another, each with an array of end offsets (the postings' in bytes), a name found by
    bisection; read from a file (`load_index`), they stay the file's bytes. An edit asks a
    few names, and decoding a dict of them all (Django: ~25K names, 0.5 MB) was ~5 ms of
    its CPU."""

    def __init__(self, digest: int, paths: list[str],
                 packed: tuple[bytes, Offsets, bytes, Offsets], origin: Path | None = None):  # fmt: skip
        self.digest = digest  # of the state-keys.bin it was made from
        self.paths = paths
        self.origin = origin  # the file it was read from (linked on), None: made this run
        self._packed = packed  # (names, their end offsets, postings, their end offsets)

    @classmethod
    def build(cls, digest: int, base: dict[str, bytes]) -> NameIndex | None:
        """From every file's lookup keys blob; None when a blob holds binders themselves (an
        index written before binder names were kept: the plan reads those whole). Made packed,
        as `save` writes it: by the native core's invert_keys (native/core_keys.c: in Python,
        a list of ints per name took the kernel's keys 7.9 s and ~414 MB), or here for keys
        blobs it does not read (marshal's, of an index written before KEYS_FORMAT)."""
        paths = sorted(base)
        invert = getattr(native_core(), "invert_keys", None)
        packed = None if invert is None else invert(list(map(base.__getitem__, paths)))
        if packed is not None:
            names, name_ends, postings, posting_ends = packed
            return cls(digest, paths, (names, memoryview(name_ends).cast("I"), postings,
                                       memoryview(posting_ends).cast("I")))  # fmt: skip
        lists: defaultdict[str, list[int]] = defaultdict(list)
        for i, path in enumerate(paths):
            used, second = read_keys(base[path])
            if second and not isinstance(second[0], str):
                return None
            code = 2 * i + 1
            for name in used:
                lists[name].append(code)
            code -= 1
            for name in second:  # binder names, none of them used (plan.lookup_keys_blob)
                lists[name].append(code)
        # str order is code point order, which their UTF-8 bytes keep (`_posting` bisects them)
        names = sorted(lists)
        postings = list(map(lists.__getitem__, names))
        del lists
        encoded = list(map(methodcaller("encode", "utf-8", "surrogatepass"), names))
        name_ends = array("I", accumulate(map(len, encoded)))
        posting_ends = array("I", map(mul, accumulate(map(len, postings)), repeat(4)))
        flat = array("i", chain.from_iterable(postings)).tobytes()
        return cls(digest, paths, (b"".join(encoded), name_ends, flat, posting_ends))

    def _posting(self, name: str) -> memoryview | None:
        names, name_ends, postings, posting_ends = self._packed
        key = name.encode("utf-8", "surrogatepass")
        sorted_names = _Names(names, name_ends)
        i = bisect_left(sorted_names, key)
        if i == len(name_ends) or sorted_names[i] != key:
            return None
        return memoryview(postings)[posting_ends[i - 1] if i else 0 : posting_ends[i]]

    def files_with(self, names: Iterable[str], used_only: bool) -> set[str]:
        """The files that use one of `names` (`used_only`) or read one with a binder too."""
        out: set[str] = set()
        paths = self.paths
        for name in names:
            posting = self._posting(name)
            if posting is None:
                continue
            for v in memoryview(posting).cast("i"):
                if v & 1 or not used_only:
                    out.add(paths[v >> 1])
        return out

    def save(self, path: Path) -> None:
        names, name_ends, postings, posting_ends = self._packed
        atomic_write(path, marshal.dumps((FORMAT, self.digest, self.paths, names,
                                          name_ends.tobytes(), postings, posting_ends.tobytes())))  # fmt: skip


class _Names:
    """The sorted names of a packed index as a sequence of bytes, for `bisect`."""

    __slots__ = ("_blob", "_ends")

    def __init__(self, blob: bytes, ends: memoryview) -> None:
        self._blob, self._ends = blob, ends

    def __len__(self) -> int:
        return len(self._ends)

    def __getitem__(self, i: int) -> bytes:
        return self._blob[self._ends[i - 1] if i else 0 : self._ends[i]]


def load_index(path: Path, digest: int) -> NameIndex | None:
    """The index saved at `path` when it was made from the keys file of `digest`."""
    try:
        t = marshal.loads(path.read_bytes())
        if not (isinstance(t, tuple) and len(t) == 7 and t[0] == FORMAT and t[1] == digest):
            return None
        names, name_ends, postings, posting_ends = t[3:]
        name_ends = memoryview(name_ends).cast("I")
        posting_ends = memoryview(posting_ends).cast("I")
    except (OSError, ValueError, EOFError, TypeError):
        return None
    if len(name_ends) != len(posting_ends):
        return None
    return NameIndex(t[1], t[2], (names, name_ends, postings, posting_ends), origin=path)
