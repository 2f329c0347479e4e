"""Where a function value passed as an argument ends up called (a mixin of PythonProject).

`f(g)` hands `g` to a parameter of `f`. The scopes that call what a parameter holds are its
sinks, gathered per file by index.py when the file is indexed:

- the parameter called by name, in the function or a closure in it (`param_calls`);
- the parameter passed on to another call (`param_passes`): the sinks of the parameter it
  lands in there (`outer(fn)` -> `middle(fn)` -> `fn()`), followed through any file;
- the parameter stored on the instance (`self.cb = cb`, `param_attrs`): the methods of the
  class that call `self.cb(...)` (`attr_calls`) or pass it on (`attr_passes`: Click's
  `ctx.invoke(self.callback)`).

The call site that passes `g` owns the `value-flow` edges from each sink to `g`
(resolve.py `_value_flow`, decorators.py `_flow_into`). What can make these sinks differ is
in the export view of the function (exports.py) and the class's attribute flows (plan.py).
"""

from __future__ import annotations

from codeimpact.indexer.lang.engine.memo import MISSING
from codeimpact.indexer.lang.python.index import MAX_DEPTH, NO_NAMES, Entity


class Flows:
    """The sinks of a parameter: the scopes calling what it was passed."""

    def sinks(self, path: str, fn: str, pname: str, depth: int = 0) -> frozenset:
        """(path, scope) of every scope that calls the value passed to `pname` of `fn`."""
        key = ("sinks", path, fn, pname)
        hit = self.memo.table.get(key, MISSING)
        if hit is not MISSING:
            return self.memo.hit(hit, frozenset())
        cuts = self.memo.begin(key)
        out: set = set()
        if depth > MAX_DEPTH:
            self._cut()
        else:
            fi = self.files[path]
            out.update((path, s) for s in fi.param_calls.get(fn, NO_NAMES).get(pname, ()))
            for scope, callee, k, line in fi.param_passes.get(fn, NO_NAMES).get(pname, ()):
                out |= self._passed_on(path, scope, callee, k, line, depth)
            cls = fi.parent.get(fn, "")
            for attr, stores in fi.param_attrs.get(cls, NO_NAMES).items():
                if (fn, pname) in stores:
                    out |= self._attr_sinks(path, cls, attr, depth)
            for attr, stores in fi.param_items.get(cls, NO_NAMES).items():
                if (fn, pname) in stores:
                    out |= self._item_sinks(path, cls, attr)
        return self.memo.store(key, frozenset(out), cuts)

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

    def _passed_on(self, path: str, scope: str, callee: str, key, line: int, depth: int) -> set:
        """The sinks of the parameter a value lands in when `callee` is called with it."""
        fi = self.files[path]
        r = self.eval_chain(fi, scope, callee, line, depth + 1)
        if r is None or r[0][0] != "sym":
            return set()
        out: set = set()
        for ent in (r[0], *self._overriding(fi, callee, r[0])):
            landing = self.parameter_of(ent, key, "." in callee, depth + 1)
            if landing is not None:
                target, pname = landing
                out |= self.sinks(target[1], target[2], pname, depth + 1)
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

    def parameter_of(self, ent: Entity, key, through_attribute: bool, depth: int):
        """(function, parameter name) an argument `key` (a position or a keyword) binds when
        `ent` is called: a class's `__init__` past `self`, a method past `self` when called
        on an instance or class (`obj.m(x)`); None when there is none."""
        kind = self._kind(ent)
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
        if isinstance(key, str):
            return (target, key) if key in params else None
        bound = (
            tsym.kind == "method"
            and "staticmethod" not in tsym.decorators
            and (kind == "class" or through_attribute)
        )
        shift = 1 if bound else 0
        pname = next((n for n, (i, _) in params.items() if i - shift == key), None)
        return (target, pname) if pname is not None else None
