"""A dict kept as the marshal bytes it was read from until first read, and written back as
those bytes unless changed: the one way an index keeps a table that a run reads little of.

An edit reads a few entries of tables a full build wrote whole (Django's foreign owners:
5,565 keys, of which an edit asks a few buckets'; its Python subclasses: 9K pairs, of which
edits A and B ask none); decoding each whole and encoding it again cost milliseconds of
every edit. Each such table, or each bucket of one, is a `Marshalled`: the bytes as read,
decoded whole when a key is first asked, and encoded again only when a change went
through its methods (assign a value again after changing it in place: an in-place change
is not seen). A table of many buckets finds a key's bucket its own way:
`state.ForeignOwners` by the edge source's file, engine/buckets.py by an index of key CRCs.
"""

from __future__ import annotations

import marshal
from collections.abc import Iterator, Mapping, MutableMapping


class Marshalled(MutableMapping):
    __slots__ = ("_blob", "_dict", "_changed")

    def __init__(self, blob: bytes) -> None:
        self._blob = blob
        self._dict: dict | None = None
        self._changed = False

    @classmethod
    def of(cls, table: dict) -> Marshalled:
        """A table made in this run (encoded when written)."""
        out = cls(b"")
        out._dict, out._changed = table, True
        return out

    def decoded(self) -> dict:
        """The dict, to read: a change must go through the mapping (it marks the bytes old)."""
        d = self._dict
        if d is None:
            d = self._dict = marshal.loads(self._blob)
        return d

    @property
    def changed(self) -> bool:
        return self._changed

    def encoded(self) -> bytes:
        """The marshal bytes: as read, unless changed since."""
        return marshal.dumps(self._dict) if self._changed else self._blob

    @staticmethod
    def bytes_of(table: Mapping) -> bytes:
        """The marshal bytes of a table (a Marshalled's `encoded()`, a dict's dump)."""
        return table.encoded() if isinstance(table, Marshalled) else marshal.dumps(table)

    def copy(self) -> Marshalled:
        """Another table reading the same bytes (the dict copied when it was decoded)."""
        out = Marshalled(self._blob)
        if self._dict is not None:
            out._dict, out._changed = dict(self._dict), self._changed
        return out

    def __getitem__(self, key):
        return self.decoded()[key]

    def get(self, key, default=None):
        return self.decoded().get(key, default)

    def __contains__(self, key) -> bool:
        return key in self.decoded()

    def __setitem__(self, key, value) -> None:
        self.decoded()[key] = value
        self._changed = True

    def __delitem__(self, key) -> None:
        del self.decoded()[key]
        self._changed = True

    def __iter__(self) -> Iterator:
        return iter(self.decoded())

    def __len__(self) -> int:
        return len(self.decoded())
