"""A parameter passed on to its own function (`walk(child, visit)` inside walk) adds no
sinks of its own (python/flows.py `_passed_on`'s `me`): the sinks are the scopes calling it
elsewhere, found without meeting the sinks being gathered (a cycle, whose cut left them
unkept and made again at each ask). Over real parses."""

from __future__ import annotations

from codeimpact.indexer.lang.python import SPEC
from codeimpact.indexer.lang.python.resolve import PythonProject

FILES = {
    "pkg/__init__.py": "",
    "pkg/tree.py": """\
def walk(node, visit):
    visit(node)
    for child in node.children:
        walk(child, visit)


def gather(items, visit):
    for item in items:
        item[0](visit)
        gather(item, visit)
""",
    "pkg/use.py": """\
from pkg.tree import gather, walk


def show(node):
    return node


def main(root):
    walk(root, show)
    gather([root], show)
""",
}


def _project() -> PythonProject:
    facts = {p: SPEC.extract(src.encode()) for p, src in FILES.items()}
    return PythonProject(facts, SPEC.is_test_path, {})


def test_a_parameter_passed_to_itself_adds_no_sink_and_meets_no_cut():
    project = _project()
    use = project.resolve_file("pkg/use.py")
    calls = {(e.src, e.dst, e.reason) for e in use.edges if e.rel == "CALLS"}
    assert ("pkg/tree.py::walk", "pkg/use.py::show", "value-flow") in calls
    assert project.sinks("pkg/tree.py", "walk", "visit") == frozenset({("pkg/tree.py", "walk")})
    assert project.memo.cuts == 0
    assert ("sinks", "pkg/tree.py", "walk", "visit") in project.memo.table  # kept


def test_the_same_edges_whichever_file_is_resolved_first():
    one, two = _project(), _project()
    a = [one.resolve_file(p) for p in FILES]
    b = [two.resolve_file(p) for p in reversed(FILES)][::-1]
    assert a == b
