"""Python extraction: the exact symbols of real parses, and the facts resolution relies on."""

from __future__ import annotations

import pytest

from codeimpact.indexer.lang.python.extract import callee_chain, extract
from codeimpact.indexer.lang.python.paths import module_name
from conftest import symbols


def test_definitions_exact(make_repo, index_repo):
    repo = make_repo(
        {
            "pkg/__init__.py": "",
            "pkg/shapes.py": """
                import os

                LIMIT = 10
                names: list[str] = []
                a, b = 1, 2
                _private = os.sep


                class Shape:
                    sides = 0

                    def __init__(self, name):
                        self.name = name

                    @staticmethod
                    def unit():
                        return Shape("unit")

                    @classmethod
                    def named(cls, name):
                        return cls(name)

                    @property
                    def label(self):
                        return self.name

                    @label.setter
                    def label(self, value):
                        self.name = value

                    class Meta:
                        ordering = ["name"]


                def outer():
                    def inner():
                        class Local:
                            def method(self):
                                pass
                        return Local
                    return inner


                async def fetch():
                    for i in range(3):
                        total = i
                    return total
                """,
        }
    )
    index_repo(repo)
    f = "pkg/shapes.py::"
    assert symbols(repo) == {
        "pkg/__init__.py::": ("module", "pkg", 1, 1),
        f: ("module", "pkg.shapes", 1, 47),
        f + "LIMIT": ("variable", "pkg.shapes.LIMIT", 3, 3),
        f + "names": ("variable", "pkg.shapes.names", 4, 4),
        f + "a": ("variable", "pkg.shapes.a", 5, 5),
        f + "b": ("variable", "pkg.shapes.b", 5, 5),
        f + "_private": ("variable", "pkg.shapes._private", 6, 6),
        f + "Shape": ("class", "pkg.shapes.Shape", 9, 32),
        f + "Shape.__init__": ("method", "pkg.shapes.Shape.__init__", 12, 13),
        f + "Shape.unit": ("method", "pkg.shapes.Shape.unit", 15, 17),
        f + "Shape.named": ("method", "pkg.shapes.Shape.named", 19, 21),
        # a decorated definition starts at its first decorator
        f + "Shape.label": ("method", "pkg.shapes.Shape.label", 23, 25),
        # a redefinition (here the property setter) gets #2, its qualified name does not
        f + "Shape.label#2": ("method", "pkg.shapes.Shape.label", 27, 29),
        f + "Shape.Meta": ("class", "pkg.shapes.Shape.Meta", 31, 32),
        f + "outer": ("function", "pkg.shapes.outer", 35, 41),
        f + "outer.inner": ("function", "pkg.shapes.outer.inner", 36, 40),
        f + "outer.inner.Local": ("class", "pkg.shapes.outer.inner.Local", 37, 39),
        f + "outer.inner.Local.method": (
            "method",
            "pkg.shapes.outer.inner.Local.method",
            38,
            39,
        ),
        f + "fetch": ("function", "pkg.shapes.fetch", 44, 47),
        "<external>::os": ("external", "os", 0, 0),
    }


def test_signatures_decorators_and_exported(make_repo, index_repo):
    from codeimpact.query.index import Index

    repo = make_repo(
        {
            "m.py": """
                class Api:
                    @staticmethod
                    def build(
                        x: int,
                        y: "Api | None" = None,
                    ) -> "Api":
                        pass

                    def _hidden(self):
                        pass

                    def __repr__(self):
                        return "Api"
                """
        }
    )
    index_repo(repo)
    with Index.open(repo) as index:
        rows = index.cypher(
            "MATCH (s:Symbol) WHERE s.file = 'm.py' RETURN s.uid, s.signature, s.exported"
        ).rows
    assert {r[0]: (r[1], r[2]) for r in rows} == {
        "m.py::": ("", True),
        "m.py::Api": ("class Api", True),
        "m.py::Api.build": ('def build( x: int, y: "Api | None" = None, ) -> "Api"', True),
        "m.py::Api._hidden": ("def _hidden(self)", False),
        "m.py::Api.__repr__": ("def __repr__(self)", True),
    }


@pytest.mark.parametrize(
    ("path", "packages", "expected"),
    [
        ("pkg/mod.py", {"pkg"}, "pkg.mod"),
        ("pkg/__init__.py", {"pkg"}, "pkg"),
        ("src/pkg/mod.py", {"src/pkg"}, "pkg.mod"),  # src/ is a source root
        # a folder without __init__.py inside a package is a namespace subpackage
        ("src/pkg/sansio/app.py", {"src/pkg"}, "pkg.sansio.app"),
        ("tests/admin/models.py", {"tests/admin"}, "admin.models"),
        ("scripts/tool.py", set(), "tool"),
        ("stubs/pkg/mod.pyi", {"stubs/pkg"}, "pkg.mod"),
    ],
)
def test_module_names(path, packages, expected):
    assert module_name(path, frozenset(packages)) == expected


