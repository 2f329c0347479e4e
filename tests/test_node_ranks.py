"""An edit's node ranks (each node's place in uid order, the CSR snapshot's `node_rank`) are
patched from the live generation's, not recomputed from every uid: they must be exactly
what sorting every uid gives."""

from __future__ import annotations

import random

import numpy as np
import pytest

from codeimpact.graph import csr, layout
from codeimpact.indexer.id_table import Ids, IdTable, copy_ids, pairs, write_id_table
from codeimpact.indexer.incremental import _patched_ranks, dense_moves
from codeimpact.indexer.state import load_graph_state


def _step(rng: random.Random, old: Ids, fresh: int):
    """One delta's id changes as compute_delta makes them: (new ids, gone, newcomers,
    moves old id -> new id)."""
    uids = sorted(pairs(old)[0])
    gone = rng.sample(uids, rng.randrange(0, min(6, len(uids))))
    newcomers = sorted(
        {f"p{rng.randrange(40)}/m.py::n{fresh}_{k}" for k in range(rng.randrange(0, 6))}
    )
    new = copy_ids(old)
    freed = sorted(old[u] for u in gone)
    for u in gone:
        del new[u]
    pos = 0
    nxt = len(old)
    for u in newcomers:
        if pos < len(freed):
            new[u] = freed[pos]
            pos += 1
        else:
            new[u] = nxt
            nxt += 1
    holes = [h for h in freed[pos:] if h < len(new)]
    moved = dense_moves(new, holes)
    moves = {old[u]: new[u] for u in moved if u in old}
    return new, gone, newcomers, moves


@pytest.mark.parametrize("seed", range(6))
def test_patched_ranks_are_the_sorted_ranks(tmp_path, seed):
    rng = random.Random(seed)
    base = {f"p{i % 37}/m{i % 5}.py::f{i}": i for i in range(400)}
    write_id_table(tmp_path / "ids.bin", base)
    ids = Ids(IdTable(tmp_path / "ids.bin"))
    rank = csr.uid_ranks(*pairs(ids))
    for fresh in range(60):
        new, gone, newcomers, moves = _step(rng, ids, fresh)
        got = _patched_ranks(rank, ids, gone, newcomers, moves, new)
        want = csr.uid_ranks(*pairs(new))
        assert np.array_equal(got, want), (fresh, gone, newcomers, moves)
        ids, rank = new, got


def test_an_edit_writes_the_ranks_of_every_uid(make_repo, index_repo):
    repo = make_repo({f"pkg/m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(6)})
    index_repo(repo)
    edits = [
        {"pkg/m2.py": "def a():\n    pass\n\n\ndef f2():\n    return a()\n"},  # a symbol comes
        {"pkg/m4.py": "X = 1\n"},  # one goes
        {"pkg/m0.py": "def zz():\n    pass\n", "pkg/m5.py": "def aa():\n    pass\n"},
        {"pkg/new.py": "def b():\n    pass\n"},
    ]
    for files in edits:
        for path, text in files.items():
            (repo / path).write_text(text)
        assert index_repo(repo).mode == "incremental"
        gen = layout.read_current(repo / ".codeimpact")
        snap = csr.load_snapshot(gen.path, gen.number)
        st = load_graph_state(gen.path)
        assert np.array_equal(snap.node_rank, csr.uid_ranks(*pairs(st.ids)))
