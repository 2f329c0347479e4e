"""A call with arguments plays back the outcome of calling its callee (resolve.py
`_resolve_call`'s tail, kept once per form: the value called and the last name) and makes
what its own arguments make at each site (`_arguments`: the outcome's steps that read them,
`follow`): the sites below share their callees' outcomes and differ only by their arguments."""

from __future__ import annotations

from codeimpact.indexer.lang.python import SPEC
from codeimpact.indexer.lang.python.resolve import PythonProject

SOURCE = """\
import threading


class Box:
    def __len__(self):
        return 0


class Other:
    def __len__(self):
        return 1


def apply(fn):
    fn()


def one():
    pass


def two():
    pass


def first():
    b = Box()
    apply(one)
    threading.Thread(target=one)
    len(b)


def second():
    o = Other()
    apply(two)
    threading.Thread(target=two)
    len(o)
"""


def test_sites_with_arguments_share_the_outcome_and_keep_their_own_arguments(monkeypatch):
    facts = {"pkg/__init__.py": SPEC.extract(b""), "pkg/m.py": SPEC.extract(SOURCE.encode())}
    project = PythonProject(facts, SPEC.is_test_path, {})
    inner = PythonProject._record_outcome
    resolved: list[str] = []  # the callees of the sites with arguments resolved, not played

    def outcome(self, key, fi, call, *rest):
        if call.args:
            resolved.append(call.callee)
        return inner(self, key, fi, call, *rest)

    monkeypatch.setattr(PythonProject, "_record_outcome", outcome)
    out = project.resolve_file("pkg/m.py")
    edges = {(e.rel, e.src.partition("::")[2], e.dst.partition("::")[2]) for e in out.edges}
    for caller, fn, cls in (("first", "one", "Box"), ("second", "two", "Other")):
        assert ("CALLS", caller, "apply") in edges
        assert ("REFERENCES", caller, fn) in edges  # (passed: value flow)
        assert ("CALLS", "apply", fn) in edges  # (the parameter is called)
        assert ("CALLS", caller, fn) in edges  # (Thread's target row: the library runs it)
        assert ("CALLS", caller, f"{cls}.__len__") in edges  # (len's protocol method)
    assert ("CALLS", "first", "two") not in edges
    assert ("CALLS", "second", "Box.__len__") not in edges
    # each callee's outcome resolved once: the second site of each form played it back
    assert sorted(resolved) == ["apply", "len", "threading.Thread"]
