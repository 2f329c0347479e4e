"""Which files' lookups use a name: the lookup keys (plan.lookup_keys_blob) inverted.

An edit that touches names asks which unchanged files use them (plan.affected_files) or
read them through a flow binder (plan.FlowIndex); without this index each ask decoded every
file's lookup keys (Django: 2,817 blobs, ~45 ms of CPU, ~40% of an edit's resolution).

The index is made from the lookup keys as a generation's state-keys.bin holds them (the
state's `keys_base`; the files whose keys changed since are carried in state-graph.bin and
read directly), so it holds as long as that file is linked on from generation to
generation. It is made by the first edit that asks after state-keys.bin was written anew,
never by a full build (an index of a tree nobody edits would cost its build the decode),
and saved beside the linked state-keys.bin (state-names.bin), with the keys file's digest.
"""

from __future__ import annotations

import marshal
from array import array
from bisect import bisect_left
from collections.abc import Iterable
from pathlib import Path

from codeimpact.graph.layout import atomic_write

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


class NameIndex:
    """name -> the files whose lookup keys hold it: each posting an array of
    2 * (the file's place in `paths`) + 1 when the file uses the name (its lookups), + 0
    when only its flow binders read it.

    Made this run (`build`), the postings are a dict; read from a file (`load_index`), they
    stay the file's bytes: the names sorted (UTF-8) in one blob, the postings in another,
    each with an array of offsets, a name found by bisection. An edit asks a few names, and
    decoding the whole dict (Django: ~50K names, 1.1 MB) was ~5 ms of its CPU."""

    def __init__(self, digest: int, paths: list[str], postings: dict[str, bytes] | None = None,
                 origin: Path | None = None, packed: tuple[bytes, bytes, bytes, bytes] | None = None):  # fmt: skip
        self.digest = digest  # of the state-keys.bin it was made from
        self.paths = paths
        self.postings = postings
        self.origin = origin  # the file it was read from (linked on), None: made this run
        self._packed = packed  # (names, their end offsets, postings, their end offsets)

    @classmethod
    def build(cls, digest: int, base: dict[str, bytes]) -> NameIndex | None:
        """From every file's lookup keys blob; None when a blob holds binders themselves (an
        index written before binder names were kept: the plan reads those whole)."""
        paths = sorted(base)
        lists: dict[str, array] = {}
        for i, path in enumerate(paths):
            used, second = read_keys(base[path])
            if second and not isinstance(second[0], str):
                return None
            for name in used:
                lists.setdefault(name, array("i")).append(2 * i + 1)
            for name in second:  # binder names, none of them used (plan.lookup_keys_blob)
                lists.setdefault(name, array("i")).append(2 * i)
        return cls(digest, paths, {name: a.tobytes() for name, a in lists.items()})

    def _posting(self, name: str) -> bytes | memoryview | None:
        if self.postings is not None:
            return self.postings.get(name)
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
        packed = self._packed
        if packed is None:
            keys = sorted((n.encode("utf-8", "surrogatepass"), n) for n in self.postings)
            name_ends, posting_ends, end, at = array("I"), array("I"), 0, 0
            for key, name in keys:
                end += len(key)
                at += len(self.postings[name])
                name_ends.append(end)
                posting_ends.append(at)
            packed = (b"".join(k for k, _ in keys), name_ends.tobytes(),
                      b"".join(self.postings[n] for _, n in keys), posting_ends.tobytes())  # fmt: skip
        atomic_write(path, marshal.dumps((FORMAT, self.digest, self.paths, *packed)))


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
    return NameIndex(t[1], t[2], origin=path, packed=(names, name_ends, postings, posting_ends))