@pytest.mark.parametrize(
    ("text", "chain"),
    [
        (b"f", "f"),
        (b"os . path .join", "os.path.join"),
        (b"super().save", "super().save"),
        (b"Foo(1, (2, 3)).run", "Foo().run"),
        (b"self.tags[key].to_python", "self.tags[].to_python"),
        (b"Generic[int]", "Generic[]"),
        (b"make(')')(x)", "make()()"),
        (b'registry["a]"].get', "registry[].get"),
        (b'"sep".join', None),  # a literal receiver is no chain
        (b"(a or b).c", None),
        (b"lambda: 1", None),
    ],
)
def test_callee_chains(text, chain):
    assert callee_chain(text) == chain


def test_facts_for_resolution():
    facts = extract(
        b"from x import Flask\n"
        b"current_app: Flask = LocalProxy()\n"
        b"__all__ = ['current_app', 'Other']\n"
        b"class A:\n"
        b"    kind: type[Flask] = Flask\n"
        b"    def run(self, items: list[Flask], *args, key=None, **kw) -> Flask:\n"
        b"        for i, (j, k) in self.pairs():\n"
        b"            pass\n"
        b"        if (found := lookup()) is None:\n"
        b"            pass\n"
        b"        self.app = Flask()\n"
        b"        return self.app\n"
    )
    assert facts.status == "ok" and facts.lines == 12
    assert facts.extra == {"all": ("current_app", "Other")}
    run = next(s for s in facts.symbols if s.local == "A.run")
    assert run.params == (("self", ""), ("items", "list[Flask]"), ("*args", ""), ("key", ""),
                          ("*kw", ""))  # fmt: skip
    assert sorted((b.scope, b.name, b.value, b.is_call) for b in facts.bindings) == [
        ("", "current_app", "LocalProxy", True),
        ("", "current_app", "ann:Flask", False),
        ("A", "kind", "Flask", False),
        ("A", "kind", "ann:type[Flask]", False),
        ("A.run", "", "set:self.app", False),  # a member written: its setter may run
        ("A.run", "found", "lookup", True),
        ("A.run", "i", "iter:0:self.pairs()", False),
        ("A.run", "self.app", "Flask", True),
    ]
    assert sorted((r.scope, r.value, r.is_call) for r in facts.returns) == [
        ("A.run", "ann:Flask", False),
        ("A.run", "self.app", False),
    ]


def test_syntax_errors_give_partial_facts():
    facts = extract(
        b"def ok():\n    return 1\n\ndef broken(:\n    pass\n\nclass After:\n    pass\n"
    )
    assert facts.status == "partial"
    assert facts.error == "syntax error at line 4"
    assert {s.local for s in facts.symbols} >= {"", "ok", "After"}


@pytest.mark.parametrize("native", [True, False])
def test_container_items_and_unpacking(native):
    """Literal collections bind their items under their keys, `x[k] = v` stores one more,
    unpacking binds each target (lang/python/items.py); both extraction paths alike."""
    facts = extract(
        b"H = {'a': on_a, 'b': [f, g], k: C()}\n"
        b"first, *rest = head, middle, tail\n"
        b"x, y = pair()\n"
        b"H['c'] = on_c\n"
        b"S = {p, q}\n"
        b"__all__ = ['H']\n",
        native=native,
    )
    assert [(b.name, b.value, b.is_call) for b in facts.bindings] == [
        ("H", "lit:", False),
        ("H", "item:a:on_a", False),
        ("H", "item:b:[]", False),
        ("H[b]", "lit:", False),
        ("H[b]", "item:0:f", False),
        ("H[b]", "item:1:g", False),
        ("H", "item:*:C", True),
        ("first", "head", False),
        ("rest", "lit:", False),
        ("rest", "item:0:middle", False),
        ("rest", "item:1:tail", False),
        ("x", "at:0:pair", True),
        ("y", "at:1:pair", True),
        ("H[]", "item:c:on_c", False),
        ("S", "lit:", False),
        ("S", "item:*:p", False),
        ("S", "item:*:q", False),
    ]
    # a definition stored in a container is referenced where it is stored
    assert {r.target for r in facts.references} >= {"on_a", "f", "g", "head", "tail", "on_c"}


