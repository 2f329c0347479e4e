"""Tables kept as buckets (lang/engine/buckets.py): the index a table is written with is
numpy's stable argsort of its keys' CRCs, however it is sorted (in Python below SMALL keys,
by numpy above, merged key by key when an edit adds some), and a table read back, changed
and written again reads as the dict it stands for."""

from __future__ import annotations

import marshal
import random

import numpy as np
import pytest

from codeimpact.indexer.lang.engine import buckets


def _numpy_index(crcs: list[int]) -> tuple[bytes, bytes]:
    crc = np.array(crcs, dtype=np.uint32)
    order = np.argsort(crc, kind="stable")
    where = np.arange(len(crcs), dtype=np.uint32) // buckets.PER_BUCKET
    return crc[order].tobytes(), where[order].tobytes()


@pytest.mark.parametrize("seed", range(4))
def test_the_index_is_numpys_stable_argsort_on_either_side_of_small(monkeypatch, seed):
    rng = random.Random(seed)
    # few distinct CRCs: many ties, across buckets and inside one
    crcs = [rng.randrange(40) for _ in range(rng.randrange(1, 400))]
    small = buckets._index(crcs)
    monkeypatch.setattr(buckets, "SMALL", 0)  # the numpy side
    assert small == buckets._index(crcs) == _numpy_index(crcs)


@pytest.mark.parametrize("seed", range(4))
def test_keys_merged_into_an_index_are_where_a_whole_sort_puts_them(seed):
    rng = random.Random(seed)
    crcs = [rng.randrange(30) for _ in range(rng.randrange(0, 200))]
    more = [rng.randrange(35) for _ in range(rng.randrange(1, 50))]
    crc, at = _numpy_index(crcs)
    first = -(-len(crcs) // buckets.PER_BUCKET)  # the added keys' buckets follow the old
    added = [(c, first + k // buckets.PER_BUCKET) for k, c in enumerate(more)]
    whole = np.array(crcs + more, dtype=np.uint32)
    where = np.concatenate([np.arange(len(crcs), dtype=np.uint32) // buckets.PER_BUCKET,
                            np.array([w for _, w in added], dtype=np.uint32)])  # fmt: skip
    order = np.argsort(whole, kind="stable")
    assert buckets._merged(crc, at, added) == (whole[order].tobytes(), where[order].tobytes())


def test_a_table_read_changed_and_written_again_reads_as_its_dict():
    rng = random.Random(7)
    table = {f"name{i}": [("a.py", f"C{i}.m")] * (i % 3 + 1) for i in range(500)}
    stored = marshal.loads(marshal.dumps(buckets.split(table)))
    read = buckets.Buckets(stored)
    assert read.get("name3") == table["name3"] and "nope" not in read
    expect = dict(table)
    gone = []
    for i in rng.sample(range(500), 60):  # changed, removed, added
        if i % 3 == 0:
            del read[f"name{i}"], expect[f"name{i}"]
            gone.append(f"name{i}")
        else:
            read[f"name{i}"] = expect[f"name{i}"] = [("b.py", "X.m")]
    for i in range(500, 540):
        read[f"name{i}"] = expect[f"name{i}"] = [("c.py", f"N{i}.m")]
    again = buckets.Buckets(marshal.loads(marshal.dumps(buckets.split(read))))
    assert dict(again.items()) == expect
    assert all(again[k] == v for k, v in expect.items())
    assert gone and all(k not in again and again.get(k) is None for k in gone)


class _PythonOnly:
    """The native core without its table functions: buckets.split's Python way."""

    def __getattr__(self, name):
        if name in ("buckets_split", "crc_index", "tables_build"):
            raise AttributeError(name)
        from codeimpact.native import _core

        return getattr(_core, name)


@pytest.mark.parametrize("seed", range(3))
def test_a_table_split_in_c_is_the_pythons_byte_for_byte(monkeypatch, seed):
    """native/core_tables.c's buckets: the same marshal bytes (the values' lists met twice and
    the groups' dicts flagged as marshal flags them), the same CRCs of keys beyond ASCII and
    with lone surrogates, the same index with ties across and inside buckets."""
    rng = random.Random(seed)
    shared = [("a.py", "C.m")]
    table = {}
    for i in range(rng.randrange(1, 300)):
        key = rng.choice([f"name{i}", f"é{i}", f"\udc80{i}", f"名{i}"])
        table[key] = shared if i % 7 == 0 else [("b.py", f"K{i}.m"), ("c.py", "X")]
    table["tie-a"], table["tie-b"] = [], [1]
    from codeimpact.indexer.lang import api

    made = buckets.split(table)
    monkeypatch.setattr(api, "_native", _PythonOnly())
    python = buckets.split(table)
    assert made == python
    assert marshal.dumps(made) == marshal.dumps(python)
    assert buckets.split({}) == ((), b"", b"")
