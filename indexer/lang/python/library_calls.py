"""Calls that libraries outside the repository make back into it (a mixin of PythonProject).

The table is data (entrypoints.py, shaped by lang/engine/entrypoints.py); this applies it:

- a call that resolves to a library callable of the table (`Thread(target=work)`,
  `Client(app)`, `atexit.register(f)`) calls the argument the row names: a function, or a
  member of an instance (`__call__` by default: a WSGI application object);
- a method that a repository class inherits from a library class (`client.get()` on a
  `FlaskClient(werkzeug.test.Client)`, `super().open()` inside it, a library classmethod
  on the class, `super().__init__(...)` handing the library constructor its arguments)
  calls what the table says the library method calls on its own instance: the subclass's overrides (`open`), a
  callable attribute it declares (`application: Flask` -> `Flask.__call__`);
- constructing a repository subclass of a library class passes the arguments to the
  library's constructor (when no repository `__init__` on the way takes them otherwise).

Each edge is from the call site's scope, rule `entry-point` (weakest with the rules the
receiver and the argument were found by). The call of the library method itself is an
edge to the external name (`<external>::werkzeug.test.Client.get`, rule `inheritance`).
"""

from __future__ import annotations

from codeimpact.indexer.lang.engine.entrypoints import EntryTable
from codeimpact.indexer.lang.engine.memo import BUSY, MISSING
from codeimpact.indexer.lang.engine.rules import weakest
from codeimpact.indexer.lang.python.entrypoints import TABLE
from codeimpact.indexer.lang.python.index import Entity, FileIndex
from codeimpact.indexer.resolved import external_uid

_FUNCTIONS = ("function", "method")
# What a call outcome does with the site's arguments, kept with the outcome (playback.py
# `_record_outcome`; `_arguments` runs them at each site): (step, value, rule)
ROWS = 0  # the argument rows (a tuple) of the library callable reached, by the rule
BOUND = 1  # `partial(lib_callable, arg)`: the rows of what the first argument is
CLASS_MADE = 2  # the class a keyword argument names is constructed (value: the keyword)
PROTOCOL = 3  # a builtin's protocol method on its first argument (value: the builtin)
FLOW = 4  # functions passed as arguments (value: the callee, rule: its kind)
# library methods calling library methods calling hooks: a few steps cover every row
_MAX_HOPS = 6


