"""A table kept as marshal bytes (indexer/marshalled.py), alone or as the buckets of the
foreign owners (indexer/state.py) and of a name table (lang/engine/buckets.py): a bucket
read but not changed is written back as the bytes it was read from, a changed one encoded
anew, and the table read back is the dict it stands for."""

from __future__ import annotations

import marshal

from codeimpact.indexer.lang.engine import buckets
from codeimpact.indexer.marshalled import Marshalled
from codeimpact.indexer.state import ForeignOwners


def test_a_table_read_but_not_changed_is_written_as_it_was_read():
    blob = marshal.dumps({"a": [1], "b": [2]})
    table = Marshalled(blob)
    assert table["a"] == [1] and "b" in table and len(table) == 2
    assert table.encoded() is blob
    table.setdefault("a", [])  # present: nothing changes
    table.pop("missing", None)
    assert table.encoded() is blob
    table.pop("b")
    assert table.changed and marshal.loads(Marshalled.bytes_of(table)) == {"a": [1]}


def test_the_foreign_owners_write_the_buckets_read_or_not_as_read_and_the_changed_anew():
    def key(src: str, dst: str) -> tuple:
        return ("CALLS", f"{src}::f", f"{dst}::g")

    full = {key("a.py", "x.py"): ["b.py"], key("a.py", "y.py"): ["c.py"],
            key("d.py", "x.py"): ["e.py"]}  # fmt: skip
    written = ForeignOwners.of(full).blobs()
    read = ForeignOwners(written)
    assert read.get(key("d.py", "x.py")) == ["e.py"]  # d.py's bucket decoded, unchanged
    copy = read.copy()
    copy[key("a.py", "z.py")] = ["f.py"]
    again = copy.blobs()
    assert again["d.py"] is written["d.py"] and again["a.py"] is not written["a.py"]
    assert read.blobs() == written  # the copy's change is its own
    assert dict(ForeignOwners(again).items()) == {**full, key("a.py", "z.py"): ["f.py"]}
    del copy[key("d.py", "x.py")]
    assert "d.py" not in copy.blobs()  # an emptied bucket is not written


def test_a_name_table_writes_its_unchanged_buckets_as_read():
    table = {f"name{i}": [i] for i in range(buckets.PER_BUCKET * 3)}
    stored = buckets.split(table)
    read = buckets.Buckets(stored)
    assert read["name1"] == [1] and read.encoded() is stored  # read only: the same tuple
    read["name40"] = [0]  # in the second bucket
    blobs, crc, at = read.encoded()
    assert blobs[0] is stored[0][0] and blobs[2] is stored[0][2] and blobs[1] != stored[0][1]
    assert dict(buckets.Buckets((blobs, crc, at)).items()) == {**table, "name40": [0]}
