"""The incremental state's shared tables (indexer/id_table.py, indexer/state.py): the ids read
in place and the lookup keys and summaries kept as a base file plus the changes since it,
both linked from generation to generation, answer as the dicts they stand for."""

import random

import numpy as np
import pytest
import xxhash

from codeimpact.indexer import state
from codeimpact.indexer.id_table import (
    Ids,
    IdTable,
    at_or_above,
    copy_ids,
    max_id,
    pairs,
    write_id_table,
)
from codeimpact.indexer.name_index import NAMES_NAME, keys_blob, load_index
from codeimpact.indexer.state import GraphState, load_graph_state, save_graph_state

UIDS = ["lib/a.c::f", "lib/a.c::g", "ext::printf", "drivers/ü.c::h", "x/\udcff.c::k", ""]


def _table(tmp_path, ids) -> IdTable:
    write_id_table(tmp_path / "ids.bin", ids)
    return IdTable(tmp_path / "ids.bin")


def test_the_table_answers_as_the_dict(tmp_path):
    ids = {u: i for i, u in enumerate(reversed(UIDS))}
    table = _table(tmp_path, ids)
    assert len(table) == len(ids)
    assert all(table[u] == i for u, i in ids.items())
    assert table.uids() == list(reversed(UIDS))
    assert [table.uid_at(i) for i in range(len(ids))] == list(reversed(UIDS))
    for absent in ("lib/a.c::F", "lib/a.c::", "nothing", "drivers/u.c::h"):
        assert absent not in table
        with pytest.raises(KeyError):
            table[absent]
    assert _table(tmp_path, {}).uids() == []


def test_ids_not_dense_are_refused(tmp_path):
    with pytest.raises((ValueError, IndexError)):
        write_id_table(tmp_path / "ids.bin", {"a": 0, "b": 2})


def test_a_file_that_is_not_a_table_is_refused(tmp_path):
    (tmp_path / "ids.bin").write_bytes(b"not a table at all, but long enough for a header")
    with pytest.raises(ValueError):
        IdTable(tmp_path / "ids.bin")


def test_changes_over_the_table_answer_as_a_dict(tmp_path):
    """Random adds, deletes and renumberings, as compute_delta makes them, through every
    reading compute_delta, dense_moves and node_ranks use."""
    rng = random.Random(7)
    model = {f"f{i}.c::s{i}": i for i in range(300)}
    ids: Ids = Ids(_table(tmp_path, model))
    fresh = 0
    for step in range(400):
        before, model_before = copy_ids(ids), dict(model)
        op = rng.random()
        if op < 0.4 and model:
            u = rng.choice(sorted(model))
            del model[u], ids[u]
        elif op < 0.8:
            u = rng.choice([f"f{rng.randrange(300)}.c::s{rng.randrange(300)}", f"new{fresh}"])
            fresh += 1
            model[u] = ids[u] = rng.randrange(1000)
        else:
            u = rng.choice(sorted(model))
            model[u] = ids[u] = rng.randrange(1000)
        assert len(ids) == len(model)
        if step % 40 == 0:
            assert before.to_dict() == model_before  # a copy is apart from later changes
            assert ids.to_dict() == model
            uids, got = pairs(ids)
            assert dict(zip(uids, got.tolist())) == model
            assert max_id(ids) == max(model.values(), default=-1)
            for n in (0, 150, 299, 600):
                assert sorted(at_or_above(ids, n)) == sorted(
                    (i, u) for u, i in model.items() if i >= n
                )
        probe = rng.choice([*model, "absent::x"])
        assert (probe in ids) == (probe in model)
        assert ids.get(probe) == model.get(probe)


def _state(ids, used, summaries) -> GraphState:
    return GraphState({}, dict(used), {}, ids, [], {}, {}, {"symbols": len(ids)},
                      dict(summaries), np.zeros(0, np.int64), np.zeros(0, np.float32))  # fmt: skip


def _inode(path) -> int:
    return path.stat().st_ino


