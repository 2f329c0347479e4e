"""Where a function value passed as an argument ends up called (a mixin of PythonProject).

`f(g)` hands `g` to a parameter of `f`. The scopes that call what a parameter holds are its
sinks, gathered per file by index.py when the file is indexed:

- the parameter called by name, in the function or a closure in it (`param_calls`);
- the parameter passed on to another call (`param_passes`): the sinks of the parameter it
  lands in there (`outer(fn)` -> `middle(fn)` -> `fn()`), followed through any file;
- an item of the parameter called (`items[0]()`, `for f in items: f()`: `param_item_calls`),
  for a container passed (`run([f, g])`, `fs = [f, g]; run(fs)`): `item_sinks`;
- the parameter stored on the instance (`self.cb = cb`, `param_attrs`): the methods of the
  class that call `self.cb(...)` (`attr_calls`) or pass it on (`attr_passes`: Click's
  `ctx.invoke(self.callback)`).

The call site that passes `g` owns the `value-flow` edges from each sink to `g`
(playback.py `_arguments`, decorators.py `_flow_into`). What can make these sinks differ is
in the export view of the function (exports.py) and the class's attribute flows (plan.py).
"""

from __future__ import annotations

from codeimpact.indexer.lang.engine.memo import BUSY, MISSING, memoized
from codeimpact.indexer.lang.engine.values import members
from codeimpact.indexer.lang.python.containers import LIT
from codeimpact.indexer.lang.python.index import MAX_DEPTH, NO_NAMES, Entity


def forwards_only(fi, call) -> bool:
    """Whether a call's only argument is `**p`, p a parameter of the calling function
    (`super().__init__(*args, **kwargs)`: 1.2K of Django's calls). What p holds is followed
    from the callee's side (index.py param_passes, `keyword_sinks`); at the site a
    parameter's value makes no edge, so the call resolves as one without arguments (and is
    played back like one: resolve.py, playback.py)."""
    args = call.args
    return (
        len(args) == 1 and args[0][0] == "**" and args[0][1] in fi.params.get(call.scope, NO_NAMES)
    )


