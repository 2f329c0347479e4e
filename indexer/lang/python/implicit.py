"""Calls no call site spells (a mixin of PythonProject): the methods Python runs for a
statement or an operation on an instance of a repository class.

- `with m:` / `with m as x:` runs `m.__enter__` and `m.__exit__` (`async with`: the
  `__aenter__` / `__aexit__` pair), from the scope of the `with`.
- `for x in it` (and a comprehension's `for`) runs `it.__iter__` and the `__next__` of
  the iterator it returns.
- a builtin given an instance runs its protocol method: `len(x)` `x.__len__`, `str(x)`
  `x.__str__` (else `__repr__`), `iter`, `next`, `hash`, `bool`, `repr`, `abs`, ...;
  `hasattr(x, name)` runs a `__getattr__` (it probes for what the instance may lack).
- `obj.attr = v` runs the setter of a property `attr` (the definition decorated
  `@attr.setter`) or the `__set__` of a descriptor stored on the class as `attr`.
- a class statement runs a base's `__init_subclass__` and the `__set_name__` of descriptors
  stored in its body (from the scope around it); `obj.attr = v` runs a repository
  `__setattr__` of the instance's class.
- `C(...)` runs `C.__new__` when a repository class of its MRO defines one, and a
  dataclass's `__post_init__` (the generated `__init__` calls it), beside `C.__init__`.

An implicit call is made only where the instance's class is known (constructed, declared,
returned, `self`), by the rule that typed it; the method is looked up through the MRO
(`inheritance` when a base defines it). Nothing is guessed for an unknown receiver.
"""

from __future__ import annotations

from codeimpact.indexer.lang.engine.edges import Edges
from codeimpact.indexer.lang.engine.memo import BUSY, MISSING, memoized
from codeimpact.indexer.lang.engine.rules import CONFIDENCE, weakest
from codeimpact.indexer.lang.python.index import NO_NAMES, FileIndex, parse_steps
from codeimpact.indexer.lang.python.reads import class_body_calls
from codeimpact.indexer.lang.python.values import _member_rule

# builtin -> the methods of its first argument's class it calls (the first one defined)
BUILTIN_PROTOCOL = {
    "len": ("__len__",),
    "str": ("__str__", "__repr__"),
    "repr": ("__repr__",),
    "bool": ("__bool__", "__len__"),
    "iter": ("__iter__",),
    "next": ("__next__",),
    "hash": ("__hash__",),
    "abs": ("__abs__",),
    "reversed": ("__reversed__",),
    "format": ("__format__",),
    "int": ("__int__", "__index__"),
    "float": ("__float__",),
    "bytes": ("__bytes__",),
    "round": ("__round__",),
    "dir": ("__dir__",),
    # the probe of an attribute the instance may lack: when it does, __getattr__ runs
    "hasattr": ("__getattr__",),
}
_NONE: frozenset = frozenset()
_CONTEXT = {"enter:": ("__enter__", "__exit__"), "aenter:": ("__aenter__", "__aexit__")}
# Every method name this module calls: a class gaining or losing one changes the edges of
# code that names the class (PythonProject.hierarchy_changes reads this).
IMPLICIT_NAMES = tuple(
    sorted(
        {m for ms in (*BUILTIN_PROTOCOL.values(), *_CONTEXT.values()) for m in ms}
        | {
            "__iter__",
            "__next__",
            "__new__",
            "__post_init__",
            "__setattr__",
            "__init_subclass__",
            "__set_name__",
        }
    )
)


