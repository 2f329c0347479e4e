"""Python sources that exercise every construct of the Python queries and the corners of
the fact rules (definitions, calls, imports, bindings, syntax errors, deep trees): the native
and the query paths must agree on each (tests/test_native_facts.py, test_native_runner.py)."""

EDGE_CASES = {
    # calls
    "nested": "f(g(x), h(i(y)))\n",
    "chained": "g(x).f(y)\n",
    "call_of_call": "a.b(c)(d)\n",
    "call_chain": "x.m(a).n(b).o(c)(d)[e](f)\n",
    "lambdas": "k = lambda x, *r, y=f(z), **kw: x.m(y, r)\nsort(key=lambda e: e.get(n))\n",
    "keywords": "f(a, b=c, d=e.f, g=h(), i=j[k], l=m . n, o=1)\n",
    "splats": "f(a, *b, c, **d, e=f)\ng(*a)\nh(**k)\ni(x, *y, z=w)\nj(p, *q, *r, s)\n",
    "generic": "A[int]()\nB[str, int](x)\nC[D[E]](y=z)\n",
    "empty": "f()\na.b()\nc()()\n",
    "generator_argument": "f(x for x in y)\ng(a.b for a in c)\nsum(v.n for v in w)\n",
    "non_ascii": "café(naïve, ключ=значение)\nobj.método(ñ)\n名前(値, 鍵=値)\n",
    "comments": "f(a,  # one\n  b, # two\n  c=d)\n(g  # three\n)(h)\n",
    "whitespace": "a . b ( c . d , e =\n f . g )\nx(\n    y\n    .z\n)\n",
    "continuation": "f(a.\\\n b)\ng \\\n(c)\n",
    "other_callees": '"".join(x)\n(a or b)(c)\nf(x)[0](y)\nd[k](v)\nawait f(x)\n'
    "super().__init__(*args, **kwargs)\n",
    # definitions
    "decorators": """
        @app.route("/x", methods=m)
        @dec
        @d(a)(b)
        @outer(inner(k=v))
        def f(p=g(q)) -> h(r):
            return s(t)

        @register(Model)
        class C(Base(x)):
            @property
            def p(self):
                return self.q(z)

            @p.setter
            def p(self, value: int) -> None:
                self._p = value
        """,
    "decorator_arguments": """
        @a.b(c(d), e=f.g(h))
        @i(lambda j: j.k(), [m.n() for m in o])
        @(p or q)(r)
        def s():
            @t(u())
            class V:
                @w(x.y(z))
                def v(self): return self.v(u())
            return V(t(1))

        class W:
            @staticmethod
            @cache(maxsize=size())
            async def w(): await w.x()
            w2 = w()
        f(after())
        """,
    "local_renames": """
        x = [a.b() for a in c if a.d(e)]
        a.b()
        y = {k.m(): v.n(k) for k, v in d.items() if k.p()}
        z = [[q.r(p) for q in p.s()] for p in t(u)]
        w = lambda g, h=1, *i, j, **k: g.l(h.m(), i.n(), j.o(), k.p(), q.r())
        g.l()
        sorted(xs, key=lambda s: s.strip().lower())
        [lambda a: a.b() for a in c]
        (lambda f: [f.g(f) for f in f.h()])(f.i())
        def fn(a):
            return [a.b(b) for b in a.c()], a.d()
        class K:
            def m(self):
                return {self.n(s) for s in self.t()} | {s.u() for s in ()}
        """,
    "unknown_callees": """
        (a or b)(c)
        (lambda: 1)()
        (lambda: 2)()
        "".join(x)
        b"x".decode()
        f"{y}".format(z)
        "a" "b".c1()
        1 .real()
        [1][0]()
        (yield)()
        g(x)(y)(z)
        h[i](j)
        k.l2_3()
        m . n ()
        obj.método(ñ)
        café()
        x.é1()
        (x)()
        (x.y)()
        (x.y)\
            .z()
        def f():
            (a or b)(c)
            "".join(x)
        """,
    "nested_scopes": """
        def f(a=g(), *, b=h.i()):
            j()
            class C(D(k())):
                x = l()
                def m(self, n=o()):
                    p()
                    def q():
                        r()
                    s()
                t()
            def f():
                u()
            v()
        def f():
            w()
        class C:
            def m(self): y()
            def m(self): z()
        aa()
        if x:
            def g(): bb()
        else:
            def g(): cc()
        dd()
        """,
    "classes_and_functions": """
        class A(B, metaclass=M):
            x = 1
            class Inner:
                def m(self): pass
            async def n(self, *, k): return await k
        def f(a, /, b, *c, d, **e):
            def g(): return a
            return g
        class E[T](Base[T]):
            def k[U](self, u: U) -> T: ...
        """,
    "definitions_with_errors": """
        class A(:
            pass
        def f(x:
            return x
        class B
            def g(self): return 1
        def h() -> :
            pass
        def (self): pass
        class : pass
        def k(a: int, b: = 2) -> str:
            return a
        """,
    # assignments and annotations
    "assignments": """
        a = b = c
        a = b = c = f()
        x, y = z = w
        self.a = self.b = None
        [p, q] = r
        (s, t) = u, v
        x.y += 1
        d[k] = v
        __all__ = ["a", "b"]
        __all__ = ("c",  # comment
                   "d")
        """,
    "annotated": """
        x: int = 1
        y: "Forward"
        self.z: Optional[T] = None
        a.b: int
        (p): int = 2
        c: dict[str, list[int]] = {}
        d: A | None = e
        e: int = f: str = 1
        """,
    "annotations_in_parameters": """
        def f(a: int, b: list[str] = [], *args: A, c: B.C = d, **kw: "E") -> F | None:
            g: G = h
            return a
        async def g(self, x: Callable[[int], str]) -> AsyncIterator[T]: ...
        lambda a, b=1: a
        """,
    "type_alias": "type X = int\ntype Y[T] = list[T]\nx: type = type\n",
    "comprehensions_in_targets": """
        d[[k for k in ks][0]] = v
        x[i for i in j] = 1
        [x for x in y] = z
        {a: b for a, b in c}[k]: int = 2
        a = [x.m() for x in y if x] = b
        """,
    # control flow
    "returns": """
        def f():
            return
        def g():
            return x
        def h():
            return a, b
        def i():
            return f(x)
        def j():
            return (  # c
                x)
        def k():
            return x  # c
        def l():
            return # c
        def m():
            return \\
                x
        def n():
            return lambda: (yield)
        return x
        """,
    "yields": """
        def f():
            yield
            yield x
            yield a.b
            yield C(d)
            yield a, b
            yield from g()
            y = yield z
            lambda: (yield w)
        yield x
        class K:
            yield k
        """,
    "class_members": """
        class T:
            @classmethod
            def setUpClass(cls):
                cls.store = Store()
                cls.a.b = 1
                cls.made: Made = make()
                cls = 2
        def deco(cls):
            cls.x = y
        """,
    "literal_arguments": """
        f("a", 'b.c', "a b", r"d", f"{e}", \"\"\"g\"\"\", "", "h\\n", "i" "j", b"k", True, None)
        @pytest.fixture(autouse=True, name="x", params=["p", q], scope=f"s")
        def fx(request):
            request.getfixturevalue("db")
        @pytest.mark.parametrize("a, b", [(A(), 1), pytest.param(B, 2)])
        @parametrize(argvalues=[C], argnames="c")
        @mark.other("x", [D])
        @fixture(params=range(3))
        def test_p(a, b, c):
            pass
        f(*a, "after_splat", k="kw", **d)
        pytestmark = [pytest.mark.usefixtures("u1", "u2"), mark(x="é", y="名前", z="1a")]
        """,
    "returns_with_errors": """
        def f():
            return a b
        def g():
            return a, $ b
        def h():
            return return x
        def i():
            return (a  # c
        """,
    "walrus": """
        if (n := len(a)) > 1: pass
        with (y := f()) as z: pass
        with f(w := g()) as v: pass
        x = (y := g())
        [(z := i) for i in r]
        while (chunk := read(n := 1)):
            pass
        f(a := b.c, d := e)
        """,
    "with_items": """
        with open(p) as f, lock:
            pass
        with a as (b, c):
            pass
        with a as b.c, d as e[0]:
            pass
        with (a as b, c() as d):
            pass
        async def f():
            async with s() as t, u.v as w:
                pass
        with a as b, c as d, e:
            pass
        with a as b as c:
            pass
        with (a, b) as c:
            pass
        """,
    "except_targets": """
        try:
            f()
        except E as e:
            e.show()
        except (A, m.B) as e2:
            pass
        except (C, *more) as e3:
            pass
        except errors() as e4:
            pass
        except D:
            pass
        except:
            pass
        def g():
            try:
                pass
            except* m.G as eg:
                eg.split()
        """,
    "for_loops": """
        for i in x:
            pass
        for i, j in y.items():
            pass
        for (a, b) in z:
            pass
        async def f():
            async for q in aiter():
                pass
        for x in a, b:
            pass
        else:
            pass
        for x.y in z: pass
        for [p, *q] in r: pass
        """,
    "comprehensions": """
        [x.f(y) for x in xs if g(x)]
        {k: v(k) for k, v in d.items()}
        {s.t(u) for s in ss}
        list(p.q(r) for p in ps)
        [[a.b(c) for a in row] for row in grid]
        [y for x in xs for y in x.children]
        [x async for x in aiter()]
        """,
    "imports": """
        import a
        import a.b as c, d
        from . import x
        from ..m import (a as b, c)
        from m import *
        from __future__ import annotations
        def f():
            import g
            from h import i
        import
        from import x
        """,
    # containers and unpacking (binding.item)
    "containers": (
        "H = {'a': f, 'b': [g, (h, i)], k: C()}\nT = (f,)\nS = {f, *g}\nself.x = [f]\n"
        "o.y = (g,)\nz.w = {g}\nself.d = {'a': f}\nH['c'] = j\nself.x[0] = k\n"
        "a, *b = f, g, h\n(c, d) = e()\n[m, n] = o.p\nq, r = s, [t]\n"
    ),
    "nested_unpacking_and_item_reads": (
        "a, (b, [c, d]) = f, (g, [h, i])\nx, (y, z) = f, g()\n(p, *q), r = (f, g, h), i\n"
        "u = H['a']\nv = H[0]\nw = H[k]\nself.s = H['b']\nt = o.p['c']\nn = f()['d']\n"
        "m = H['a']['b']\ne: T = H['a']\nl = H[1:]\nj = H['a b']\n"
    ),
    "returned_literals": (
        "def f():\n    return g, h\ndef k(x):\n    if x:\n        return {'a': g, 'b': [h, i()]}\n"
        "    def inner():\n        return [g]\n    return (g, *h)\ndef m():\n    return {g}\n"
        "    return\nclass C:\n    def n(self):\n        return self.a, None, C()\n"
        "    x = lambda: (f, g)\nreturn f, g\n"
    ),
    "iterated_literals": (
        "for f in [a, b.c]:\n    f()\nfor g, h in ((a, b), (c, d)):\n    g()\n"
        "for x in a, b:\n    pass\nfor y in {a}:\n    pass\nfor z in {'k': a}:\n    pass\n"
        "for q.r in [a]:\n    pass\nr = [f() for f in (a, b)]\n"
        "s = [v for u in [a] for v in [u, b]]\n"
        "def fn():\n    for m in (a, [b, c()]):\n        m()\n"
    ),
    # a literal passed binds when an item is a name the file defines or imports (f, gg, a, c,
    # d, C: `import a.b` binds a, an alias its alias), not a local or `self.x` (w, x, g, b)
    "passed_literals_and_spreads": (
        "from m import f, g as gg\nimport a.b, q.r as c\nfrom . import (d)\n"
        "run([w, self.w], {'a': self.w}, [w.f], [gg.x])\nrun([x, g])\n"
        "run([f, g])\nrun((f,), {'a': g.h}, k=[f], m={1: g}, n=[1, 2], o={'x': 'y'})\n"
        "run(*a, [f], k={f})\nrun([  # c\n    f, [g, h]])\nrun(**opts)\nrun(**self.o, **f())\n"
        "@dec([f], k=(g,))\ndef fn(x):\n    x([a, b], **x)\n    return [y([c]) for y in [d]]\n"
        "class C:\n    z = run({'a': f}, [[g]])\n    def m(self):\n        run([C, self.m])\n"
    ),
    "passed_literals_after_a_wildcard": "from m import *\nrun([x, y.z])\nrun([1])\n",
    "match": "match f(x):\n    case A(b=c):\n        g(c)\n    case _:\n        pass\n",
    # broken input
    "syntax_errors": "f(a, b\ng(c)\ndef x(:\n    h(y)\nf(,)\nf(a b)\nprint x.y(z)\nk(l))\n",
    "missing": "f(x\n",
    "missing_at_start": ":\n    x.y(1)\n",  # a MISSING node at byte 0: captures() skips it
    "unclosed": "f(g(h(\n",
    "errors_in_arguments": "f(a, $, b=c, `d`)\ng(** , e)\nh(i=)\n",
    "python2": 'print "x" % f(y)\nexec code in g(z)\n',
    # valid Python that tree-sitter recovers from with a class body starting after its
    # methods' (the stdlib's test_compile.py): the scope intervals are not in start order
    "unsorted_scopes": (
        "class T:\n    def check(self):\n        pass\n\n    def test_weird(self):\n"
        "        def f():\n            (bar.\n        baz)\n            (bar.\n"
        "        baz(\n        ))\n            files().setdefault(\n                0\n"
        "            ).update(\n                **{\n                    'a': 1,\n"
        "                }\n            )\n"
    ),
    "deep": "f(" * 2000 + "x" + ")" * 2000 + "\n" + "a" + "(b)" * 2000 + "\n",
    # a call chain past chain_syntax.MAX_GROUPS (32) steps: its last calls are `?`
    "long_chain": "x = a" + ".b()" * 40 + "\n" + "a" + "(b)" * 40 + ".c\n",
    # containers and unpacking patterns nested past items.py MAX_DEPTH (32)
    "deep_items": "".join(
        (
            "x = " + "[" * 40 + "g" + "]" * 40 + "\n",
            "y = " + '{"k": ' * 40 + "g" + "}" * 40 + "\n",
            "(" * 40 + "a" + ",)" * 40 + " = " + "(" * 40 + "(g, [h, [i]])" + ",)" * 40 + "\n",
        )
    ),
    "deep_blocks": "".join("    " * i + f"def f{i}(a: int) -> A{i}:\n" for i in range(100))
    + "    " * 100
    + "return x\n",
    # a broken comprehension whose for_in_clause has two `right:` children: query.c's
    # cursor drops the state waiting for `right:` at the first, on the field map's word
    # that no later child has that field; the walk must too (walk.c's enter)
    "two_rights": "[()for in i,x]\n",
    "no_calls": "x = 1\n",
    "only_comment": "# nothing\n",
    "empty_file": "",
    # a node's fields past comments (extras: no field index of their own) and through
    # continuations, as the native engine reads them from the subtrees (native/ts_runtime.c)
    # names made of parts (`A.f`, `f#2`, item keys and slots, loop variables): ASCII ones
    # are written by facts.c text_of, others by PyUnicode_FromFormat; one character is the
    # runtime's singleton either way
    "composed_names": (
        "class Ä:\n    def método(self): pass\n    def método(self): pass\n"
        "class B:\n    def f(self): pass\n    def f(self): pass\n"
        "d = {'ключ': g(), 'k': h(), 1: i()}\nd['é'] = f()\nd[k] = f()\n"
        "a, b = t = f()\nfor ä, (ö, x) in y: pass\n[z for z in w]\n"
    ),
    "fields_past_comments": (
        "def f(a):  # one\n    # two\n    return a\n"
        "class A(  # three\n    B,\n):  # four\n    x: int = g(  # five\n  y)\n"
        "h \\\n  (k)  # six\n"
        "z = (  # seven\n  m\n)(n)\n"
    ),
}