class Flows:
    """The sinks of a parameter: the scopes calling what it was passed."""

    @memoized('("sinks", path, fn, pname)', "frozenset()", "depth > MAX_DEPTH", MAX_DEPTH=MAX_DEPTH)
    def sinks(self, path: str, fn: str, pname: str, depth: int = 0) -> frozenset:
        """(path, scope) of every scope that calls the value passed to `pname` of `fn`."""
        fi = self.files[path]
        out = set()  # (a loop: a set comprehension is a function made per call)
        for s in fi.param_calls.get(fn, NO_NAMES).get(pname, ()):
            out.add((path, s))
        me = (path, fn, pname)
        for scope, callee, k, line in fi.param_passes.get(fn, NO_NAMES).get(pname, ()):
            out |= self._passed_on(path, scope, callee, k, line, depth, me=me)
        cls = fi.parent.get(fn, "")
        for attr, stores in fi.param_attrs.get(cls, NO_NAMES).items():
            if (fn, pname) in stores:
                out |= self._attr_sinks(path, cls, attr, depth)
        for attr, stores in fi.param_items.get(cls, NO_NAMES).items():
            if (fn, pname) in stores:
                out |= self._item_sinks(path, cls, attr)
        return frozenset(out)

    @memoized(
        '("isinks", path, fn, pname)', "frozenset()", "depth > MAX_DEPTH", MAX_DEPTH=MAX_DEPTH
    )
    def item_sinks(self, path: str, fn: str, pname: str, depth: int = 0) -> frozenset:
        """(path, scope) of every scope that calls an item of what `pname` of `fn` was passed
        (`items[0]()`, `for f in items: f()`), also where it is passed on."""
        fi = self.files[path]
        out = set()
        for s in fi.param_item_calls.get(fn, NO_NAMES).get(pname, ()):
            out.add((path, s))
        me = (path, fn, pname)
        for scope, callee, k, line in fi.param_passes.get(fn, NO_NAMES).get(pname, ()):
            out |= self._passed_on(path, scope, callee, k, line, depth, True, me=me)
        return frozenset(out)

    @memoized(
        '("ksinks", path, fn, pname, kw)', "frozenset()", "depth > MAX_DEPTH", MAX_DEPTH=MAX_DEPTH
    )
    def keyword_sinks(self, path: str, fn: str, pname: str, kw: str, depth: int = 0):
        """(path, scope) of every scope that calls the value passed as keyword `kw` into the
        `**pname` of `fn`: an item of it called (`kwargs["cb"]()`), and where it is spread
        on (`inner(**kwargs)`) the sinks of what takes `kw` there."""
        fi = self.files[path]
        out = set()
        for s in fi.param_item_calls.get(fn, NO_NAMES).get(pname, ()):
            out.add((path, s))
        for scope, callee, k, line in fi.param_passes.get(fn, NO_NAMES).get(pname, ()):
            if k == "**":
                out |= self._passed_on(path, scope, callee, kw, line, depth, spread=True)
        return frozenset(out)

    def landing_sinks(self, ent: Entity, key, through_attribute: bool, depth: int) -> frozenset:
        """The sinks of a value passed as `key` when `ent` is called: its parameter's, or for
        a keyword no parameter is named for, those of `**kwargs` (`keyword_sinks`)."""
        landing = self.parameter_of(ent, key, through_attribute, depth)
        if landing is not None:
            # (the memo's entry read here, the wrapper called on a miss only: a frame per
            # hit, 7K of the 8K asked per Django)
            path, fn, pname = landing[0][1], landing[0][2], landing[1]
            found = self.memo.table.get(("sinks", path, fn, pname), MISSING)
            if found is MISSING or found is BUSY:
                found = self.sinks(path, fn, pname, depth)
            return found
        if isinstance(key, str):
            landing = self.parameter_of(ent, key, through_attribute, depth, True)
            if landing is not None:
                return self.keyword_sinks(landing[0][1], landing[0][2], landing[1], key, depth)
        return frozenset()

    def spread_flow(self, fi, call, ent, value, through_attribute: bool, edges, src) -> None:
        """`run(**opts)` with opts a literal dict: each item under a literal key is passed as
        that keyword (value-flow calls from the sinks of where it lands)."""
        if value[0][0] != LIT:
            return
        for k, item, _, _, _ in self.container_items(value[0], 0):
            if k == "*":
                continue
            values = [v for v in members(item) if v[0] == "sym"
                      and self._kind(v) in ("function", "method", "class")]  # fmt: skip
            sinks = sorted(self.landing_sinks(ent, k, through_attribute, 0)) if values else ()
            for v in values:
                dst = self.ent_uid(v)
                for path, caller in sinks:
                    caller_uid = self.uid(path, caller)
                    if caller_uid != dst:
                        edges.call(caller_uid, dst, "value-flow", call.line)

    def _item_sinks(self, path: str, cls: str, attr: str) -> set:
        """The methods calling an item of the registry `self.attr` (registries.py), or the
        value of a method handing one out, in the classes that share it: the storing class,
        its bases and its subclasses."""
        files = self.files
        family = (*self.mro(path, cls), *self.descendants(path, cls))
        keys = {attr}  # and `m()` for each method m handing out an item
        for p, c in family:
            keys.update(m + "()" for m in files[p].item_getters.get(c, NO_NAMES).get(attr, ()))
        out: set = set()
        for p, c in family:
            calls = files[p].item_calls.get(c, NO_NAMES)
            for k in keys:
                out.update((p, s) for s in calls.get(k, ()))
        return out

    def _attr_sinks(self, path: str, cls: str, attr: str, depth: int) -> set:
        fi = self.files[path]
        out = {(path, s) for s in fi.attr_calls.get(cls, NO_NAMES).get(attr, ())}
        for scope, callee, k, line in fi.attr_passes.get(cls, NO_NAMES).get(attr, ()):
            out |= self._passed_on(path, scope, callee, k, line, depth)
        return out

    def _passed_on(self, path: str, scope: str, callee: str, key, line: int, depth: int,
                   items: bool = False, spread: bool = False,
                   me: tuple | None = None) -> set:  # fmt: skip
        """The sinks of the parameter a value lands in when `callee` is called with it (the
        item sinks with `items`; with `spread`, the value is keyword `key` of a `**` spread).
        `me`: the (path, function, parameter) whose sinks (item sinks) are being gathered:
        a parameter passed on to itself (`walk(child, visit)` in walk) adds none of its own,
        which its lookup would answer as a cycle met, cut, leaving its sinks unkept and made
        again at each ask (Django's Library.filter: 391 cuts per resolution)."""
        fi = self.files[path]
        r = self.eval_chain(fi, scope, callee, line, depth + 1)
        if r is None or r[0][0] != "sym":
            return set()
        out: set = set()
        for ent in (r[0], *self._overriding(fi, callee, r[0])):
            if spread:
                out |= self.landing_sinks(ent, key, "." in callee, depth + 1)
                continue
            landing = self.parameter_of(ent, key, "." in callee, depth + 1)
            if landing is not None:
                target, pname = landing
                if me is not None and target[1] == me[0] and target[2] == me[1] and pname == me[2]:
                    continue  # (the sinks being gathered: nothing more, see above)
                sinks = self.item_sinks if items else self.sinks
                out |= sinks(target[1], target[2], pname, depth + 1)
        return out

    def _overriding(self, fi, callee: str, ent: Entity) -> list:
        """`self.m(fn)` in a base runs the m of the instance's class: the overrides of m in
        the subclasses of the method's class (Flask's Scaffold.route hands the view to
        `self.add_url_rule`, an abstract method App implements)."""
        if not callee.startswith("self.") or callee.count(".") != 1:
            return []
        tfi = self.files[ent[1]]
        sym = tfi.syms.get(ent[2])
        if sym is None or sym.kind != "method":
            return []
        cls = tfi.parent.get(ent[2], "")
        return [("sym", p, m) for p, m in self.overrides(ent[1], cls, sym.name)]

    @memoized('("parameter", ent, arg, through_attribute, spread)')
    def parameter_of(self, ent: Entity, arg, through_attribute: bool, depth: int,
                     spread: bool = False):  # fmt: skip
        """(function, parameter name) an argument `arg` (a position or a keyword) binds when
        `ent` is called: a class's `__init__` past `self`, a method past `self` when called
        on an instance or class (`obj.m(x)`); None when there is none. With `spread`, a
        keyword no parameter is named for: the `**kwargs` parameter, whose item it is.
        Kept in the memo: asked per value passed at each site (`landing_sinks`, `items_flow`),
        the same few callees and positions again and again (a quarter of Django: 3.4K asks,
        614 distinct). (`arg`, not `key`: the memo's wrapper names its key so.)"""
        s = self.files[ent[1]].syms.get(ent[2]) if ent[0] == "sym" else None  # (_kind's)
        kind = s.kind if s else None
        target = ent
        if kind == "class":
            init = self.class_member(ent[1], ent[2], "__init__", depth + 1)
            if init is None or init[0][0] != "sym":
                return None
            target = init[0]
        elif kind not in ("function", "method"):
            return None
        tfi = self.files[target[1]]
        tsym = tfi.syms.get(target[2])
        if tsym is None:
            return None
        params = tfi.params.get(target[2], {})
        if isinstance(arg, str):
            if arg in params:
                return target, arg
            if spread:  # (params spell `*args` and `**kwargs` alike: the signature tells)
                rest = next((n[1:] for n, _ in tsym.params
                             if n[:1] == "*" and "*" + n in tsym.signature), None)  # fmt: skip
                return (target, rest) if rest is not None else None
            return None
        bound = (
            tsym.kind == "method"
            and "staticmethod" not in tsym.decorators
            and (kind == "class" or through_attribute)
        )
        at = arg + 1 if bound else arg
        for n, (i, _) in params.items():  # (a loop, not next() over a generator)
            if i == at:
                return target, n
        return None

    def items_flow(self, fi, call, ent, key, value, through_attribute: bool, edges,
                   src: str) -> None:  # fmt: skip
        """A container passed as an argument (playback.py `_arguments`): a value-flow call from
        each scope that calls an item of the parameter it lands in (`item_sinks`) to each
        function or class
        among its items. `value`: the container's chain, or its value when evaluated."""
        landing = self.parameter_of(ent, key, through_attribute, 0)
        if landing is None:
            return
        sinks = self.item_sinks(landing[0][1], landing[0][2], landing[1])
        if not sinks:  # (most callees: the container is not evaluated)
            return
        if isinstance(value, str):
            value = self.eval_chain(fi, call.scope, value, call.line)
            if value is None or value[0][0] != LIT:
                return
        for item in self.container_items(value[0], 0):
            for v in members(item[1]):
                if v[0] != "sym" or self._kind(v) not in ("function", "method", "class"):
                    continue
                dst = self.ent_uid(v)
                init = self._init_of(v)
                if init is not None:  # a sink constructs it for src: impact follows src
                    edges.add("REFERENCES", src, init, "value-flow", call.line)
                for path, caller in sorted(sinks):
                    caller_uid = self.uid(path, caller)
                    if caller_uid != dst:
                        edges.call(caller_uid, dst, "value-flow", call.line)
                        if init is not None:
                            edges.call(caller_uid, init, "value-flow", call.line)