def test_state_links_its_tables_and_carries_the_changes(tmp_path, monkeypatch):
    """Generation after generation, the tables are linked while the changes are few, written
    anew when they are many, and every loaded state equals what was saved."""
    ids = {f"f{i}.c::s": i for i in range(200)}
    used = {f"f{i}.c": keys_blob([f"name{i % 50}", "shared"], [f"b{i}"]) for i in range(200)}
    summaries = {f"f{i}.c": b"s%d" % i for i in range(200)}
    gens = [tmp_path / f"gen-{n}" for n in range(3)]
    for g in gens:
        g.mkdir()
    save_graph_state(gens[0], _state(ids, used, summaries), 0)
    st = load_graph_state(gens[0])
    assert isinstance(st.ids, Ids) and st.ids.to_dict() == ids
    assert (st.used, st.summaries) == (used, summaries)

    # a few changes: both tables linked, the changes carried
    new_ids = copy_ids(st.ids)
    del new_ids["f3.c::s"]
    new_ids["f3.c::t"] = 3
    new_ids["f0.c::s"], new_ids["f199.c::s"] = 199, 0
    used2 = {**st.used, "f5.c": keys_blob(["changed"], []), "new.c": keys_blob(["n"], [])}
    del used2["f7.c"]
    summaries2 = {**st.summaries, "f9.c": b"other"}
    nxt = _state(new_ids, used2, summaries2)
    nxt.keys_base = st.keys_base
    save_graph_state(gens[1], nxt, 1)
    for name in (state.IDS_NAME, state.KEYS_NAME, NAMES_NAME):
        assert _inode(gens[1] / name) == _inode(gens[0] / name), name
    st2 = load_graph_state(gens[1])
    assert st2.ids.to_dict() == {**{u: i for u, i in ids.items() if u != "f3.c::s"},
                                 "f3.c::t": 3, "f0.c::s": 199, "f199.c::s": 0}  # fmt: skip
    assert (st2.used, st2.summaries) == (used2, summaries2)

    # many changes: both written anew, and the state still equal
    monkeypatch.setattr(state, "IDS_CHANGES_MAX", 0)
    many = copy_ids(st2.ids)
    many["f1.c::extra"] = 200
    heavy = {**st2.used, **{p: keys_blob(["x" * 400], []) for p in list(st2.used)[:20]}}
    nxt = _state(many, heavy, st2.summaries)
    nxt.keys_base = st2.keys_base
    save_graph_state(gens[2], nxt, 2)
    for name in (state.IDS_NAME, state.KEYS_NAME, NAMES_NAME):
        assert _inode(gens[2] / name) != _inode(gens[1] / name), name
    st3 = load_graph_state(gens[2])
    # the names index written with the keys file, of its bytes: the edit asks it, not made
    assert load_index(gens[2] / NAMES_NAME, st3.keys_digest).files_with({"x" * 400}, True) == set(
        list(st2.used)[:20]
    )
    assert st3.ids.to_dict() == many.to_dict()
    assert (st3.used, st3.summaries) == (heavy, st2.summaries)
    assert (st3.ids.changed, st3.ids.gone) == ({}, set())


def test_the_state_files_are_decoded_through_a_mapping(tmp_path, monkeypatch):
    # read whole first, Django's 4.1 MB of lookup keys and summaries were copied into a
    # fresh buffer before their decode (~2 ms of an edit's CPU in its page faults)
    ids = {f"f{i}.c::s": i for i in range(20)}
    used = {f"f{i}.c": keys_blob([f"name{i}"], []) for i in range(20)}
    summaries = {f"f{i}.c": b"s%d" % i for i in range(20)}
    save_graph_state(tmp_path, _state(ids, used, summaries), 0)
    real = type(tmp_path).read_bytes

    def read_bytes(path):
        assert path.name not in (state.KEYS_NAME, state.GRAPH_NAME), path
        return real(path)

    monkeypatch.setattr(type(tmp_path), "read_bytes", read_bytes)
    st = load_graph_state(tmp_path)
    monkeypatch.undo()
    assert st is not None and (st.used, st.summaries) == (used, summaries)
    assert st.keys_base[1] == (tmp_path / state.KEYS_NAME).stat().st_size
    assert st.keys_digest == xxhash.xxh3_64_intdigest((tmp_path / state.KEYS_NAME).read_bytes())
    (tmp_path / state.KEYS_NAME).write_bytes(b"")  # (an empty file: no state, no crash)
    assert load_graph_state(tmp_path) is None


def test_an_edit_decodes_the_shared_summary_through_a_mapping(tmp_path, monkeypatch):
    # Python's shared summary (3 MB on Django) was copied whole into a fresh buffer first
    import marshal

    from codeimpact.indexer.incremental_run import _shared_loader

    value = {"tables": [f"name{i}" for i in range(1000)]}
    (tmp_path / "shared-python.bin").write_bytes(marshal.dumps(value))
    st = _state({}, {}, {})
    st.shared = {"python": tmp_path / "shared-python.bin"}
    monkeypatch.setattr(type(tmp_path), "read_bytes", lambda path: pytest.fail(str(path)))
    assert _shared_loader(st)("python") == value and _shared_loader(st)("c") is None
