"""impact / blast radius on a real index: exact sets, depths, paths, tests, risk, completeness.

The fixture is a small shop; its call graph (checked edge by edge in
`test_fixture_edges`) is:

    test_add -> Cart.add -> Item.total -> apply_tax -> round_money
    buy -> checkout -> apply_tax;  buy -> Cart.add, Cart.__init__, Cart
    shop/cart.py imports Item, apply_tax;  api/views.py imports Cart, checkout
    buy's `payment.round_money()` and report's `ledger.round_money(3)` are unresolved.
"""

from __future__ import annotations

import json
import shutil
from collections import deque

import pytest

from codeimpact.graph.manifest import Damaged
from codeimpact.indexer.build import analyze
from codeimpact.indexer.config import IndexConfig, RunOptions
from codeimpact.query.impact import assess_risk
from codeimpact.query.impact_shapes import RISK_THRESHOLDS, UnresolvedSite
from codeimpact.query.index import Index
from conftest import edges, git, write_files

FILES = {
    "shop/__init__.py": "",
    "shop/models.py": """
        class Item:
            def __init__(self, price):
                self.price = price

            def total(self, qty):
                return apply_tax(self.price * qty)


        def apply_tax(amount):
            return round_money(amount * 1.2)


        def round_money(x):
            return round(x, 2)
        """,
    "shop/cart.py": """
        from shop.models import Item, apply_tax


        class Cart:
            def __init__(self):
                self.items = []

            def add(self, price, qty):
                item = Item(price)
                self.items.append(item.total(qty))

            def sum(self):
                return sum(self.items)


        def checkout(cart):
            return apply_tax(cart.sum())
        """,
    "api/__init__.py": "",
    "api/views.py": """
        from shop.cart import Cart, checkout


        def buy(price, payment):
            c = Cart()
            c.add(price, 1)
            payment.round_money()
            return checkout(c)
        """,
    "api/report.py": """
        def report(ledger):
            return ledger.round_money(3)
        """,
    "tests/test_cart.py": """
        from shop.cart import Cart


        def test_add():
            c = Cart()
            c.add(1, 2)
            assert c.sum() == 2
        """,
}

M = "shop/models.py::"
C = "shop/cart.py::"
V = "api/views.py::"
TEST_ADD = "tests/test_cart.py::test_add"


def build(root, files=FILES):
    from codeimpact.indexer.build import analyze
    from codeimpact.indexer.config import IndexConfig, RunOptions

    root.mkdir()
    write_files(root, files)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    analyze(root, IndexConfig(), RunOptions(workers=1))
    return root


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    return build(tmp_path_factory.mktemp("impact") / "shop")


@pytest.fixture(scope="module")
def index(repo):
    with Index.open(repo) as ix:
        yield ix


def by_depth(result):
    """{depth: {uid: (relation, confidence)}} over all groups."""
    return {g.depth: {e.uid: (e.relation, e.confidence) for e in g.entries} for g in result.groups}


def entry(result, uid):
    return next(e for g in result.groups for e in g.entries if e.uid == uid)


def test_fixture_edges(repo):
    calls = {(a, b) for a, b, _, _ in edges(repo, "CALLS")}
    assert {
        (f"{M}Item.total", f"{M}apply_tax"),
        (f"{M}apply_tax", f"{M}round_money"),
        (f"{C}Cart.add", f"{M}Item.total"),
        (f"{C}checkout", f"{M}apply_tax"),
        (f"{V}buy", f"{C}checkout"),
        (f"{V}buy", f"{C}Cart.add"),
        (TEST_ADD, f"{C}Cart.add"),
    } <= calls
    assert not any(b == f"{M}round_money" and a != f"{M}apply_tax" for a, b in calls)


