"""Python values: chains, members through the MRO, call results and declared types (a mixin
of PythonProject).

Chains are followed step by step through modules, classes (C3 MRO), instances whose class is
evident (constructed, declared by an annotation, returned), containers whose item type is
declared (`list[Tag]`, `dict[str, Tag]`) and call results. Every step names its rule; a
chain takes its weakest rule's confidence.
"""

from __future__ import annotations

from codeimpact.indexer.lang.api import native_core
from codeimpact.indexer.lang.engine.chains import fold
from codeimpact.indexer.lang.engine.memo import BUSY, MISSING, memoized
from codeimpact.indexer.lang.engine.receivers import returned_value
from codeimpact.indexer.lang.engine.rules import CONFIDENCE, weakest
from codeimpact.indexer.lang.engine.values import ALTS, alternatives
from codeimpact.indexer.lang.python.containers import CONTAINER_KINDS
from codeimpact.indexer.lang.python.index import (
    ARGUMENTS_KEPT,
    CLASS_FIRST,
    MAX_DEPTH,
    NO_NAMES,
    PASS_THROUGH,
    RAISES,
    REFERRERS,
    Entity,
    FileIndex,
    candidate_rank,
    parse_steps,
    split_top,
)

# Annotation heads, by what a value of that type holds.
_UNWRAP = frozenset(
    ["Optional", "Annotated", "Final", "ClassVar", "Required", "NotRequired", "ReadOnly"]
)
_SEQ = frozenset(
    """list List set Set frozenset FrozenSet Sequence MutableSequence Iterable Iterator
    Collection Generator AsyncIterator AsyncIterable AsyncGenerator Deque deque AbstractSet
    MutableSet KeysView ValuesView Reversible""".split()  # noqa: SIM905
)
_MAP = frozenset(
    ["dict", "Dict", "Mapping", "MutableMapping", "defaultdict", "DefaultDict", "OrderedDict"]
    + ["ChainMap"]
)
_TYPE = frozenset(("type", "Type"))
# What a call's result may be for members to be looked up on it.
_RESULT_KINDS = frozenset(("inst", "sym", "seq", "map", "tup", *CONTAINER_KINDS))
_LOCAL_TYPE_CONFIDENCE = CONFIDENCE["local-type"]
_NO_MEMBER = (None, None, None)  # an instance without that attribute (getattr)
# What calling a generator function gives: ("gen", path, function), iterated for its yields.
GEN = "gen"
PROXIED = "proxied"  # (PROXIED, instance): a LocalProxy's `_get_current_object` method
# (RAISED, path, class): what `with pytest.raises(E) as excinfo` binds; `.value` is an E
# (the class or a subclass), `.type` the class
RAISED = "raised"
# what may follow a chain's first member: its end, the next member, a call, a subscript
_CHAIN_END = frozenset(("", ".", "(", "["))
# (instance_attr: a lookup deeper than this evaluates its bindings near the depth bound,
# where a cut may come from the bound instead: `_reads_own_attr` then does not apply)
_OWN_READ_DEPTH = MAX_DEPTH - 8
# the attributes getattr answers on an instance without its instance member (`_reads_own_attr`)
_NOT_MEMBER_READS = frozenset(("__class__", "_get_current_object"))


def _class_named(dotted: str) -> bool:
    """A library name written like a class (`Session`, `OrderedDict`; not `TIMEOUT`,
    `loads`): calling it makes an instance of it."""
    last = dotted.rpartition(".")[2]
    return last[:1].isupper() and not last.isupper()


