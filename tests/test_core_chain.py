"""native/core_chain.c's eval_chain and core_lookup.c's lookup_name and _lookup_in_scope
(values.py `_eval_chain`, names.py `_lookup_name` and `_lookup_in_scope_py` in C, installed as
the methods) answer what the Python methods answer, with the same reads and the same kept
lookups, folds and memo, chain after chain and name after name: every chain written in this
repository's Python files (callees, arguments, bound values) and every name read, each in its
file's scope and line, with and without reads, and the forms each rule reads (super(),
suffixes, steps given, parameters, enclosing scopes, rebindings, alternative imports, item
reads, the depth bound)."""

from __future__ import annotations

from pathlib import Path

import pytest

from codeimpact.indexer.lang.python import SPEC, names, values
from codeimpact.indexer.lang.python.index import MAX_DEPTH, parse_steps
from codeimpact.indexer.lang.python.resolve import PythonProject

_core = pytest.importorskip("codeimpact.native._core")
if not hasattr(_core, "lookup_method"):
    pytest.skip("an extension built before lookup_method", allow_module_level=True)

ROOT = Path(__file__).resolve().parents[1]
NATIVE = values.Values.eval_chain
NATIVE_LOOKUP = names.Names.lookup_name
NATIVE_IN_SCOPE = names.Names._lookup_in_scope

SOURCE = """\
class Base:
    def go(self):
        return self


class Box(Base):
    items = []

    @property
    def size(self):
        return Box()

    def go(self):
        super().go().size.go()
        super().go()
        self.size.size.go().size
        self.items[0].go()
        Box().size.go()
        return self

    @classmethod
    def make(cls, n: int, box: "Box", other=Box, *rest, **kw):
        def inner(x):
            return cls, n, box, other, rest, kw, x, inner, Box, len

        return inner

    @staticmethod
    def alone(a, b=1):
        return a, b

    def __new__(cls, box=None):
        return cls


def test_run(tmp_path, box: Box):
    return tmp_path, box, Box.make


try:
    import json
except ImportError:
    json = None

CONST = 1
CONST = Box()


def items(node, seq):
    node = node.children[0]
    first = seq[0]
    x = 1
    x = Box()
    x.go()
    return node.go(), first.go(), json.dumps(x), CONST.go()
"""


def _chains(fi, every_name: bool) -> list[tuple[str, str, int]]:
    """(scope, chain, line) of every chain the file's facts write; `every_name`: and every
    name the file binds or takes (and a builtin, one bound nowhere) read in each scope."""
    out = []
    if every_name:
        taken = {n for table in (fi.names, fi.params) for ns in table.values() for n in ns}
        for scope, s in fi.syms.items():
            out += [(scope, n, s.end_line) for n in sorted(taken | {"len", "nowhere"})]
    for c in fi.facts.calls:
        out.append((c.scope, c.callee, c.line))
        out += [(c.scope, chain, c.line) for _, chain in c.args]
    out += [(b.scope, b.value, b.line) for b in fi.facts.bindings]
    return out


def _evaluate(project, native: bool, monkeypatch, path, scope, chain, line, depth, reads, steps):
    monkeypatch.setattr(
        values.Values, "eval_chain", NATIVE if native else values.Values._eval_chain
    )
    monkeypatch.setattr(
        names.Names, "lookup_name", NATIVE_LOOKUP if native else names.Names._lookup_name
    )
    monkeypatch.setattr(
        names.Names,
        "_lookup_in_scope",
        NATIVE_IN_SCOPE if native else names.Names._lookup_in_scope_py,
    )
    got = [] if reads else None
    if reads is None:  # (a name's lookup: steps is the key given, or None)
        r = project.lookup_name(project.files[path], scope, chain, line, depth, steps)
    else:
        r = project.eval_chain(project.files[path], scope, chain, line, depth, got, steps)
    return (
        r,
        got,
        list(project._lookups.items()),
        list(project._folds.items()),
        list(project.memo.table.items()),
    )


def _same(facts, monkeypatch, forms, every_name=False) -> int:
    native = PythonProject(facts, SPEC.is_test_path, {})
    python = PythonProject(facts, SPEC.is_test_path, {})
    count = 0
    for path in sorted(facts):
        native.forget_lookups()
        python.forget_lookups()
        for scope, chain, line in _chains(native.files[path], every_name):
            for depth, reads in forms:
                text, steps = chain, None
                if reads is None:  # (the chain's head as a name read)
                    heads = parse_steps(chain) if chain and chain[0] != "?" else None
                    if not heads:
                        continue
                    text = heads[0][0]
                    steps = (path, scope, text) if depth < 0 else None
                    depth = max(depth, 0)
                elif depth < 0:  # (the caller's steps, as resolve.py's for a method's receiver)
                    text, depth = None, 0
                    steps = parse_steps(chain) if chain and chain[0] != "?" else None
                    if not steps:
                        continue
                made = _evaluate(native, True, monkeypatch, path, scope, text, line, depth,
                                 reads, steps)  # fmt: skip
                expected = _evaluate(python, False, monkeypatch, path, scope, text, line,
                                     depth, reads, steps)  # fmt: skip
                assert made == expected, (path, scope, chain, line, depth, reads)
                count += 1
    return count