def test_upstream_impact_of_a_function(index):
    r = index.impact("round_money", limit=0)
    assert r.target.uid == f"{M}round_money"
    assert (r.direction, r.depth, r.members) == ("upstream", 3, 0)
    assert by_depth(r) == {
        1: {f"{M}apply_tax": ("CALLS", 1.0)},
        2: {
            f"{M}Item.total": ("CALLS", 1.0),
            f"{C}checkout": ("CALLS", 1.0),
            C: ("IMPORTS", 1.0),
        },
        3: {
            f"{C}Cart.add": ("CALLS", 0.8),
            f"{V}buy": ("CALLS", 1.0),
            V: ("IMPORTS", 1.0),
        },
    }
    assert [(g.depth, g.label, g.count) for g in r.groups] == [
        (1, "WILL BREAK", 1),
        (2, "LIKELY AFFECTED", 3),
        (3, "MAY NEED TESTING", 3),
    ]
    assert entry(r, f"{C}Cart.add").path == [
        f"{C}Cart.add",
        f"{M}Item.total",
        f"{M}apply_tax",
        f"{M}round_money",
    ]
    assert entry(r, V).path == [V, f"{C}checkout", f"{M}apply_tax", f"{M}round_money"]
    assert [(f.path, f.count) for f in r.files] == [  # most entries first
        ("shop/cart.py", 3),
        ("api/views.py", 2),
        ("shop/models.py", 2),
    ]
    assert [(m.path, m.count) for m in r.modules] == [("shop", 5), ("api", 2)]
    # the test reaches the target through Cart.add, one hop beyond the depth limit
    assert [(t.uid, t.depth, t.path) for t in r.tests] == [
        (
            TEST_ADD,
            4,
            [TEST_ADD, f"{C}Cart.add", f"{M}Item.total", f"{M}apply_tax", f"{M}round_money"],
        )
    ]
    assert r.test_files == ["tests/test_cart.py"]
    # test_add runs Cart.add, Item.total, apply_tax and (by running Cart.add) shop/cart.py;
    # nothing runs buy, checkout or api/views.py
    c = r.counts
    assert (c.direct, c.total, c.files, c.modules, c.tests, c.untested) == (1, 7, 3, 2, 1, 3)
    assert r.risk.level == "MEDIUM"
    assert r.risk.reasons == ["modules 2 >= 2 (MEDIUM)", "untested 3 >= 1 (MEDIUM)"]
    # buy's unresolved payment.round_money() is already in the answer; report's is not
    assert r.completeness.status == "lower-bound"
    assert r.completeness.unresolved_sites == 1
    assert r.completeness.sites == [UnresolvedSite("round_money", "api/report.py::report", 2)]


def test_depth_limits_the_answer_and_the_completeness_frontier(index):
    r = index.impact(f"{M}round_money", depth=1)
    assert by_depth(r) == {1: {f"{M}apply_tax": ("CALLS", 1.0)}}
    assert r.risk.level == "LOW" and r.risk.reasons == []
    # at depth 1 buy is not in the answer, so its unresolved call counts too
    assert r.completeness.unresolved_sites == 2
    assert [s.caller for s in r.completeness.sites] == ["api/report.py::report", f"{V}buy"]


def test_tests_are_listed_only_with_include_tests(index):
    r = index.impact("round_money", depth=4)
    assert TEST_ADD not in {e.uid for g in r.groups for e in g.entries}
    assert [t.uid for t in r.tests] == [TEST_ADD]
    r = index.impact("round_money", depth=4, include_tests=True)
    assert by_depth(r)[4] == {TEST_ADD: ("CALLS", 0.8)}
    assert entry(r, TEST_ADD).is_test is True
    assert [t.uid for t in r.tests] == [TEST_ADD]


def test_relation_and_confidence_filters(index):
    calls_only = index.impact("round_money", relation="CALLS")
    assert set(by_depth(calls_only)[2]) == {f"{M}Item.total", f"{C}checkout"}
    assert set(by_depth(calls_only)[3]) == {f"{C}Cart.add", f"{V}buy"}
    imports_only = index.impact("round_money", relation=["imports"])
    assert imports_only.groups == [] and imports_only.counts.total == 0
    assert imports_only.risk.level == "LOW"
    assert imports_only.completeness.status == "exact"  # no call is followed
    sure = index.impact("round_money", min_confidence=0.9)
    assert f"{C}Cart.add" not in by_depth(sure).get(3, {})
    assert sure.tests == []  # test_add only reaches it through 0.8 edges
    assert sure.counts.untested == sure.counts.total


