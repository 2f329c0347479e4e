"""Python containers and unpacking (a mixin of PythonProject): what items hold.

Extraction binds a literal collection to its name (`lit:`) and its items under their keys
(`item:KEY:VALUE`, lang/python/items.py); `x[k] = v` and `x.append(v)` / `.add(v)` /
`.insert(i, v)` / `.appendleft(v)` in the same file store more items (index.py gathers
them as `item_adds`). A container is the entity `("lit", path, scope, name, line)`:

- `x[k]` is the item stored under literal key k when only literal keys were stored (none
  when k is not among them: its value is no name the facts hold), else one of all its
  items (`alts`, engine/values.py: a chain does not keep the key);
- iterating it gives one of its items; `.values()` too, `.items()` pairs each key with one;
  `.get(k)` / `.pop(k)` / `.setdefault(k, v)` one of its items;
- unpacking (`a, b = value`, `at:N:chain`) takes the item at position N (nested patterns
  unpack the value at their position);
- `x = y[k]` (`key:K:chain`) takes the item stored under literal key K, else any item
  (not one stored later in the read's own scope). An item read we cannot follow leaves
  the name's earlier binding in effect (names.py), as it was before item reads bound.

Items evaluate like any value (a function, a class, an instance of `C()`), under the rule
`value-flow` at most: which item is taken depends on data the resolver does not follow.
"""

from __future__ import annotations

from codeimpact.indexer.lang.engine.memo import memoized
from codeimpact.indexer.lang.engine.rules import CONFIDENCE, weakest
from codeimpact.indexer.lang.engine.values import ALTS, alternatives, each, members
from codeimpact.indexer.lang.python.index import MAX_DEPTH, NO_NAMES, Entity, FileIndex

LIT, VIEW = "lit", "litview"
CONTAINER_KINDS = frozenset((LIT, VIEW, ALTS))
# Values that say nothing (a parameter, a name bound to what we cannot follow): an item that
# is one of them is an unknown alternative, so a method that no known item has may still be
# guessed on the receiver (unique-name, resolve.py).
_UNKNOWN = frozenset(("param", "unknown"))
_VIEWS = frozenset(("get", "pop", "setdefault", "values", "items", "copy"))
# Sequences known by their declared type (values.py eval_type): `tuple[A, B]`, `list[A]`.
_DECLARED = frozenset(("tup", "seq"))