def test_native_methods_are_installed():
    assert type(NATIVE).__name__ == "method_descriptor"
    assert type(NATIVE_LOOKUP).__name__ == "method_descriptor"
    assert type(NATIVE_IN_SCOPE).__name__ == "method_descriptor"
    facts = {"m.py": SPEC.extract(b"import os\n")}
    project = PythonProject(facts, SPEC.is_test_path, {})
    project.forget_lookups()
    assert project.eval_chain(project.files["m.py"], "", "os.path", 1) == (
        ("ext", "os.path"),
        "import",
    )


@pytest.mark.parametrize("part", ["indexer/lang/python", "query"])
def test_every_chain_is_the_python_method(part, monkeypatch):
    facts = {}
    for path in sorted((ROOT / part).rglob("*.py")):
        facts[path.relative_to(ROOT).as_posix()] = SPEC.extract(path.read_bytes())
    assert _same(facts, monkeypatch, ((0, False), (0, True), (-1, True), (0, None))) > 5000


def test_each_form(monkeypatch):
    facts = {"pkg/__init__.py": SPEC.extract(b""), "pkg/m.py": SPEC.extract(SOURCE.encode())}
    forms = ((0, False), (0, True), (-1, False), (-1, True), (MAX_DEPTH, True),
             (MAX_DEPTH + 1, False), (MAX_DEPTH - 1, True), (0, None), (-1, None),
             (MAX_DEPTH + 1, None))  # fmt: skip
    assert _same(facts, monkeypatch, forms, every_name=True) > 500
    project = PythonProject(facts, SPEC.is_test_path, {})
    project.forget_lookups()
    fi, reads = project.files["pkg/m.py"], []
    r = project.eval_chain(fi, "Box.go", "self.size.size.go", 16, 0, reads)
    assert r == (("sym", "pkg/m.py", "Box.go"), "local-type")  # (through Box())
    assert [getter for getter, _ in reads] == [("sym", "pkg/m.py", "Box.size")] * 2
    again = []  # (kept: the fold's reads given again)
    assert project.eval_chain(fi, "Box.go", "self.size.size.go", 16, 0, again) == r
    assert again == reads
    assert project.eval_chain(fi, "Box.go", "?x", 16) is None
    assert project.eval_chain(fi, "Box.go", "", 16) is None
    assert project.eval_chain(fi=fi, scope="Box.go", chain="self", line=16) == (
        ("inst", "pkg/m.py", "Box", False),
        "self",
    )


def test_bad_arguments_raise():
    facts = {"m.py": SPEC.extract(b"x = 1\n")}
    project = PythonProject(facts, SPEC.is_test_path, {})
    project.forget_lookups()
    fi = project.files["m.py"]
    with pytest.raises(TypeError):
        project.eval_chain(fi, "", 3, 1)
    with pytest.raises(TypeError):
        project.eval_chain(fi, "", "x")
    with pytest.raises(TypeError):
        project.eval_chain(fi, "", "x", 1, 0, None, None, None)
    with pytest.raises(TypeError):
        project.eval_chain(fi, "", "x", 1, bad=1)
    with pytest.raises(TypeError):
        project.eval_chain(fi, "", None, 1, 0, None, ("x",))
    with pytest.raises(TypeError):
        NATIVE(object(), fi, "", "x", 1)


def test_a_memo_of_another_type_reads_its_cuts(monkeypatch):
    """memo.cuts is read in place for the memo's own type (its slot); a memo of a subclass,
    or of a type whose `cuts` is no slot, is read as Python reads it."""
    from codeimpact.indexer.lang.engine.memo import Memo

    class Slotted(Memo):
        __slots__ = ()

    class Plain(Memo):  # (`cuts` a property: no slot of its own type)
        __slots__ = ("__dict__",)
        cuts = property(lambda self: self.__dict__.get("c", 0),
                        lambda self, v: self.__dict__.__setitem__("c", v))  # fmt: skip

    facts = {"pkg/__init__.py": SPEC.extract(b""), "pkg/m.py": SPEC.extract(SOURCE.encode())}
    for memo_type in (Slotted, Plain, Memo):
        made = []
        for native in (True, False):
            project = PythonProject(facts, SPEC.is_test_path, {})
            project.memo = memo_type()
            project.forget_lookups()
            made.append(
                _evaluate(
                    project,
                    native,
                    monkeypatch,
                    "pkg/m.py",
                    "Box.go",
                    "self.size.size.go",
                    16,
                    MAX_DEPTH - 1,
                    True,
                    None,
                )  # fmt: skip
            )
            assert project.memo.cuts  # (the depth bound met: a cut)
        assert made[0] == made[1]