class Implicit:
    """The implicit calls of statements on typed instances."""

    def entered(self, fi: FileIndex, b, depth: int):
        """(instance, rule, (enter, exit) method names) of the manager a `with` item's binding
        `b` enters, or None when its class is not a known repository class."""
        prefix, _, chain = b.value.partition(":")
        r = self.eval_chain(fi, b.scope, chain, b.line, depth + 1)
        if r is None:
            return None
        ent, rule = r
        if b.is_call:
            ent = self.call_result(ent, depth + 1)
            if CONFIDENCE[rule] > CONFIDENCE["local-type"]:  # (weakest written out: 5.6K)
                rule = "local-type"
        if ent is None or ent[0] != "inst":
            return None
        return ent, rule, _CONTEXT[prefix + ":"]

    def context_edges(self, fi: FileIndex, edges: Edges) -> None:
        """`with` items: CALLS to the manager's enter and exit methods."""
        for b in fi.contexts:
            r = self.entered(fi, b, 0)
            if r is None:
                continue
            (_, path, cls, _exact), rule, methods = r
            src = self.here_uid(fi, b.scope)
            for name in methods:
                self._implicit_call(path, cls, name, rule, edges, src, b.line)

    def loop_edges(self, fi: FileIndex, edges: Edges) -> None:
        """`for` loops over instances: CALLS to `__iter__` and the iterator's `__next__`."""
        for b in fi.loops:
            _, _, chain = b.value.split(":", 2)
            r = self.eval_chain(fi, b.scope, chain, b.line, 0)
            if r is None or r[0][0] != "inst":
                continue
            (_, path, cls, _exact), rule = r
            src = self.here_uid(fi, b.scope)
            m = self.class_member(path, cls, "__iter__", 0)
            if m is None or not self._implicit_call(
                path, cls, "__iter__", rule, edges, src, b.line
            ):
                continue
            it = self.call_result(m[0], 0)
            if it is not None and it[0] == "inst":
                self._implicit_call(it[1], it[2], "__next__", weakest(rule, "local-type"), edges,
                                    src, b.line)  # fmt: skip

    def builtin_edges(self, fi: FileIndex, call, name: str, edges: Edges, src: str) -> None:
        """`len(x)` and its kin on an instance: CALLS to the protocol method they run."""
        methods = BUILTIN_PROTOCOL.get(name)
        if not methods:
            return
        chain = None
        for k, c in call.args:  # (the first positional argument; no generator made)
            if k == 0:
                chain = c
                break
        if chain is None:
            return
        r = self.eval_chain(fi, call.scope, chain, call.line, 0)
        if r is None or r[0][0] != "inst":
            return
        (_, path, cls, _exact), rule = r
        for method in methods:
            if self._implicit_call(path, cls, method, rule, edges, src, call.line):
                return

    def write_edges(self, fi: FileIndex, edges: Edges) -> None:
        """Assignments to members of typed instances: CALLS to a repository `__setattr__`,
        setters and `__set__`."""
        setattr_defined = "__setattr__" in self.methods_by_name
        names = self.read_names
        for b in fi.writes:
            receiver, _, attr = b.value[4:].rpartition(".")
            # `self.env.x = v` reads self.env first: its getter runs (a cached_property);
            # looked for only when a member of the receiver is a read name (reads.py)
            reads: list | None = None
            if "." in receiver and names:
                steps = parse_steps(receiver)
                if steps is not None:
                    for step in steps[1:]:  # (a loop, not any() over a generator)
                        if step[0] in names:
                            reads = []
                            break
            r = self.eval_chain(fi, b.scope, receiver, b.line, 0, reads)
            if reads:
                src = self.here_uid(fi, b.scope)
                for getter, rule in reads:
                    edges.call(src, self.ent_uid(getter), rule, b.line)
            if r is None or r[0][0] != "inst":
                continue
            (_, path, cls, _exact), rule = r
            src = self.here_uid(fi, b.scope)
            if setattr_defined:  # it runs for every assignment, and may run the setter next
                self._implicit_call(path, cls, "__setattr__", rule, edges, src, b.line)
            m = self.class_member(path, cls, attr, 0)
            if m is None:
                continue
            target = m[0]
            if self._is_property(target):
                setter = self._setter(target, attr)
                if setter is not None:
                    edges.call(src, self.ent_uid(setter), _member_rule(rule, m), b.line)
            elif target[0] == "inst":  # a descriptor stored on the class
                self._implicit_call(target[1], target[2], "__set__",
                                    weakest(_member_rule(rule, m), "local-type"), edges, src,
                                    b.line)  # fmt: skip

    def class_creation_edges(self, fi: FileIndex, edges: Edges) -> None:
        """Class statements: the `__init_subclass__` of a base and the `__set_name__` of the
        descriptors stored in the body run in the scope around the class statement."""
        methods = self.methods_by_name
        path = fi.path
        heritage = fi.facts.heritage
        if heritage and "__init_subclass__" in methods:
            # (Django: 8.8K class statements with bases, a handful of classes defining it)
            lines = {}
            for h in heritage:
                lines.setdefault(h.scope, h.line)
            memo, files = self.memo, self.files
            for cls, line in lines.items():
                cuts = memo.cuts
                owners = self._member_owners(path, cls, "__init_subclass__")
                if not owners:
                    continue  # no ancestor has it: the `super` lookup finds nothing
                if len(owners) == 1 and memo.cuts == cuts:
                    # (Django: 3K model classes, AltersData's alone) no cycle met, so the
                    # MRO after the class holds exactly these ancestors: the one with the
                    # member is what `super` finds, without the MRO (c3) of each class
                    ((opath, owner),) = owners
                    target = ("sym", opath, files[opath].members[owner]["__init_subclass__"])
                else:
                    r = self.getattr(("super", path, cls), "__init_subclass__", "inheritance", 0)
                    target = r[0] if r is not None else None
                if target is not None and target[0] == "sym" and self._kind(target) == "method":
                    # (uid, ent_uid of a symbol and edges.call written out: 3K per Django)
                    edges.append(("CALLS", f"{path}::{fi.parent.get(cls, '')}",
                                  f"{target[1]}::{target[2]}", CONFIDENCE["inheritance"],
                                  "inheritance", line))  # fmt: skip
        # (the file's summary found them when this project made it: a full build's files)
        class_calls = self._class_calls.pop(path, None)
        if "__set_name__" in methods:
            if class_calls is None:
                class_calls = class_body_calls(fi, [])
            files = self.files
            for b in class_calls:
                r = self.eval_chain(fi, b.scope, b.value, b.line, 0)
                if r is None or r[0][0] != "sym":
                    continue
                s = files[r[0][1]].syms.get(r[0][2])  # (_kind and uid written out: 9K each)
                if s and s.kind == "class":
                    src = f"{path}::{fi.parent.get(b.scope, '')}"
                    self._implicit_call(r[0][1], r[0][2], "__set_name__", r[1], edges, src,
                                        b.line)  # fmt: skip

    def _member_owners(self, path: str, local: str, name: str) -> frozenset:
        """(path, class) of the ancestors of class `local` (its bases, theirs, ...) whose
        body defines a member `name`: the classes an MRO after the class itself holds are
        among the ancestors (engine/hierarchy.py c3: all of them when no cycle is met), so
        with none a lookup of `name` from `super` finds nothing, and with one it finds that
        one's. (Cheaper than the MRO, which most classes with bases in a file of models
        never need; the sets are shared down a hierarchy.) Kept in the memo under ("member
        owners", path, local, name), none on a cycle (the protocol written out, as in
        values.py class_member: 9K frames per Django)."""
        memo = self.memo
        key = ("member owners", path, local, name)
        table = memo.table
        hit = table.get(key, MISSING)
        if hit is not MISSING:
            if hit is BUSY:
                memo.cuts += 1
                return _NONE
            return hit
        table[key] = BUSY
        cuts = memo.cuts
        try:
            files = self.files
            out = _NONE
            info = table.get(("bases", path, local))  # (a frame per hit, most)
            if info is None or info is BUSY:
                info = self._bases_info(path, local)
            for base in info[0]:
                found = self._member_owners(base[0], base[1], name)
                if name in files[base[0]].members.get(base[1], NO_NAMES):
                    found = found | {base}
                if found and found is not out:
                    out = found if not out else out | found
        except BaseException:
            table.pop(key, None)
            raise
        if memo.cuts == cuts:
            table[key] = out
        else:
            del table[key]
        return out

    def _setter(self, getter, name: str):
        """The definition decorated `@name.setter` beside a property's getter (`m#2`)."""
        _, path, local = getter
        syms = self.files[path].syms
        n = 2
        while f"{local}#{n}" in syms:
            s = syms[f"{local}#{n}"]
            if f"{name}.setter" in s.decorators:
                return ("sym", path, s.local)
            n += 1
        return None

    def construction_edges(self, cls_ent, edges: Edges, src: str, line: int,
                           rule: str | None = None) -> None:  # fmt: skip
        """What constructing `cls_ent` runs: its `__init__`, a repository `__new__`, a
        dataclass's `__post_init__` (each by `rule` at most, when given)."""
        _, path, cls = cls_ent
        # the same for every construction of the class (30K on Django): kept per class
        found = self._constructor_calls(path, cls)
        for dst, how in found:
            edges.call(src, dst, weakest(rule, how) if rule else how, line)

    @memoized('("construct", path, cls)', "()")
    def _constructor_calls(self, path: str, cls: str) -> tuple[tuple[str, str], ...]:
        """(target, rule) of the methods constructing an instance of `cls` runs."""
        out = []
        init = self.class_member(path, cls, "__init__", 0)
        if init is not None and init[0][0] == "sym" and self._kind(init[0]) == "method":
            out.append((self.ent_uid(init[0]), "constructor"))
        names = ["__new__"]
        files = self.files
        # a dataclass in the MRO runs `__post_init__` (loops, not any() over generators; the
        # test written out: a frame per class of the MRO, 9.6K per Django)
        for p, c in self.mro(path, cls):
            sym = files[p].syms.get(c)
            if sym is None:
                continue
            for d in sym.decorators:
                if d.rstrip("()").rpartition(".")[2] == "dataclass":
                    break
            else:
                continue
            names.append("__post_init__")
            break
        for name in names:
            m = self.class_member(path, cls, name, 0)
            if m is not None and m[0][0] == "sym" and self._kind(m[0]) == "method":
                out.append((self.ent_uid(m[0]), _member_rule("constructor", m)))
        return tuple(out)

    def _implicit_call(self, path, cls, name, rule, edges, src, line) -> bool:
        """A CALLS edge to method `name` of class `cls` (through its MRO), if it has one."""
        m = self.memo.table.get(("member", path, cls, name), MISSING)  # (a frame per hit)
        if m is MISSING or m is BUSY:
            m = self.class_member(path, cls, name, 0)
        if m is None or m[0][0] != "sym":
            return False
        p, local = m[0][1], m[0][2]  # (_kind, ent_uid and edges.call written out: 4K each)
        s = self.files[p].syms.get(local)
        if not (s and s.kind == "method"):
            return False
        rule = _member_rule(rule, m)
        edges.append(("CALLS", src, f"{p}::{local}", CONFIDENCE[rule], rule, line))
        return True
