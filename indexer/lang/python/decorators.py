"""Python decorators as what they are (a mixin of PythonProject): `@d def f` is `f = d(f)`.

- `d` is called where the definition stands (the enclosing scope: the call facts of a
  decorator are resolved there, resolve.py); `@d(x)` also calls what `d(x)` returns, with
  `f` (its application edge is made here, `decorator_edges`).
- `f` is passed to what is applied: where that function calls its parameter (a wrapper
  calling the function it wraps, `functools.wraps` style), it calls `f` (value-flow).
- A call of `f` runs what the decorators returned (`decorated`): the wrapper a decorator
  function returns, the `__call__` of the instance a decorator class builds. Decorators
  outside the repository, builtin ones (`staticmethod`, `property`) and repository
  decorators whose result we cannot tell (one that returns its argument, a registry)
  leave `f` itself called: they mostly return `f` or a wrapper that calls it.

Class decorators are applied (their calls and value flow) but never stand for the class:
they return the class far more often than anything else.
"""

from __future__ import annotations

from codeimpact.indexer.lang.api import CallFact, native_core
from codeimpact.indexer.lang.engine.memo import MISSING, memoized
from codeimpact.indexer.lang.engine.rules import CONFIDENCE, weakest
from codeimpact.indexer.lang.python.index import MAX_DEPTH, NO_NAMES, Entity, FileIndex

_FUNCTIONS = ("function", "method")
_DECORATED = ("class", *_FUNCTIONS)
_KIND = CallFact._fields.index("kind")


