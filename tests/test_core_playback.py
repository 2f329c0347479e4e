"""native/core_playback.c's playback_calls (playback.py `resolve_calls`' loop over a file's call
sites) leaves what the Python loop (`_resolve_calls`, the reference) leaves: the same edges in
the same order, the same unresolved sites, call counts, memo table, kept lookups and sources,
file after file, on every Python file of this repository and of the Python fixtures, and on a
file written to reach each form of site."""

from __future__ import annotations

from pathlib import Path

import pytest

from codeimpact.indexer.lang.engine.edges import Edges
from codeimpact.indexer.lang.python import SPEC, playback
from codeimpact.indexer.lang.python.resolve import PythonProject
from codeimpact.indexer.resolved import ResolvedFile

_core = pytest.importorskip("codeimpact.native._core")
if not hasattr(_core, "playback_calls"):
    pytest.skip("an extension built before playback_calls", allow_module_level=True)

ROOT = Path(__file__).resolve().parents[1]

# the rarer forms of site: a decorator (with arguments), a call forwarding `**kw`, a name bound
# to getattr's result, a method of a local instance, a repeated site whose arguments differ,
# a dotted argument reading a property, a builtin, a name unbound, a site at an earlier line
# than its scope's first played (a call spanning lines), value flow into a parameter called
FORMS = """\
import functools


class Box:
    @property
    def size(self):
        return 1

    def put(self, item):
        item()

    def run(self, **kw):
        self.put(**kw)
        self.put(self.size)
        self.put(self.size)
        len(self)
        len(self)


def deco(*a):
    return lambda f: f


@deco(1)
@functools.wraps(print)
def made(b: Box, cb):
    h = getattr(b, "put")
    h(made)
    h(made)
    b.put(made)
    b.put(
        made
    )(b.put(cb))
    nowhere()
    nowhere()
    Box().run(x=1)
    cb()
    cb()
"""


def _files(parts: list[str]) -> dict[str, object]:
    facts = {}
    for part in parts:
        for path in sorted((ROOT / part).rglob("*.py")):
            facts[path.relative_to(ROOT).as_posix()] = SPEC.extract(path.read_bytes())
    return facts


def _resolve_calls(project: PythonProject, path: str) -> tuple[Edges, ResolvedFile]:
    """The file's call sites resolved (the edges before their dedupe: in the order made)."""
    project.forget_lookups()
    edges, out = Edges(), ResolvedFile(path)
    project.resolve_calls(project.file_index(path), edges, out)
    return edges, out


def _state(project: PythonProject, edges: Edges, out: ResolvedFile) -> dict:
    return {
        "edges": list(edges),
        "unresolved": list(out.unresolved),
        "totals": (out.calls_total, out.calls_builtin),
        "memo": list(project.memo.table.items()),
        "lookups": list(project._lookups.items()),
        "srcs": list(project._srcs.items()),
    }


def _same(facts: dict, monkeypatch) -> int:
    """Both loops over every file, each in its own project (the memo carried from file to
    file as a build's host does): the sites resolved."""
    native = PythonProject(facts, SPEC.is_test_path, {})
    python = PythonProject(facts, SPEC.is_test_path, {})
    sites = 0
    for path in sorted(facts):
        monkeypatch.setattr(playback, "_playback_calls", _core.playback_calls)
        made = _state(native, *_resolve_calls(native, path))
        monkeypatch.setattr(playback, "_playback_calls", False)
        expected = _state(python, *_resolve_calls(python, path))
        for part in expected:
            assert made[part] == expected[part], (path, part)
        sites += made["totals"][0]
    return sites


def test_native_loop_is_loaded():
    facts = {"m.py": SPEC.extract(b"def f():\n    pass\n\n\nf()\n")}
    project = PythonProject(facts, SPEC.is_test_path, {})
    out = project.resolve_file("m.py")
    assert playback._playback_calls is _core.playback_calls
    assert [(e.src, e.dst) for e in out.edges if e.rel == "CALLS"] == [("m.py::", "m.py::f")]


@pytest.mark.parametrize("parts", [["indexer", "query"], ["codeimpact", "tests/lang/python"]])
def test_every_site_is_the_python_loop(parts, monkeypatch):
    assert _same(_files(parts), monkeypatch) > 1000


def test_each_form_of_site(monkeypatch):
    facts = {"pkg/__init__.py": SPEC.extract(b""), "pkg/m.py": SPEC.extract(FORMS.encode())}
    assert _same(facts, monkeypatch) == 22
    project = PythonProject(facts, SPEC.is_test_path, {})
    edges, out = _resolve_calls(project, "pkg/m.py")  # (native: loaded above)
    made = {(e[0], e[1].partition("::")[2], e[2].partition("::")[2], e[5]) for e in edges}
    assert {("CALLS", "made", "Box.put", 28), ("CALLS", "made", "Box.put", 29)} <= made  # h
    # a played site: its outcome's edges only at the first line, its arguments' at each
    assert ("CALLS", "made", "Box.put", 30) in made and ("CALLS", "made", "Box.put", 31) not in made
    assert ("CALLS", "Box.put", "made", 31) in made  # (value flow: `made` passed)
    assert ("CALLS", "Box.run", "Box.size", 15) in made  # (a dotted argument's read)
    unresolved = {tuple(u) for u in out.unresolved}
    assert {("pkg/m.py::made", "nowhere", 34), ("pkg/m.py::made", "nowhere", 35)} <= unresolved
    assert out.calls_total == 22
    assert out.calls_builtin == 4  # (property, getattr, len twice: the second played)


# a method called back -> the sites it fails at with a RecursionError (by its arguments)
_DEEP = {
    "lookup_name": lambda fi, scope, name, *rest: name == "nowhere",
    "_record_outcome": lambda key, fi, call, *rest: call.callee == "nowhere",
    "_arguments": lambda fi, call, *rest: call.line == 31,  # (a site played back)
    "_resolve_call": lambda fi, call, *rest: call.line == 13 or call.kind == "decorator",
}


@pytest.mark.parametrize("method", sorted(_DEEP))
def test_a_site_too_deep_is_the_python_loop(method, monkeypatch):
    """A RecursionError in what a site calls back (the lookup, the recording, the arguments,
    the general path) leaves the site unresolved in both loops, the memo emptied alike."""
    facts = {"pkg/__init__.py": SPEC.extract(b""), "pkg/m.py": SPEC.extract(FORMS.encode())}
    inner, at, met = getattr(PythonProject, method), _DEEP[method], []

    def deep(self, *a):
        if at(*a):
            met.append(a)
            raise RecursionError
        return inner(self, *a)

    monkeypatch.setattr(PythonProject, method, deep)
    assert _same(facts, monkeypatch)
    assert met  # (some site was too deep)


def test_bad_arguments_raise():
    facts = {"m.py": SPEC.extract(b"f()\n")}
    project = PythonProject(facts, SPEC.is_test_path, {})
    project.forget_lookups()
    fi = project.file_index("m.py")
    out = ResolvedFile("m.py")
    kit = playback._PLAYBACK_KIT
    args = [project, fi, fi.facts.calls, Edges(), out, project._lookups, project.memo.table,
            project._srcs, kit]  # fmt: skip
    for at, bad in [(2, ()), (5, None), (8, kit[:1]), (2, [("", "f", 1)])]:
        with pytest.raises(TypeError):
            _core.playback_calls(*args[:at], bad, *args[at + 1 :])
    with pytest.raises(TypeError):
        _core.playback_calls(*args[:8])
    with pytest.raises(TypeError):
        _core.playback_calls(*args[:2], [("", "f", 1, "call", [(0, "a")])], *args[3:])