class Values:
    """What chains, members, calls and annotations evaluate to."""

    def _eval_chain(self, fi: FileIndex, scope: str, chain: str | None, line: int | None,
                    depth: int = 0, reads=None, steps=None):  # fmt: skip
        """(entity, rule) of a chain; `reads` (a list) collects the property getters its
        attribute reads run. A caller that holds the chain's steps (parse_steps) passes them
        instead (`chain` None, `steps`): engine/chains.py's evaluate_steps, one frame for
        both (a chain with steps was two, ~70K per Django), with the steps after the head
        kept per value while a file is resolved (`_folds`). `eval_chain` is this method in
        C (native/core_chain.c) where the extension has it."""
        if steps is None:
            if not chain or chain[0] == "?":  # (engine/chains.py evaluate)
                return None
            if depth > MAX_DEPTH:
                return self._cut()
            if chain.isidentifier() or ("." not in chain and "(" not in chain and "[" not in chain):
                # a name alone (two thirds of the chains evaluated): the evaluator's fold
                # would only look it up (the head, no step, no suffix); (an identifier holds
                # none of the three: one test for most); the file's lookups read here first
                # (names.py lookup_name's, a frame per hit: ~3/5 of these, 75K per Django)
                seen = self._lookups
                if seen is None:
                    return self.lookup_name(fi, scope, chain, line, depth)
                key = (fi.path, scope, chain)
                hit = seen.get(key, MISSING)
                if hit is not MISSING:
                    return hit
                return self.lookup_name(fi, scope, chain, line, depth, key)
            steps = parse_steps(chain)
            if not steps:
                return None
        name, suffix = steps[0]
        seen = self._lookups  # (the head's lookup: see above; lookup_name cuts a deep one)
        if seen is not None and depth <= MAX_DEPTH:
            key = (fi.path, scope, name)
            found = seen.get(key, MISSING)
        else:
            key, found = None, MISSING
        if len(steps) == 1 and not suffix:  # a name alone (see above)
            if found is not MISSING:
                return found
            return self.lookup_name(fi, scope, name, line, depth, key)
        if name == "super":
            found = self.chain_head(fi, scope, steps[0], line, depth, reads)
        else:  # (chain_head's lookup written out: most heads)
            if found is MISSING:
                found = self.lookup_name(fi, scope, name, line, depth, key)
            if found is not None and suffix:
                found = self._apply_suffix(found[0], found[1], suffix, depth)
        if found is None or len(steps) == 1:
            return found
        # the steps after the head, kept per head value (`_folds`; written out here, and the
        # engine's fold with Python's chain_step and chain_end in it: three frames per chain
        # evaluated, ~100K chains per Django)
        seen = self._folds
        if seen is None or depth >= MAX_DEPTH:
            return fold(self, found, steps[1:], depth, reads)
        # (keyed by the chain's text when the caller gave it: its steps after the head follow
        # from it, and hashing a string is cheaper than the steps, a tuple of pairs sliced
        # per chain; ~100K per Django, 3/5 of them answered here)
        key = (found, chain if chain is not None else steps[1:], reads is not None)
        hit = seen.get(key)
        if hit is not None:
            if hit[1]:
                reads.extend(hit[1])
            return hit[0]
        steps = steps[1:]
        cuts = self.memo.cuts
        got: list | None = [] if reads is not None else None
        for name, suffix in steps:
            if got is not None:  # (member_reads' tests written out)
                if found[0][0] == "inst":
                    if name in self.member_names:
                        self.property_read(found, name, depth, got)
                elif found[0][0] == ALTS:
                    self.member_reads(found, name, depth, got)
            found = self.getattr(found[0], name, found[1], depth + 1)
            if found is not None and suffix:
                found = self._apply_suffix(found[0], found[1], suffix, depth)
            if found is None:
                break
        if got:
            reads.extend(got)
        if self.memo.cuts == cuts:
            seen[key] = (found, tuple(got) if got else ())
        return found

    eval_chain = _eval_chain  # (native/core_chain.c's where the extension has it: below)

    # (head value, steps after the head, with reads) -> (value, reads): what the rest of a
    # chain gives depends on the head's value alone, not on the scope or line it was looked
    # up in: `self.client` of every test method of a class, `response.status_code` after
    # each `response = self.client.get(...)`. Kept while one file is resolved, like
    # names.py's lookups (`forget_lookups`); nothing met with a cut is kept. (An instance
    # attribute, set in PythonProject's __init__: CPython 3.11 specialises no read of an
    # instance attribute whose name the class also binds.)
    _folds: dict | None

    # the engine's evaluator (engine/chains.py): steps are parse_steps' (name, suffix); the
    # head is `super()` or a name, each step a member (a property read recorded in the
    # option `reads` when the value is an instance), and a suffix's calls and subscripts
    # apply after each; too deep is a memo cut
    chain_depth = MAX_DEPTH

    def chain_cut(self):
        return self._cut()

    def chain_steps(self, chain: str):
        return parse_steps(chain)

    def chain_head(self, fi, scope, step, line, depth, _reads):
        name, suffix = step
        if name == "super" and suffix.startswith("()"):
            cls = self.enclosing_class(fi, scope)
            if cls is None:
                return None
            r = ("super", fi.path, cls), "super"
            suffix = suffix[2:]
        else:
            r = self.lookup_name(fi, scope, name, line, depth)
            if r is None:
                return None
        return self._apply_suffix(r[0], r[1], suffix, depth) if suffix else r

    def chain_step(self, found, step, depth, reads):
        name, suffix = step
        if reads is not None:
            self.member_reads(found, name, depth, reads)
        r = self.getattr(found[0], name, found[1], depth + 1)
        return self._apply_suffix(r[0], r[1], suffix, depth) if r is not None and suffix else r

    def member_reads(self, found, name, depth, reads) -> None:
        """The getters reading member `name` of the value `found` runs, to `reads`."""
        kind = found[0][0]
        if kind == "inst":
            if name in self.member_names:  # (property_read's first test: a frame less)
                self.property_read(found, name, depth, reads)
        elif kind == ALTS:
            # one of several values (a helper's parameter): each instance's getter may
            # run, as an override may (dispatch); value-flow would make it a relay
            rule = weakest(found[1], "dispatch")
            for arm in found[0][1]:
                if arm[0] == "inst":
                    self.property_read((arm, rule), name, depth, reads)

    def chain_end(self, found, depth, _reads):
        return found

    def _apply_suffix(self, ent, reason, suffix, depth):
        while suffix:
            if ent[0] in CONTAINER_KINDS:  # which item or alternative: not followed
                ent = (
                    self.call_result(ent, depth + 1)
                    if suffix.startswith("()")
                    else (self.subscript_item(ent, depth + 1))
                )
                reason = weakest(reason, "value-flow")
            elif suffix.startswith("()"):
                ent = self.call_result(ent, depth + 1)
                if CONFIDENCE[reason] > _LOCAL_TYPE_CONFIDENCE:  # (weakest written out: 4K)
                    reason = "local-type"
            elif ent[0] == "sym" and self._kind(ent) == "class":
                pass  # a generic class specialised (`A[int]`) is still the class
            else:
                ent = self.subscript_item(ent, depth + 1)
                reason = weakest(reason, "local-type")
            if ent is None:
                return None
            suffix = suffix[2:]
        return ent, reason

    def class_member(self, path: str, cls: str, attr: str, depth: int):
        """(entity, found in a base, rule) of `attr` on class `cls` through its MRO, or None;
        kept in the memo under ("member", path, cls, attr) (engine/memo.py's protocol written
        out: the wrapper and the function were two frames per member computed, 31K per
        Django).

        Methods and nested classes are definitions; class attributes bound to a value
        (`response_class = Response`, `json: JSONProvider = ...`) are followed.
        """
        memo = self.memo
        key = ("member", path, cls, attr)
        table = memo.table
        hit = table.get(key, MISSING)
        if hit is not MISSING:
            if hit is BUSY:
                memo.cuts += 1
                return None
            return hit
        table[key] = BUSY
        cuts = memo.cuts
        out = None
        try:
            # engine/hierarchy.py first_member written out (a class's MRO: 46K walks of
            # Django, ~5 classes each): the first class whose body binds `attr`. A member
            # definition is the answer; a value bound there is followed, and one we cannot
            # follow shadows the bases' attribute of that name (no answer)
            files = self.files
            # (the memo's entry for the MRO read here, its wrapper called on a miss only: a
            # frame per hit, ~60K per Django here, in instance_attr and super_members)
            order = table.get(("mro", path, cls))
            if order is None or order is BUSY:
                order = self.mro(path, cls)
            for i, (kpath, k) in enumerate(order):
                cfi = files[kpath]
                local = cfi.members.get(k, NO_NAMES).get(attr)
                if local is not None:
                    out = ("sym", kpath, local), i > 0, "scope"
                    break
                cands = cfi.names.get(k, NO_NAMES).get(attr)
                if cands:
                    for cand in self._pick(cands, None):
                        r = self._candidate(cfi, cand, True, depth + 1)
                        if r is not None:
                            if r[0] is not None:
                                out = r[0], i > 0, r[1]
                            break
                    break
        except BaseException:
            table.pop(key, None)
            raise
        if memo.cuts == cuts:
            table[key] = out
        else:
            del table[key]
        return out

    def instance_attr(self, path: str, cls: str, attr: str, depth: int):
        """The value of `self.attr` set in a method of `cls` or of a base, or None; kept
        while the file is resolved (the memo's `per_file` table under ("iattr", path, cls,
        attr): the protocol written out, as in class_member, 11K frames per Django)."""
        memo = self.memo
        key = ("iattr", path, cls, attr)
        table = memo.file_table
        hit = table.get(key, MISSING)
        if hit is not MISSING:
            if hit is BUSY:
                memo.cuts += 1
                return None
            return hit
        table[key] = BUSY
        cuts = memo.cuts
        out = None
        try:
            order = memo.table.get(("mro", path, cls))  # (see class_member)
            if order is None or order is BUSY:
                order = self.mro(path, cls)
            files = self.files
            for p, c in order:
                cfi = files[p]
                binds = cfi.self_attrs.get(c, NO_NAMES).get(attr)
                if not binds:
                    continue
                # the most telling binding first, then in source order (sorted is stable;
                # most attributes are set once: no sort, no key's frames)
                own = c == cls and p == path and depth < _OWN_READ_DEPTH
                for b in binds if len(binds) == 1 else sorted(binds, key=_bind_rank):
                    if own and _reads_own_attr(cfi, b, attr):
                        continue
                    r = self._binding_value(cfi, b, depth + 1)
                    # a parameter stored (`self.x, self.y = x, y`) says less than a later
                    # binding
                    if r is not None and r[0][0] != "param":
                        out = r
                        break
                if out is not None:
                    break
        except BaseException:
            table.pop(key, None)
            raise
        if memo.cuts == cuts:
            table[key] = out
        else:
            del table[key]
        return out

    def getattr(self, ent: Entity, attr: str, reason: str, depth: int):
        if depth > MAX_DEPTH:
            return self._cut()
        kind = ent[0]
        # (instances and classes first: most reads; every branch below returns)
        if kind == "inst":
            path, local = ent[1], ent[2]
            if attr == "__class__":
                return ("sym", path, local), reason
            # the member of the class is the same for every instance step (100K on Django):
            # kept per (class, attribute), the receiver's rule applied after
            found = self._instance_member(path, local, attr, depth)
            value, how, m = found
            if how == "member":  # (_member_rule written out: a frame per read, 14K per Django)
                _, in_base, rule = m
                if CONFIDENCE[rule] < CONFIDENCE[reason]:
                    reason = rule
                if in_base and CONFIDENCE[reason] >= CONFIDENCE["inheritance"]:
                    return value, "inheritance"
                return value, reason
            if how == "property":
                return value, weakest(_member_rule(reason, m), "local-type")
            if how == "attribute":
                # (weakest written out: a frame per read, 6.6K per Django)
                return value, reason if CONFIDENCE[reason] <= CONFIDENCE[m] else m
            if how == "unknown":
                return value, reason
            if attr == "_get_current_object":  # a werkzeug LocalProxy typed by its annotation
                return (PROXIED, ent), reason  # (`current_app: Flask = LocalProxy(...)`)
            return None
        if kind == "sym":
            path, local = ent[1], ent[2]
            sym = self.files[path].syms.get(local)
            if sym is not None and sym.decorators and sym.kind != "class":
                made = self.made_instance((ent, reason))  # `cli.params` of a click command
                return self.getattr(made[0], attr, made[1], depth + 1) if made else None
            if sym is None or sym.kind != "class":
                return None
            r = self.memo.table.get(("member", path, local, attr), MISSING)  # (see above)
            if r is MISSING or r is BUSY:
                r = self.class_member(path, local, attr, depth + 1)
            if r is not None:
                return r[0], _member_rule(reason, r)
            return None
        if kind == "param" and attr == "param" and ent[3] == "request":  # pytest's params=
            r = self.request_param(ent[1], ent[2], depth + 1)
            return (r[0], weakest(reason, r[1])) if r is not None else None
        if kind in CONTAINER_KINDS:
            return self.container_attr(ent, attr, reason, depth)
        if kind == "mod":
            path = ent[1]
            fi = self.files[path]
            r = self.module_name_entity(path, attr, True, depth + 1)
            if r is not None:
                return r[0], weakest(reason, r[1])
            sub = f"{fi.module}.{attr}" if fi.module else attr
            if sub in self.module_file:
                return ("mod", self.module_file[sub]), reason
            return None
        if kind == "ext":
            return ("ext", f"{ent[1]}.{attr}"), reason
        if kind == RAISED:
            if attr == "value":
                return ("inst", ent[1], ent[2], False), reason
            return (("sym", ent[1], ent[2]), reason) if attr == "type" else None
        if kind == "builtin":
            return ("builtin", f"{ent[1]}.{attr}"), reason
        if kind == "seq" and attr == "pop":  # `list.pop()` hands out an item
            return ("view", ent[1], ent[2], "int", ent[3], "get"), reason
        if kind in ("seq", "tup"):
            return ("builtin", attr), reason
        if kind == "map":
            if attr in ("items", "keys", "values"):
                return ("view", ent[1], ent[2], ent[3], ent[4], attr), reason
            if attr in ("get", "pop", "setdefault"):
                return ("view", ent[1], ent[2], ent[3], ent[4], "get"), reason
            return ("builtin", attr), reason
        if kind == "super":  # the bases' members, in the order of the class's MRO
            files = self.files
            for p, c in self.mro(ent[1], ent[2])[1:]:  # (first_member written out)
                m = files[p].members.get(c, NO_NAMES).get(attr)
                if m is not None:
                    return ("sym", p, m), reason
            return None
        return None

    def _instance_member(self, path: str, local: str, attr: str, depth: int) -> tuple:
        """(value, how, member or rule) of `attr` on an instance of class `local` (getattr):
        a member of the class (through its MRO), a property's value, a `self.attr` binding;
        kept in the memo under ("instance member", path, local, attr), _NO_MEMBER on a cycle
        (the protocol written out, as in class_member: 19K frames per Django)."""
        memo = self.memo
        key = ("instance member", path, local, attr)
        table = memo.table
        hit = table.get(key, MISSING)
        if hit is not MISSING:
            if hit is BUSY:
                memo.cuts += 1
                return _NO_MEMBER
            return hit
        table[key] = BUSY
        cuts = memo.cuts
        try:
            # (the memo's entry read here, the wrapper called on a miss only: a frame per hit)
            r = table.get(("member", path, local, attr), MISSING)
            if r is MISSING or r is BUSY:
                r = self.class_member(path, local, attr, depth + 1)
            if r is None:
                r = self.instance_attr(path, local, attr, depth + 1)
                out = (r[0], "attribute", r[1]) if r is not None else _NO_MEMBER
            elif self._is_property(r[0]):  # reading it runs the getter
                value = self.call_result(r[0], depth + 1)
                if value is None:
                    out = ("unknown", path, local, attr), "unknown", None
                else:
                    out = value, "property", r
            else:
                out = r[0], "member", r
        except BaseException:
            table.pop(key, None)
            raise
        if memo.cuts == cuts:
            table[key] = out
        else:
            del table[key]
        return out

    def _is_property(self, ent: Entity) -> bool:
        if ent[0] != "sym":
            return False
        sym = self.files[ent[1]].syms.get(ent[2])
        if sym is None or sym.kind != "method":
            return False
        for d in sym.decorators:  # noqa: SIM110 (most methods have none; no generator made)
            if d == "property" or d.endswith("cached_property"):
                return True
        return False

    def call_result(self, ent: Entity, depth: int) -> Entity | None:
        """The value of calling `ent`: an instance for a class, what a function returns."""
        if depth > MAX_DEPTH:
            return self._cut()
        kind = ent[0]
        if kind in CONTAINER_KINDS:
            return self.container_call(ent, depth)
        if kind == PROXIED:  # `proxy._get_current_object()`: the object it stands for
            return ent[1]
        if kind == "view":
            _, path, scope, k, v, m = ent
            if m == "items":
                return ("seq", path, scope, f"tuple[{k},{v}]")
            if m == "keys":
                return ("seq", path, scope, k)
            if m == "values":
                return ("seq", path, scope, v)
            return self.eval_type(self.files[path], scope, v, depth + 1)
        if kind == "inst":
            m = self.class_member(ent[1], ent[2], "__call__", depth + 1)
            return self.call_result(m[0], depth + 1) if m is not None else None
        if kind == "ext":  # an instance of a library class: one the entry-point table
            # follows, or one named like a class (`OrderedDict()`: its methods are named
            # `collections.OrderedDict.move_to_end`, known external callees)
            return ent if ent[1] in self.entry_table.instances or _class_named(ent[1]) else None
        if kind != "sym":
            return None
        # what calling a definition gives, kept in the memo under ("result", ent) (the
        # protocol written out here, as in class_member: the wrapper and the function were
        # two frames per result computed, 4.6K per Django)
        memo = self.memo
        key = ("result", ent)
        table = memo.table
        hit = table.get(key, MISSING)
        if hit is not MISSING:
            if hit is BUSY:
                memo.cuts += 1
                return None
            return hit
        table[key] = BUSY
        cuts = memo.cuts
        out = None
        try:
            fi = self.files[ent[1]]
            sym = fi.syms.get(ent[2])
            if sym is not None and sym.kind == "class":
                out = ("inst", ent[1], ent[2], True)
            elif sym is not None and sym.kind in ("function", "method"):
                out = returned_value(
                    self, fi, self.returns_of(fi, ent[2]), "ann:",
                    lambda text, r: self.eval_type(fi, r.scope, text, depth + 1),
                    _RESULT_KINDS, depth,
                )  # fmt: skip
                if out is None and ent[2] in fi.yields:  # a generator: iterating it gives
                    out = (GEN, ent[1], ent[2])  # its yields
        except BaseException:
            table.pop(key, None)
            raise
        if memo.cuts == cuts:
            table[key] = out
        else:
            del table[key]
        return out

    def yielded(self, ent: Entity, depth: int) -> Entity | None:
        """One of the values generator function `ent` (a GEN entity) yields; a yielded call
        gives its result. Several yields: one of them (alternatives)."""
        fi = self.files[ent[1]]
        found = []
        for r in fi.yields.get(ent[2], ()):
            chain = r.value[6:]  # past `yield:`
            res = self.eval_chain(fi, r.scope, chain, None, depth + 1) if chain else None
            v = res[0] if res is not None else None
            if v is not None and r.is_call:
                v = self.call_result(v, depth + 1)
            found.append(v)
        return alternatives(found)

    def returns_of(self, fi: FileIndex, local: str) -> tuple:
        """A function's return facts; a return of a library call that hands back one of its
        arguments (PASS_THROUGH: `cast(T, update_wrapper(wrapper, f))`) is read as a return
        of that argument, when it is written as a name."""
        rets = fi.returns.get(local, ())
        # (only a returned call is read through pass_through: without one the file's call
        # tables, which reading it makes, are not needed)
        for r in rets:
            if r.is_call:
                break
        else:
            return rets
        if not fi.pass_through:
            return rets
        return tuple(self._passed_through(fi, r) if r.is_call else r for r in rets)

    def passed_argument(self, fi: FileIndex, scope: str, line: int, ent: Entity, depth: int):
        """What the call of library function `ent` at (scope, line) hands back of its
        arguments (PASS_THROUGH: `partial(f, x)` stands for f when called), or None."""
        position = PASS_THROUGH.get(ent[1], -1)
        if position < 0:
            position = REFERRERS.get(ent[1], -1)
            if position < 0:
                return None
            # a weak reference: calling it gives the object back (as a proxy's method does)
            found = self._argument_at(fi, scope, line, ent, position, depth)
            return (PROXIED, found) if found is not None and found[0] == "inst" else None
        return self._argument_at(fi, scope, line, ent, position, depth)

    def _argument_at(
        self, fi: FileIndex, scope: str, line: int, ent: Entity, position: int, depth: int
    ):
        """The value passed at `position` to the call of library function `ent` at (scope,
        line) (a class or an instance), or None."""
        for callee, args in fi.pass_through.get((scope, line), ()):
            found = self.eval_chain(fi, scope, callee, line, depth + 1)
            if found is None or found[0] != ent:
                continue
            chain = next((c for k, c in args if k == position), None)
            r = self.eval_chain(fi, scope, chain, line, depth + 1) if chain else None
            if r is not None and r[0][0] in ("sym", "inst"):
                return r[0]
        return None

    def _passed_through(self, fi: FileIndex, r):
        for callee, args in reversed(fi.pass_through.get((r.scope, r.line), ())):
            called = callee.endswith("()")
            found = self.eval_chain(fi, r.scope, callee[:-2] if called else callee, r.line)
            if found is None or found[0][0] != "ext":
                continue
            position = PASS_THROUGH.get(found[0][1] + ("()" if called else ""), -1)
            chain = next((c for k, c in args if k == position), None)
            if chain is not None:
                return r._replace(value=chain, is_call=False)
        return r

    def raised_info(self, fi: FileIndex, b, depth: int):
        """(RAISED entity, rule) of `with pytest.raises(E) as excinfo` (binding `b`), when E
        is a repository class; None otherwise."""
        chain = b.value.partition(":")[2]
        if chain.rpartition(".")[2] not in ARGUMENTS_KEPT:
            return None  # (pass_through keeps no call of it: its tables need not be made)
        for callee, args in fi.pass_through.get((b.scope, b.line), ()):
            if callee != chain:
                continue
            found = self.eval_chain(fi, b.scope, callee, b.line, depth + 1)
            position = RAISES.get(found[0][1], -1) if found and found[0][0] == "ext" else -1
            arg = next((c for k, c in args if k in (position, "expected_exception")), None)
            r = (
                self.eval_chain(fi, b.scope, arg, b.line, depth + 1)
                if position >= 0 and arg
                else None
            )
            if r is not None and r[0][0] == "sym" and self._kind(r[0]) == "class":
                return (RAISED, r[0][1], r[0][2]), weakest(weakest(found[1], r[1]), "local-type")
        return None

    def subscript_item(self, ent: Entity, depth: int) -> Entity | None:
        """`x[...]`: an item of a declared container; a generic class (`A[int]`) is the class."""
        kind = ent[0]
        if kind in CONTAINER_KINDS:
            r = self.item_of(ent, "scope", None, depth + 1)
            return r[0] if r is not None else None
        if kind == "seq":
            return self.eval_type(self.files[ent[1]], ent[2], ent[3], depth + 1)
        if kind == "map":
            return self.eval_type(self.files[ent[1]], ent[2], ent[4], depth + 1)
        if kind == "sym" and self._kind(ent) == "class":
            return ent
        if kind == "inst":
            m = self.class_member(ent[1], ent[2], "__getitem__", depth + 1)
            return self.call_result(m[0], depth + 1) if m is not None else None
        return None

    def iter_item(self, ent: Entity, index: int, depth: int) -> Entity | None:
        """An element of `for x in ent` (index >= 0: position in a tuple target)."""
        kind = ent[0]
        if kind in CONTAINER_KINDS:
            return self.container_iter(ent, index, depth)
        if kind == GEN:
            return self.yielded(ent, depth + 1) if index < 0 else None
        item = None
        if kind == "seq" or kind == "map":
            item = ("type", ent[1], ent[2], ent[3])
        elif kind == "inst":
            m = self.class_member(ent[1], ent[2], "__iter__", depth + 1)
            if m is not None:
                it = self.call_result(m[0], depth + 1)
                if it is not None and it[0] == "seq":
                    item = ("type", it[1], it[2], it[3])
                elif it is not None and it[0] == GEN and index < 0:  # `def __iter__: yield`
                    return self.yielded(it, depth + 1)
        if item is None:
            return None
        _, path, scope, text = item
        fi = self.files[path]
        if index < 0:
            return self.eval_type(fi, scope, text, depth + 1)
        tup = self.eval_type(fi, scope, text, depth + 1)
        if tup is not None and tup[0] == "tup" and index < len(tup[3]):
            return self.eval_type(self.files[tup[1]], tup[2], tup[3][index], depth + 1)
        return None

    def eval_type(self, fi: FileIndex, scope: str, text: str, depth: int) -> Entity | None:
        """What a value of declared type TEXT is: an instance, a class, a typed container."""
        if not text:
            return None
        if depth > MAX_DEPTH:
            return self._cut()
        return self._eval_type(fi, scope, text, depth)

    @memoized('("type", fi.path, scope, text)', per_file=True)
    def _eval_type(self, fi, scope, text, depth):
        arms = [a for a in split_top(text, "|") if a and a != "None"]
        if len(arms) != 1:
            return self._union(fi, scope, arms, depth)
        text = arms[0]
        head, args = text, []
        if text.endswith("]") and "[" in text:
            i = text.index("[")
            head, args = text[:i], split_top(text[i + 1 : -1], ",")
        last = head.rpartition(".")[2]
        if args:
            if last in _UNWRAP or last == "Union":
                arms = [a for a in (args if last == "Union" else args[:1]) if a != "None"]
                return self._union(fi, scope, arms, depth)
            if last in _TYPE:
                r = self.eval_type(fi, scope, args[0], depth + 1)
                if r is not None and r[0] == "inst":
                    return ("sym", r[1], r[2])
                return None
            if last in _SEQ:
                return ("seq", fi.path, scope, args[0])
            if last in _MAP:
                return ("map", fi.path, scope, args[0], args[-1]) if len(args) >= 2 else None
            if last in ("tuple", "Tuple"):
                if len(args) == 2 and args[1] == "...":
                    return ("seq", fi.path, scope, args[0])
                return ("tup", fi.path, scope, tuple(args))
        r = self.eval_chain(fi, scope, head, None, depth + 1)
        if r is None:
            return None
        ent = r[0]
        if ent[0] == "sym" and self._kind(ent) == "class":
            return ("inst", ent[1], ent[2], False)
        if ent[0] == "ext" and ent[1] in self.entry_table.instances:
            return ent  # a library class the entry-point table follows (`ctx: click.Context`)
        return None

    def _union(self, fi, scope, arms, depth):
        """A value of one of the types `arms` (`A | B`, `Union[A, B]`): one of the arms that
        resolve (alternatives: a member call reaches each arm's method, and its overrides);
        the arms we cannot follow (`str`, a library type) add nothing to call."""
        found = [self.eval_type(fi, scope, a, depth + 1) for a in arms]
        return alternatives(found) if len(found) > 1 else found[0] if found else None