class Containers:
    """Items of literal containers and of unpacked values."""

    @memoized('("items", lit)', "()", "depth > MAX_DEPTH", per_file=True, MAX_DEPTH=MAX_DEPTH)
    def container_items(self, lit: Entity, depth: int) -> tuple:
        """((key, entity, rule, scope, line), ...) of the items a container holds, each with
        where it was stored."""
        out = []
        _, path, scope, name, line = lit
        fi = self.files[path]
        for b in self._stored(fi, lit, depth):
            k, _, chain = b.value[5:].partition(":")
            if chain == "[]":  # a nested literal, bound to its slot
                slot = (LIT, path, b.scope, f"{b.name}[{k}]", b.line)
                out.append((k, slot, "scope", b.scope, b.line))
                continue
            r = self.eval_chain(fi, b.scope, chain, b.line, depth + 1)
            ent = r[0] if r is not None else None
            if ent is not None and b.is_call:
                ent = self.call_result(ent, depth + 1)
            if ent is None or ent[0] in _UNKNOWN:  # kept: the items are not all known
                out.append((k, ("unknown", path, b.scope, chain), "value-flow", b.scope, b.line))
            else:
                out.append((k, ent, r[1], b.scope, b.line))
        return tuple(out)

    def _stored(self, fi: FileIndex, lit: Entity, depth: int) -> list:
        """The `item:` bindings of a container: its literal's, then those stored into it."""
        _, _, scope, name, line = lit
        out = []  # (loops, not comprehensions: a function made for each, 9K per Django)
        if name.startswith("self."):
            cls = fi.parent.get(scope, "")
            for b in fi.self_attrs.get(cls, NO_NAMES).get(name[5:], ()):
                if b.line == line and b.scope == scope and b.value.startswith("item:"):
                    out.append(b)
        else:
            for c in fi.names.get(scope, NO_NAMES).get(name, ()):
                if c[1] == "bind":
                    b = c[2]
                    if b.line == line and b.scope == scope and b.value.startswith("item:"):
                        out.append(b)
        for b in fi.item_adds.get(name, ()):
            if name.startswith("self."):
                if fi.parent.get(b.scope) == fi.parent.get(scope):  # a method of the class
                    out.append(b)
                continue
            r = self.lookup_name(fi, b.scope, name, b.line, depth + 1)
            if r is not None and r[0] == lit:
                out.append(b)
        return out

    def item_of(self, ent: Entity, reason: str, key: str | None, depth: int, before=None):
        """(entity, rule) of the item under `key` (None: any item) of a container; `before`
        (scope, line): a read there, which no later store in its own scope reaches."""
        if ent[0] == ALTS:
            found = [self.item_of(e, reason, key, depth, before) for e in ent[1]]
            return _joined([f for f in found if f is not None])
        if ent[0] != LIT:
            return None
        items = self.container_items(ent, depth + 1)
        # (loops, not comprehensions nor generators: a function made for each, ~20K per
        # Django)
        if before is not None:
            # (`form = defaults["form"]` ... `defaults["form"] = Subclass(form)`)
            scope, line = before
            kept = []
            for i in items:
                if i[3] != scope or i[4] <= line:
                    kept.append(i)
            items = kept
        if key is not None:
            # every item's key is known: one not among them holds what the facts do not
            # name (`return None, h`: the item at 0 is no function), not any other item
            exact = []
            for i in items:
                if i[0] == "*":
                    break
                if i[0] == key:
                    exact.append(i)
            else:
                return _joined_items(exact, "alias") if exact else None
        return _joined_items(items)

    def container_attr(self, ent: Entity, attr: str, reason: str, depth: int):
        """`container.attr`: a view for the methods that hand out items, else a builtin."""
        if ent[0] == ALTS:
            found = [self.getattr(e, attr, reason, depth + 1) for e in ent[1]]
            return _joined([f for f in found if f is not None], reason)
        if ent[0] == LIT and attr in _VIEWS:
            return (VIEW, *ent[1:], attr), reason
        return ("builtin", attr), reason

    def container_call(self, ent: Entity, depth: int):
        """The value of calling a container view or one of several values."""
        if ent[0] == ALTS:
            return each(ent, lambda e: self.call_result(e, depth + 1))
        if ent[0] == VIEW:
            lit, method = (LIT, *ent[1:5]), ent[5]
            if method in ("values", "copy"):
                return lit
            if method == "items":
                return (VIEW, *ent[1:5], "items()")
            r = self.item_of(lit, "scope", None, depth + 1)
            return r[0] if r is not None else None
        return None

    def container_iter(self, ent: Entity, index: int, depth: int):
        """An element of `for x in ent` (index >= 0: its position in a tuple target)."""
        if ent[0] == ALTS:
            found = []  # (`each` written out: a lambda made per call)
            for e in ent[1]:
                found.append(self.iter_item(e, index, depth + 1))
            return alternatives(found)
        if ent[0] == VIEW:
            if ent[5] != "items()":
                return None
            if index != 1:  # the key: a string or number, nothing we follow
                return None
            r = self.item_of((LIT, *ent[1:5]), "scope", None, depth + 1)
            return r[0] if r is not None else None
        r = self.item_of(ent, "scope", None, depth + 1)
        if r is None:
            return None
        if index < 0:
            return r[0]
        return alternatives((self.unpacked(r[0], index, depth + 1),))  # (`each` of the one)

    def unpacked(self, ent: Entity, index: int, depth: int):
        """The item at `index` of a value unpacked into a tuple of names."""
        if ent[0] == LIT:
            r = self.item_of(ent, "scope", str(index), depth + 1)
            return r[0] if r is not None else None
        if ent[0] == ALTS:
            found = []  # (`each` written out: a lambda made per call)
            for e in ent[1]:
                found.append(self.unpacked(e, index, depth + 1))
            return alternatives(found)
        if ent[0] == "tup" and index < len(ent[3]):
            return self.eval_type(self.files[ent[1]], ent[2], ent[3][index], depth + 1)
        if ent[0] == "seq":
            return self.eval_type(self.files[ent[1]], ent[2], ent[3], depth + 1)
        return None

    def container_binding(self, fi: FileIndex, b, depth: int):
        """The value of a binding of a container form (`lit:`, `item:`, `at:N:`), or None."""
        value = b.value
        if value == "lit:":
            return (LIT, fi.path, b.scope, b.name, b.line), "scope"
        if value.startswith("at:"):
            _, index, chain = value.split(":", 2)
            r = self.eval_chain(fi, b.scope, chain, b.line, depth + 1)
            if r is None:
                return None
            ent = self.call_result(r[0], depth + 1) if b.is_call else r[0]
            item = self.unpacked(ent, int(index), depth + 1) if ent is not None else None
            if item is None:
                return None
            # the item at a position of a declared tuple (`-> tuple[A, B]`) has that
            # position's declared type; one of a literal's items is a value that flowed
            declared = ent[0] in _DECLARED
            return item, weakest(r[1], "local-type" if declared else "value-flow")
        if value.startswith("key:"):  # `x = y[k]`: the item under k (`*`: any item)
            _, k, chain = value.split(":", 2)
            r = self.eval_chain(fi, b.scope, chain, b.line, depth + 1)
            if r is None:
                return None
            ent = self.call_result(r[0], depth + 1) if b.is_call else r[0]
            if ent is None:
                return None
            if ent[0] == LIT or ent[0] == ALTS:
                key = None if k == "*" else k
                found = self.item_of(ent, "scope", key, depth + 1, (b.scope, b.line))
                if found is None or all(e[0] in _UNKNOWN for e in members(found[0])):
                    return None  # (names.py: the name's earlier binding stays in effect)
                return found[0], weakest(r[1], found[1])
            item = self.subscript_item(ent, depth + 1)
            return (item, weakest(r[1], "local-type")) if item is not None else None
        return None  # `item:` bindings are read through their container


def _joined(found: list, rule: str = "value-flow"):
    """(entity, rule) of one of the values found, under `rule` at most; None for none."""
    ents = []  # (a loop, not a generator: a function made per call)
    for e, r in found:
        ents.append(e)
        rule = weakest(rule, r)
    ent = alternatives(ents)
    return (ent, rule) if ent is not None else None


def _joined_items(items, rule: str = "value-flow"):
    """`_joined` of container items ((key, entity, rule, scope, line))."""
    ents = []
    for i in items:
        ents.append(i[1])
        if CONFIDENCE[i[2]] < CONFIDENCE[rule]:  # (weakest written out: 10K per Django)
            rule = i[2]
    ent = alternatives(ents)
    return (ent, rule) if ent is not None else None