def test_a_class_target_includes_its_members(index):
    r = index.impact(f"{M}Item", depth=1)
    assert r.members == 2  # __init__ and total
    assert by_depth(r) == {1: {f"{C}Cart.add": ("CALLS", 1.0), C: ("IMPORTS", 1.0)}}
    assert entry(r, f"{C}Cart.add").path == [f"{C}Cart.add", f"{M}Item"]
    member_only = index.impact(f"{M}Item.total", depth=1)
    assert by_depth(member_only) == {1: {f"{C}Cart.add": ("CALLS", 0.8)}}


def test_a_module_target_includes_everything_defined_in_it(index):
    r = index.impact("shop/models.py", depth=1)
    assert r.target.uid == M and r.members == 5
    # Item.total -> apply_tax -> round_money stay inside the target: sources, not entries
    assert set(by_depth(r)[1]) == {f"{C}Cart.add", f"{C}checkout", C}


def test_downstream_impact(index):
    r = index.impact(f"{V}buy", direction="downstream", depth=2)
    assert by_depth(r) == {
        1: {
            f"{C}checkout": ("CALLS", 1.0),
            f"{C}Cart.add": ("CALLS", 0.8),
            f"{C}Cart.__init__": ("CALLS", 0.8),
            f"{C}Cart": ("CALLS", 1.0),
        },
        2: {
            f"{M}apply_tax": ("CALLS", 1.0),
            f"{M}Item.total": ("CALLS", 0.8),
            f"{M}Item.__init__": ("CALLS", 0.8),
            f"{M}Item": ("CALLS", 1.0),
        },
    }
    assert entry(r, f"{M}apply_tax").path == [f"{M}apply_tax", f"{C}checkout", f"{V}buy"]
    assert r.tests == [] and r.counts.untested == 8
    assert r.risk.level == "MEDIUM"
    # unresolved calls made by buy and checkout may hide more dependencies (Cart.add's
    # self.items.append is a builtin call: self.items = [] is a list)
    assert r.completeness.unresolved_sites == 2
    assert {(s.name, s.caller) for s in r.completeness.sites} == {
        ("round_money", f"{V}buy"),
        ("sum", f"{C}checkout"),
    }


def test_blast_radius_is_one_deduplicated_union(index):
    r = index.blast_radius(
        [f"{M}round_money", f"{C}Cart.__init__", "shop.models.round_money"], limit=0
    )
    assert [t.uid for t in r.targets] == [f"{M}round_money", f"{C}Cart.__init__"]
    assert by_depth(r) == {
        1: {f"{M}apply_tax": ("CALLS", 1.0), f"{V}buy": ("CALLS", 0.8)},
        2: {
            f"{M}Item.total": ("CALLS", 1.0),
            f"{C}checkout": ("CALLS", 1.0),
            C: ("IMPORTS", 1.0),
        },
        3: {f"{C}Cart.add": ("CALLS", 0.8), V: ("IMPORTS", 1.0)},
    }
    assert [(t.uid, t.depth) for t in r.tests] == [(TEST_ADD, 1)]
    assert r.test_files == ["tests/test_cart.py"]
    uids = [e.uid for g in r.groups for e in g.entries]
    assert len(uids) == len(set(uids)) == r.counts.total == 7


def test_limit_cuts_lists_but_not_counts(index):
    r = index.impact("round_money", limit=1)
    assert [(g.count, len(g.entries)) for g in r.groups] == [(1, 1), (3, 1), (3, 1)]
    assert len(r.files) == 1 and r.counts.files == 3
    assert r.counts.total == 7


def test_bad_parameters_are_bad_input(index):
    from codeimpact.graph.errors import BadInput

    for kwargs in (
        {"direction": "sideways"},
        {"depth": 0},
        {"relation": "CALLS,FOO"},
        {"relation": ""},
        {"min_confidence": 1.5},
        {"limit": -1},
    ):
        with pytest.raises(BadInput):
            index.impact("round_money", **kwargs)
    with pytest.raises(BadInput):
        index.blast_radius([])