class Decorators:
    """What applying decorators does and what a call of a decorated definition runs."""

    def _applied(self, fi: FileIndex, scope: str, chain: str, line: int, depth: int):
        """(entity, rule) of what a decorator written as `chain` applies to the definition
        (`d`, or what `d(...)` returned for a chain `d()`), when it is the repository's."""
        called = chain.endswith("()")
        r = self.eval_chain(fi, scope, chain[:-2] if called else chain, line, depth + 1)
        if r is None:
            return None
        ent, reason = r
        if called:  # what the factory returns (`@command()` -> its nested `decorator`)
            ent = self._factory_result(ent, depth + 1)
            if ent is None:
                return None
            reason = weakest(reason, "local-type")
        if ent[0] == "inst" or ent[0] == "sym" and self._kind(ent) in ("class", *_FUNCTIONS):
            return ent, reason
        return None

    def _factory_result(self, ent: Entity, depth: int) -> Entity | None:
        """What calling a decorator factory returns: a class makes an instance; a function
        what its `return`s give (not its declared type: a factory's is often a union of
        what it returns with and without the function, `Command | Callable[...]`)."""
        if ent[0] != "sym":
            return None
        kind = self._kind(ent)
        if kind == "class":
            return ("inst", ent[1], ent[2], True)
        if kind not in _FUNCTIONS:
            return None
        return self._factory_returns(ent[1], ent[2], depth)

    # the same for every use of the factory (Django: `@register.filter(...)` and its kin,
    # each definition's decorators read again by `decorated`)
    @memoized('("factory", path, local)', "None", "depth > MAX_DEPTH", MAX_DEPTH=MAX_DEPTH)
    def _factory_returns(self, path: str, local: str, depth: int) -> Entity | None:
        fi = self.files[path]
        # a returned name first: `return decorator` says more than `return decorator(f)`,
        # the branch for the factory used without parentheses
        for r in sorted(self.returns_of(fi, local), key=lambda r: r.is_call):
            if r.value.startswith("ann:"):
                continue
            res = self.eval_chain(fi, r.scope, r.value, None, depth + 1)
            val = res[0] if res is not None else None
            if val is not None and r.is_call:
                # `return command(name, cls=Group)`: another factory's result, not its type
                val = self._factory_result(val, depth + 1)
            if val is not None and (val[0] == "inst" or self._kind(val) in _FUNCTIONS):
                return val
        return None

    def _application_result(self, applied: Entity, depth: int) -> Entity | None:
        """What applying `applied` to a function returns, when it is evident: a function (the
        wrapper) or an instance (a decorator class's); None when it is the function itself
        or cannot be told."""
        if applied[0] == "inst":
            m = self.class_member(applied[1], applied[2], "__call__", depth + 1)
            applied = m[0] if m is not None else None
            if applied is None or applied[0] != "sym":
                return None
        res = self.call_result(applied, depth + 1)
        if res is None:
            return None
        if res[0] == "inst":
            # a descriptor (`classonlymethod`, a cached property class) hands back the
            # function itself when read: only an instance that is called stands for it
            if self.class_member(res[1], res[2], "__get__", depth + 1) is not None:
                return None
            return res if self.class_member(res[1], res[2], "__call__", depth + 1) else None
        if res[0] == "sym" and self._kind(res) in _FUNCTIONS:
            return res
        return None

    def decorated(self, path: str, local: str, depth: int) -> Entity | None:
        """What a call of the decorated function `local` runs instead of it (a function or
        an instance), or None when the function itself is called."""
        fi = self.files[path]
        sym = fi.syms.get(local)
        if sym is None or not sym.decorators or sym.kind not in _FUNCTIONS:
            return None
        return self._decorated(fi, sym, depth)

    @memoized('("decorated", fi.path, sym.local)')
    def _decorated(self, fi: FileIndex, sym, depth: int) -> Entity | None:
        out = None
        scope = fi.parent.get(sym.local, "")
        for chain in reversed(sym.decorators):  # the one nearest the definition first
            r = self._applied(fi, scope, chain, sym.start_line, depth + 1)
            if r is not None:
                res = self._application_result(r[0], depth + 1)
                if res is not None:
                    out = res
        return out

    def made_instance(self, value):
        """(entity, rule) of a decorated function used as a value that its decorators made
        into an instance (`@click.command() def cli`, then `cli.main()`; a library's
        `@click.group(cls=AppGroup)` makes an AppGroup), else None. The
        class may be a subclass (`command(cls=Group)` is not read per application): its
        overrides are dispatch."""
        ent, reason = value
        if ent[0] != "sym" or self._kind(ent) not in _FUNCTIONS:
            return None
        made = self.decorated(ent[1], ent[2], 0)
        if made is None or made[0] != "inst":
            # a library decorator given the class (`@click.group(cls=AppGroup) def cli`,
            # then `@cli.command()`): the entry table's DecoratorMakes rows
            made = self.decorator_instance(ent[1], ent[2])
            if made is None:
                return None
        return ("inst", made[1], made[2], False), weakest(reason, "decorator")

    def decorator_edges(self, fi: FileIndex, edges) -> None:
        """The application of each decorator: a call of what `d(...)` returned, from the
        enclosing scope, and the decorated value passed to what is applied."""
        decorated = []  # (a loop: a list comprehension is a function made per file)
        for local, sym in fi.syms.items():
            if sym.decorators and sym.kind in _DECORATED:
                decorated.append((local, sym))
        if not decorated:
            return
        lines: dict[tuple[str, str], int] = {}
        # (the decorator sites picked in C: a Python loop's test per call site of each file
        # with a decorated definition, for the few it keeps; "decorator" is a whole kind)
        for c in native_core().rows_prefixed(fi.facts.calls, _KIND, "decorator", -1):
            if c.kind == "decorator":
                lines.setdefault((c.scope, c.callee), c.line)
        # (scope, chain) -> [what it applies, its application, its result or MISSING]: the
        # same for each definition of a scope it decorates (Django: 3.8K of 6.3K decorators
        # repeat one of their scope, `@override_settings(...)` on each test method), unless
        # the line matters: the chain's first name bound twice or more in the scope, where
        # the lookups are not kept either (names.py lookup_name), or a cut was met
        known: dict[tuple[str, str], list] = {}
        names, memo, srcs = fi.names, self.memo, self._srcs
        for local, sym in decorated:
            scope = fi.parent.get(local, "")
            src = srcs.get(scope)  # (here_uid written out: a frame per definition, 6K)
            if src is None:
                src = srcs[scope] = f"{fi.path}::{scope}"
            value: Entity = ("sym", fi.path, local)
            for chain in reversed(sym.decorators):
                called = chain.endswith("()")
                line = lines.get((local, chain[:-2] if called else chain), sym.start_line)
                hit = known.get((scope, chain))
                if hit is None:
                    cuts = memo.cuts
                    r = self._applied(fi, scope, chain, line, 0)
                    hit = [r, self._application(r[0]) if r is not None else None, MISSING]
                    head = chain.partition(".")[0].partition("(")[0]
                    if memo.cuts == cuts and len(names.get(scope, NO_NAMES).get(head, ())) < 2:
                        known[(scope, chain)] = hit
                r, found = hit[0], hit[1]
                if found is None:
                    continue
                applied, reason = r
                target, sinks = found
                if called:  # `@d(x)`: d(x) is called by the call fact, its result here
                    self._call_applied(applied, target, weakest("decorator", reason), edges,
                                       src, line)  # fmt: skip
                if sinks and value[0] == "sym":
                    self._flow_into(sinks, value, edges, src, line)
                if sym.kind != "class":
                    res = hit[2]
                    if res is MISSING:
                        cuts = memo.cuts
                        res = self._application_result(applied, 0)
                        if memo.cuts == cuts:
                            hit[2] = res
                    if res is not None:
                        value = res

    @memoized('("application", applied)')
    def _application(self, applied: Entity):
        """(the function that runs, the scopes calling its first parameter in a stable
        order) of applying `applied` to a definition: the same for each definition it
        decorates (Django: @cached_property alone over a thousand times)."""
        target = self._callable_of(applied)
        if target is None:
            return None
        landing = self.parameter_of(target, 0, True, 0)
        called = self.sinks(landing[0][1], landing[0][2], landing[1]) if landing else ()
        return target, tuple(sorted(called))

    def handed_closure_edges(self, fi: FileIndex, edges) -> None:
        """A method returning a function it defines hands that closure to its callers, who
        run it later (`View.as_view` returns `view`, registered as a route's view):
        REFERENCES method -> closure (rule scope), which impact follows upstream to the
        method's callers (a function's own nested function is no relay: query/relays.py).
        Methods only: a decorator returning its wrapper is followed through the definitions
        it decorates (`decorated`)."""
        syms = fi.syms
        for scope, rets in fi.returns.items():
            sym = syms.get(scope)
            if sym is None or sym.kind != "method":
                continue
            for r in rets:
                name = r.value
                if r.is_call or not name.isidentifier():
                    continue
                local, n = f"{scope}.{name}", 1
                while local in syms and syms[local].kind == "function":
                    edges.add("REFERENCES", self.here_uid(fi, scope), self.uid(fi.path, local),
                              "scope", r.line)  # fmt: skip
                    n += 1
                    local = f"{scope}.{name}#{n}"

    def _callable_of(self, applied: Entity) -> Entity | None:
        """The function that runs when `applied` is called: itself, a class's `__init__`, an
        instance's `__call__`."""
        if applied[0] == "sym" and self._kind(applied) in _FUNCTIONS:
            return applied
        name = "__call__" if applied[0] == "inst" else "__init__"
        m = self.class_member(applied[1], applied[2], name, 0)
        if m is None or m[0][0] != "sym" or self._kind(m[0]) not in _FUNCTIONS:
            return None
        return m[0]

    def _call_applied(self, applied, target, reason, edges, src, line) -> None:
        # (ent_uid of a symbol and edges.call written out: target is a function, 3.7K per
        # Django)
        dst = f"{target[1]}::{target[2]}"
        if applied[0] == "sym" and self._kind(applied) == "class":
            edges.append(("CALLS", src, f"{applied[1]}::{applied[2]}", CONFIDENCE[reason],
                          reason, line))  # fmt: skip
            edges.append(("CALLS", src, dst, CONFIDENCE["constructor"], "constructor", line))
        else:
            edges.append(("CALLS", src, dst, CONFIDENCE[reason], reason, line))

    def _flow_into(self, sinks, value, edges, src, line) -> None:
        """`value` (the definition, or what the decorators below made of it: a symbol) is
        the first argument of what is applied: where that function (or a closure in it)
        calls that parameter (`sinks`: (path, scope) of each), it calls `value`. (ent_uid,
        uid, edges.add and edges.call written out: 3.5K calls per Django, 5.2K sinks.)"""
        dst = f"{value[1]}::{value[2]}"
        conf = CONFIDENCE["value-flow"]
        append = edges.append
        append(("REFERENCES", src, dst, conf, "value-flow", line))
        for path, caller in sinks:
            caller_uid = f"{path}::{caller}"
            if caller_uid != dst:
                append(("CALLS", caller_uid, dst, conf, "value-flow", line))