@pytest.mark.parametrize("native", [True, False])
def test_a_literal_passed_binds_when_it_holds_a_name_the_file_defines_or_imports(native):
    """`run([f, g])` passes the argument `arg$<start byte>`, bound with its items, when an
    item is a name (or a member of one) that the file's definitions or imports bind; locals
    and `self.x` alone (`assertEqual(qs, [a1, self.a2])`) pass nothing (items.py
    passes_items); `f(**opts)` is the argument keyed `**`."""
    source = (
        b"import os.path as p, json\nfrom m import h\ndef f(): pass\n"
        b"def t(self, a1):\n    check([a1, self.a2], {'x': a1})\n"
        b"    run([f], {'k': h}, (json.loads,), [p])\n    go(**self.kw)\n"
    )
    facts = extract(source, native=native)
    check, run, go = (c for c in facts.calls if c.callee in ("check", "run", "go"))
    assert check.args == ()
    starts = [str(source.index(t)) for t in (b"[f]", b"{'k'", b"(json", b"[p]")]
    assert run.args == tuple((i, "arg$" + s) for i, s in enumerate(starts))
    assert go.args == (("**", "self.kw"),)
    passed = [(b.name, b.value) for b in facts.bindings if b.name.startswith("arg$")]
    assert passed[:2] == [("arg$" + starts[0], "lit:"), ("arg$" + starts[0], "item:0:f")]
    assert ("arg$" + starts[2], "item:0:json.loads") in passed
    # nothing after a wildcard import is known not to be imported
    wild = extract(b"from m import *\nrun([x])\n", native=native)
    assert wild.calls[0].args == ((0, "arg$" + str(len(b"from m import *\nrun("))),)


@pytest.mark.parametrize("native", [True, False])
def test_member_reads(native):
    """A member read as a value is a `read` reference when no other fact reads it: not inside
    a longer chain, a callee, an argument, an assignment's target, the value bound to a name,
    a decorator or a type (the getter of a property may run: lang/python/reads.py); a
    comprehension's variable is renamed as in calls. Both extraction paths alike."""
    source = (
        b"@app.route\n"
        b"def f(s: mod.Settings, xs):\n"
        b"    if s.debug and not s.ready:\n"
        b"        g(s.arg, key=s.kw)\n"
        b"    name = s.name\n"
        b"    s.target = s.value\n"
        b"    s.reg.items[s.key] = f'{s.prefix}'\n"
        b"    assert s.level > 1\n"
        b"    s.get_app().debug.x\n"
        b"    return [y.total for y in xs], s.out\n"
    )
    facts = extract(source, native=native)
    reads = [(r.scope, r.target, r.line) for r in facts.references if r.kind == "read"]
    assert reads == [
        ("f", "s.debug", 3),
        ("f", "s.ready", 3),
        ("f", "s.value", 6),
        ("f", "s.reg.items", 7),
        ("f", "s.key", 7),
        ("f", "s.prefix", 7),
        ("f", "s.level", 8),
        ("f", "s.get_app().debug.x", 9),
        ("f", f"y${source.index(b'[y.total')}.total", 10),
        ("f", "s.out", 10),
    ]


def test_calls_and_references_stay_encoded_in_a_blob_until_read():
    """FACTS_FORMAT 4: a blob's calls and references are decoded when first read, forgotten
    by `unload` (read again, decoded again), and a list set stays what was set."""
    from dataclasses import replace

    from codeimpact.indexer.lang.api import FileFacts

    source = b"import os\n\n\ndef f(x: os.PathLike):\n    os.path.join(x, 'a')\n    g(f)\n"
    extracted = extract(source)
    assert extracted.calls and extracted.references
    facts = FileFacts.from_bytes(extracted.to_bytes())
    undecoded = {"_calls": None, "_references": None}
    assert {k: facts.__dict__[k] for k in undecoded} == undecoded
    assert FileFacts.from_bytes(facts.to_bytes()) == extracted  # re-encoded undecoded
    assert facts == extracted
    assert facts.__dict__["_calls"] == extracted.calls
    facts.unload()
    assert {k: facts.__dict__[k] for k in undecoded} == undecoded
    assert (facts.calls, facts.references) == (extracted.calls, extracted.references)
    assert replace(facts, calls=[]).references == extracted.references
    facts.calls = []
    facts.unload()
    assert facts.calls == [] and facts.references == extracted.references
    assert FileFacts.from_bytes(facts.to_bytes()) == replace(extracted, calls=[])
    fresh = FileFacts("python", calls=list(extracted.calls))
    fresh.unload()  # (extracted, not read from a blob: nothing to decode again)
    assert fresh.calls == extracted.calls
