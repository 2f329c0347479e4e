"""The memo's two lifetimes (indexer/lang/engine/memo.py): a lookup declared `per_file` is
kept while one file is resolved and goes when the next starts; every other lookup is kept
for the build. Dropping an answer changes only the work done twice: the edges of a file are
the same whatever the memo held before it."""

from __future__ import annotations

from codeimpact.indexer.lang.engine.memo import Memo, memoized
from codeimpact.indexer.lang.python import SPEC
from codeimpact.indexer.lang.python.resolve import PythonProject


class _Lookups:
    def __init__(self) -> None:
        self.memo = Memo()
        self.computed: list[tuple] = []

    @memoized('("kept", n)')
    def kept(self, n: int) -> int:
        self.computed.append(("kept", n))
        return n * 2

    @memoized('("local", n)', "-1", per_file=True)
    def local(self, n: int) -> int:
        self.computed.append(("local", n))
        return self.local(n) + 1 if n == 7 else n * 3  # 7 meets itself: a cycle


def test_per_file_lookups_go_at_the_next_file_and_the_others_stay():
    lk = _Lookups()
    assert (lk.kept(1), lk.local(1), lk.kept(1), lk.local(1)) == (2, 3, 2, 3)
    assert lk.computed == [("kept", 1), ("local", 1)]  # each computed once within a file
    assert ("local", 1) in lk.memo.file_table and ("local", 1) not in lk.memo.table
    lk.memo.next_file()
    assert (lk.kept(1), lk.local(1)) == (2, 3)
    assert lk.computed == [("kept", 1), ("local", 1), ("local", 1)]  # only local again
    # a cycle through a per-file lookup is cut as any other: answered, counted, not kept
    cuts = lk.memo.cuts
    assert lk.local(7) == 0
    assert lk.memo.cuts == cuts + 1 and ("local", 7) not in lk.memo.file_table
    lk.memo.clear()
    assert not lk.memo.table and not lk.memo.file_table


def test_memo_cached_per_file():
    memo = Memo()
    assert memo.cached(("a",), lambda: 1, per_file=True) == 1
    assert memo.cached(("a",), lambda: 2, per_file=True) == 1
    memo.next_file()
    assert memo.cached(("a",), lambda: 2, per_file=True) == 2
    assert memo.cached(("b",), lambda: 3) == 3 and ("b",) in memo.table


FILES = {
    "pkg/__init__.py": "",
    "pkg/base.py": "class Base:\n    def run(self):\n        return helper()\n\n\n"
    "def helper():\n    return 1\n",
    "pkg/a.py": "from pkg.base import Base\n\n\nclass A(Base):\n    def go(self):\n"
    "        x = self.run()\n        y = x\n        return y.bit_length()\n",
    "pkg/b.py": "from pkg.a import A\nimport os\n\n\ndef use():\n    a = A()\n    a.go()\n"
    "    a.run()\n    os.path.join('x', 'y')\n    self_check = a\n    return self_check.go()\n",
}
PER_FILE_KINDS = {"bind", "reads", "iattr", "type", "items", "library method",
                  "library bases", "overrides", "getattr sites"}  # fmt: skip


def _project() -> PythonProject:
    facts = {p: SPEC.extract(src.encode()) for p, src in FILES.items()}
    return PythonProject(facts, SPEC.is_test_path, {})


def test_a_resolved_file_keeps_no_per_file_lookup_and_its_edges_do_not_depend_on_them():
    alone = {p: _project().resolve_file(p) for p in FILES}  # each file on a fresh memo
    project = _project()
    for path in FILES:
        assert project.resolve_file(path) == alone[path]
        # what the file's resolution asked for, beyond the build's lookups
        assert not {k[0] for k in project.memo.table if k[0] in PER_FILE_KINDS}
    assert any(k[0] == "bind" for k in project.memo.file_table)  # b.py's bindings, until
    project.resolve_file("pkg/a.py")  # the next file starts
    assert not any(k[1] == "pkg/b.py" for k in project.memo.file_table if k[0] == "bind")