@pytest.mark.parametrize(
    "values, level",
    [
        ((0, 0, 0, 0), "LOW"),
        ((2, 9, 1, 0), "LOW"),
        ((3, 3, 1, 0), "MEDIUM"),
        ((0, 0, 0, 1), "MEDIUM"),
        ((9, 49, 4, 9), "MEDIUM"),
        ((10, 10, 1, 0), "HIGH"),
        ((1, 50, 1, 0), "HIGH"),
        ((1, 1, 5, 0), "HIGH"),
        ((1, 1, 1, 10), "HIGH"),
        ((30, 30, 1, 0), "CRITICAL"),
        ((1, 200, 1, 0), "CRITICAL"),
        ((1, 1, 10, 0), "CRITICAL"),
        ((1, 1, 1, 50), "CRITICAL"),
    ],
)
def test_risk_thresholds(values, level):
    assert assess_risk(*values).level == level
    assert RISK_THRESHOLDS["direct"] == (3, 10, 30)


def upstream_oracle(repo, relations, source, depth):
    """Plain BFS over the edges as Kùzu reports them: {uid: depth} of the dependents."""
    rev: dict[str, set[str]] = {}
    for rel in relations:
        for row in edges(repo, rel):
            rev.setdefault(row[1], set()).add(row[0])
    contains: dict[str, set[str]] = {}
    for a, b in edges(repo, "CONTAINS"):
        contains.setdefault(a, set()).add(b)
    sources, todo = {source}, [source]
    while todo:
        for child in contains.get(todo.pop(), ()):
            if child not in sources:
                sources.add(child)
                todo.append(child)
    seen = {s: 0 for s in sources}
    queue = deque(sources)
    while queue:
        node = queue.popleft()
        if seen[node] == depth:
            continue
        for dep in rev.get(node, ()):
            if dep not in seen:
                seen[dep] = seen[node] + 1
                queue.append(dep)
    return {u: d for u, d in seen.items() if d > 0}


def test_every_symbol_matches_a_plain_bfs_and_every_path_is_made_of_edges(index, repo):
    relations = ["CALLS", "IMPORTS", "EXTENDS", "IMPLEMENTS", "REFERENCES"]
    forward = {(row[0], row[1]) for rel in relations for row in edges(repo, rel)}
    for uid in index.graph.symbols.uid:
        for depth in (1, 3):
            r = index.impact(uid, depth=depth, include_tests=True, limit=0, check_freshness=False)
            got = {e.uid: e.depth for g in r.groups for e in g.entries}
            assert got == upstream_oracle(repo, relations, uid, depth), uid
            for g in r.groups:
                for e in g.entries:
                    assert len(e.path) == e.depth + 1
                    assert all(pair in forward for pair in zip(e.path, e.path[1:])), e.path


@pytest.mark.parametrize("damage", ["missing", "other-generation", "no-unresolved-record"])
def test_a_damaged_snapshot_is_refused_until_analyze_rebuilds_it(tmp_path, damage):
    """The snapshot and the unresolved sites are checked against the generation's manifest:
    a query never answers from a changed or missing one (no rebuilt guess, no "unknown"
    completeness), and a plain analyze repairs them."""
    repo = build(tmp_path / "shop")
    with Index.open(repo) as ix:
        expected = by_depth(ix.impact("round_money"))
        completeness = ix.impact("round_money").completeness
        assert ix.graph.rebuilt is False
        gen_dir = ix.reader.gen.path
    csr_dir = gen_dir / "csr"
    if damage == "missing":
        shutil.rmtree(csr_dir)
    elif damage == "other-generation":
        meta = json.loads((csr_dir / "meta.json").read_text())
        meta["generation"] += 1
        (csr_dir / "meta.json").write_text(json.dumps(meta))
    else:
        (gen_dir / "unresolved.bin").unlink()
    with pytest.raises(Damaged, match="damaged: gen-000001/"):
        Index.open(repo)
    analyze(repo, IndexConfig(), RunOptions(workers=1))
    with Index.open(repo) as ix:
        assert ix.graph.rebuilt is False
        assert by_depth(ix.impact("round_money")) == expected
        assert ix.impact("round_money").completeness == completeness