def _reads_own_attr(fi: FileIndex, b, attr: str) -> bool:
    """Whether binding `b` of `self.attr`, in a method of the class whose instance attribute
    is being looked up (instance_attr), reads that attribute on `self` first (`self.algorithm
    = self.algorithm or "sha256"`): its value is then that attribute looked up again, which
    either meets this lookup (a cycle: cut, nothing) or, asked from outside, finds no member
    and meets this lookup's own instance attribute (cut, nothing). So it holds nothing here,
    and is passed over without the cut, which left every lookup above it unkept, made again
    at each ask (Django's Field.name: every `.name` read of a field). `self` must be the
    method's instance: its first parameter, not rebound, in a plain method."""
    value = b.value
    if ":" in value or not value.startswith("self.") or attr in _NOT_MEMBER_READS:
        return False
    rest = value[5 + len(attr) :]
    if not value.startswith(attr, 5) or rest[:1] not in _CHAIN_END:
        return False
    if b.is_call and value.endswith(".getfixturevalue"):
        return False
    scope = b.scope
    s = fi.syms.get(scope)
    if s is None or s.kind != "method" or "self" in fi.names.get(scope, NO_NAMES):
        return False
    if "staticmethod" in s.decorators or "classmethod" in s.decorators or s.name in CLASS_FIRST:
        return False
    p = fi.params.get(scope, NO_NAMES).get("self")
    return p is not None and p[0] == 0


def _bind_rank(b) -> tuple:
    """candidate_rank of an instance attribute's binding (instance_attr's sort key)."""
    return candidate_rank((b.line, "bind", b))


def _member_rule(reason: str, member: tuple) -> str:
    """The rule of `obj.attr` found by class_member: the weakest step, `inheritance` when the
    attribute comes from a base (it says more than the equally confident `self`)."""
    _, in_base, rule = member
    if CONFIDENCE[rule] < CONFIDENCE[reason]:  # (weakest written out: 20K per Django)
        reason = rule
    if in_base and CONFIDENCE[reason] >= CONFIDENCE["inheritance"]:
        return "inheritance"
    return reason


# `_eval_chain` in C installed as the method (a method descriptor: its calls specialised as a
# Python method's are, no wrapper frame); the Python method where the extension is older
_chain_method = getattr(native_core(), "chain_method", None)
if _chain_method is not None:
    Values.eval_chain = _chain_method(Values, (MAX_DEPTH, parse_steps, fold, ALTS))