class LibraryCalls:
    """The entry-point table applied to calls, inherited library methods and constructors."""

    entry_table: EntryTable = TABLE
    # set when an edge made depends on which scope calls (a rule leaving out the caller
    # itself): resolve.py then keeps no call outcome to play back at other sites
    _src_read: bool  # (resolve.py's __init__ sets it, see values.py `_folds`)

    def library_bases(self, path: str, cls: str) -> tuple[str, ...]:
        """The library classes (dotted, as imported) that `cls` and its repository bases
        extend, in MRO order."""
        key = ("library bases", path, cls)
        table = self.memo.file_table
        out = table.get(key)
        if out is None:
            out = table[key] = self._library_bases(path, cls)
        return out

    def _library_bases(self, path: str, cls: str) -> tuple[str, ...]:
        out: list[str] = []
        known = self._heritage_values
        table = self.memo.table
        for p, c in self.mro(path, cls):
            info = table.get(("bases", p, c))  # (the memo's entry: a frame per hit, most)
            if info is None or info is BUSY:
                info = self._bases_info(p, c)
            if not info[1]:  # (a base unknown: outside, unresolved)
                continue
            fi = self.files[p]
            scope = fi.parent.get(c, "")
            # (the class's own heritage facts, and what its bases gave when its summary
            # evaluated them: values.py _bases_info)
            for h in self._heritage_of(fi, c):
                r = known.get((p, h), MISSING)
                if r is MISSING:
                    r = self.eval_chain(fi, scope, h.base, h.line, 0)
                if r is not None and r[0][0] == "ext" and r[0][1] not in out:
                    out.append(r[0][1])
        return tuple(out)

    def library_follow(self, callee: str, reason: str, follow: list) -> None:
        """A call resolved to the library callable `callee`: the arguments its rows name run
        (the step to `follow`, when the table has one)."""
        rows = self.entry_table.argument_rows(callee)
        if rows:
            follow.append((ROWS, rows, weakest(reason, "entry-point")))
        elif callee in self.entry_table.binders:
            follow.append((BOUND, None, reason))
        else:
            keyword = self.entry_table.class_keyword(callee)
            if keyword is not None:
                follow.append((CLASS_MADE, keyword, reason))

    def _class_made(self, fi: FileIndex, call, keyword: str, src: str, edges, reason) -> None:
        """`@click.group(cls=FlaskGroup)`: the library constructs the class given for the
        function decorated, where the definition stands (a DecoratorMakes row)."""
        chain = next((c for k, c in call.args if k == keyword), None)
        r = self.eval_chain(fi, call.scope, chain, call.line) if chain else None
        if r is not None and r[0][0] == "sym" and self._kind(r[0]) == "class":
            rule = weakest(weakest(reason, r[1]), "entry-point")
            self._run_value(r[0], (), src, call.line, rule, edges)

    def _bound_call(self, fi: FileIndex, call, src: str, edges, reason: str) -> None:
        """`partial(runner.invoke, cli)`: calling the partial calls the library callable
        with the bound arguments first, so its rows apply to them here, where they are
        bound (as a thread's target runs from where it is handed over)."""
        chain = next((c for k, c in call.args if k == 0), None)
        r = self.eval_chain(fi, call.scope, chain, call.line) if chain else None
        if r is None or r[0][0] != "ext":
            return
        rows = self.entry_table.argument_rows(r[0][1])
        if rows:
            shifted = tuple((k - 1 if isinstance(k, int) else k, c) for k, c in call.args if k != 0)
            rule = weakest(weakest(reason, r[1]), "entry-point")
            self._apply_rows(fi, call._replace(args=shifted), rows, src, edges, rule)

    def library_method(self, receiver, name: str, src: str, line: int, edges, follow: list) -> bool:
        """`name` called on an instance (or `super()`) of a repository class whose
        repository MRO does not define it: when a library base of the table does, the call
        reaches that library method and what it calls back (the arguments its rows name: a
        step to `follow`). Whether an edge was made."""
        ent, reason = receiver
        if ent[0] not in ("inst", "super") and (ent[0] != "sym" or self._kind(ent) != "class"):
            return False  # an instance, super(), or a class (a library classmethod)
        path, cls = ent[1], ent[2]
        # the same for every call of `name` on the class (45K unresolved method calls on
        # Django ask, mostly unittest's assert methods): kept per (class, name) while the
        # file is resolved (another file asked for 98 of Django's 2.9K)
        # (the memo's table read here: a lambda made per call for `cached`, 6K per Django)
        key = ("library method", path, cls, name)
        table = self.memo.file_table
        found = table.get(key, MISSING)
        if found is MISSING:
            found = table[key] = self._library_method(path, cls, name)
        if found is None:
            return False
        base, rows, calls = found
        edges.call(src, external_uid(f"{base}.{name}"), weakest(reason, "inheritance"), line)
        rule = weakest(reason, "entry-point")
        if rows:
            follow.append((ROWS, rows, rule))
        instance = ("inst", path, cls, ent[0] == "inst" and ent[3])
        for hook in calls:
            self.run_member(instance, hook, src, line, rule, edges, 0)
        return True

    def _library_method(self, path: str, cls: str, name: str) -> tuple | None:
        """(library base, its argument rows, the names it calls on the instance) of the
        nearest library base of `cls` the table knows method `name` of, or None."""
        for base in self.library_bases(path, cls):
            rows, calls = self.entry_table.method_rows(base, name)
            if name == "__init__" and not rows:  # super().__init__(...): the constructor's
                rows = self.entry_table.argument_rows(base)
            if rows or calls:
                return base, rows, calls
        return None

    def construct_rows(self, cls: Entity) -> tuple:
        """`C(...)` of a repository class C extending a library class of the table: the
        argument rows of the library's constructor, which gets the arguments, unless a
        repository `__init__` on the way takes them otherwise (one that does not forward
        `*args` first)."""
        # (a base unknown: outside, unresolved; the memo's entry read here, the wrapper on a
        # miss only: the build summarised every class, 3.4K frames per Django)
        info = self.memo.table.get(("bases", cls[1], cls[2]))
        if info is None or info is BUSY:
            info = self._bases_info(cls[1], cls[2])
        if not info[1]:
            return ()
        init = self.class_member(cls[1], cls[2], "__init__", 0)
        if init is not None and init[0][0] == "sym":
            params = self.files[init[0][1]].syms[init[0][2]].params
            if len(params) < 2 or not params[1][0].startswith("*"):
                return ()
        for base in self.library_bases(cls[1], cls[2]):
            rows = self.entry_table.argument_rows(base)
            if rows:
                return rows
        return ()

    def decorator_instance(self, path: str, local: str) -> Entity | None:
        """An instance of the repository class that a library decorator of the table made
        the function `local` into (`@click.group(cls=FlaskGroup)`), if any."""
        fi = self.files[path]
        sym = fi.syms.get(local)
        if sym is None or not sym.decorators:
            return None  # (no decorator call: the file's call tables are not made for it)
        scope = fi.parent.get(local, "")
        for c in fi.decorator_calls.get(local, ()):
            r = self.eval_chain(fi, scope, c.callee, c.line)
            keyword = self.entry_table.class_keyword(r[0][1]) if r and r[0][0] == "ext" else None
            chain = next((ch for k, ch in c.args if k == keyword), None) if keyword else None
            cls = self.eval_chain(fi, scope, chain, c.line) if chain else None
            if cls is not None and cls[0][0] == "sym" and self._kind(cls[0]) == "class":
                return ("inst", cls[0][1], cls[0][2], False)
        return None

    def _apply_rows(self, fi: FileIndex, call, rows, src: str, edges, reason: str) -> None:
        for row in rows:
            chain = row.argument(call.args)
            r = self.eval_chain(fi, call.scope, chain, call.line) if chain else None
            if r is None:
                continue
            rule = weakest(reason, r[1])
            value = r[0]
            if value[0] == "sym" and self._kind(value) in _FUNCTIONS:
                # a decorated function is what its decorators returned (a click Command), or
                # an instance of the class a library decorator was given (`cls=FlaskGroup`)
                value = (self.decorated(value[1], value[2], 0)
                         or self.decorator_instance(value[1], value[2]) or value)  # fmt: skip
            if row.members and value[0] == "sym" and self._kind(value) in _FUNCTIONS:
                if row.function_stands_for_object:  # `@click.command` (a library's) kept f
                    self._call(src, value, rule, call.line, edges)
                continue
            self._run_value(value, row.members, src, call.line, rule, edges)

    def _run_value(self, value: Entity, members: tuple[str, ...], src: str, line: int, rule: str,
                   edges) -> None:  # fmt: skip
        """What calling `value` (or its `members`) runs: a function, a class's constructor,
        an instance's `__call__` (or members)."""
        if value[0] == "inst":
            for name in members or ("__call__",):
                self.run_member(value, name, src, line, rule, edges, 0)
        elif value[0] == "sym" and not members:
            kind = self._kind(value)
            if kind in _FUNCTIONS:
                self._call(src, value, rule, line, edges)
            elif kind == "class":  # constructed: `__init__`, and a `__new__` it defines
                self._call(src, value, rule, line, edges)
                self.construction_edges(value, edges, src, line, weakest(rule, "constructor"))

    def run_member(self, inst: Entity, name: str, src: str, line: int, rule: str, edges,
                   hops: int) -> None:  # fmt: skip
        """`name` called on an instance of a repository class: the definition its MRO finds
        (an override in a subclass may run instead, unless the instance was constructed
        here), a callable attribute's `__call__`, or, for a method a library base provides,
        what the table says that method calls on the instance."""
        if hops > _MAX_HOPS:
            return
        if name.startswith("@"):
            self._run_others(name[1:], src, line, rule, edges)
            return
        path, cls = inst[1], inst[2]
        m = self.class_member(path, cls, name, 0)
        found = (m[0], m[2]) if m is not None else self.instance_attr(path, cls, name, 0)
        if found is not None:
            ent, how = found
            rule = weakest(rule, how)
            if ent[0] == "sym" and self._kind(ent) in _FUNCTIONS:
                self._call(src, ent, rule, line, edges)
                if not inst[3]:
                    self._src_read = True  # (an override that is the caller itself: no edge)
                    edges.dispatch(src, (self.uid(p, d) for p, d in self.overrides(path, cls, name)
                                         if self.uid(p, d) != src), line)  # fmt: skip
            elif ent[0] == "inst" and name != "__call__":
                self.run_member(ent, "__call__", src, line, rule, edges, hops + 1)
            return
        for base in self.library_bases(path, cls):
            _rows, calls = self.entry_table.method_rows(base, name)
            for hook in calls:
                self.run_member(inst, hook, src, line, rule, edges, hops + 1)
            if calls:
                return

    def _run_others(self, target: str, src: str, line: int, rule: str, edges) -> None:
        """A hook `@lib.Class.method`: the library calls `method` on an object of its own
        that the repository may have given it (jinja's Environment on its loader): every
        repository subclass of `lib.Class` defining `method` may run."""
        base, _, method = target.rpartition(".")
        for p, local in self.methods_by_name.get(method, ()):
            cls = local.rpartition(".")[0]
            if cls and any(base in self.entry_table.lineage(b) for b in self.library_bases(p, cls)):
                self._call(src, ("sym", p, local), rule, line, edges)

    def _call(self, src: str, ent: Entity, rule: str, line: int, edges) -> None:
        dst = self.ent_uid(ent)
        self._src_read = True  # (resolve.py: what this makes depends on the calling scope)
        if dst is not None and dst != src:
            edges.call(src, dst, rule, line)
