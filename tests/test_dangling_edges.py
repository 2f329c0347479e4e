"""An edge the delta would keep although the edit removed its end (a file the plan did not
resolve again reaches a symbol the edit removed) is found before anything is written, and
said with its rule and the file that made it (incremental.dangling_edges)."""

from __future__ import annotations

from codeimpact.graph import csr, layout
from codeimpact.indexer.incremental import compute_delta, dangling_edges
from codeimpact.indexer.state import load_graph_state

FILES = {
    "pkg/__init__.py": "",
    "pkg/a.py": "def f():\n    return 1\n",
    "pkg/b.py": "from pkg.a import f\n\n\ndef g():\n    return f()\n",
    "pkg/c.py": "def h():\n    return 2\n",
}


def live(repo):
    gen = layout.read_current(layout.index_dir(repo))
    return load_graph_state(gen.path), csr.load_snapshot(gen.path, gen.number)


def test_an_edge_to_a_removed_symbol_is_said_with_its_rule_and_file(make_repo, index_repo):
    repo = make_repo(FILES)
    index_repo(repo)
    old, snap = live(repo)
    # pkg/a.py gone, and a plan that does not resolve pkg/b.py again (its call of f and
    # its import stay): what a rule the plan does not know about leaves behind
    found = dangling_edges(old, snap, compute_delta(old, {}, {"pkg/a.py"}, {}, {}, {}))
    assert any(
        s.startswith("pkg/b.py::g -CALLS (") and s.endswith("-> pkg/a.py::f, resolved by pkg/b.py")
        for s in found
    ), found
    assert len(found) <= 3
    # the plan that resolves the user again (here: it is gone too) leaves none; nor does
    # removing a file nobody reaches
    assert (
        dangling_edges(old, snap, compute_delta(old, {}, {"pkg/a.py", "pkg/b.py"}, {}, {}, {}))
        == []
    )
    assert dangling_edges(old, snap, compute_delta(old, {}, {"pkg/c.py"}, {}, {}, {})) == []
