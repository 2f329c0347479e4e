"""How libraries outside the repository call back into it: the shape of a language's table.

A test client calls the application it was given, a thread runs its `target`, a library
base class's method calls the methods a subclass overrides. No call site in the repository
says so, so each language keeps a small table of these entry points, as data
(`lang/<language>/entrypoints.py`, documented in docs/entrypoints.md), and its resolver
applies it with the rule `entry-point` (rules.py). Two kinds of rows:

- `CallsArgument`: calling the library callable `callee` calls the value passed at
  `position` (or as `keyword`): a function is called; an object has its `members` called
  (`__call__` when none is named).
- `CallsSelf`: the library method `method` of class `cls` calls `calls` on its own
  instance: on an instance of a repository subclass, the definitions found there run
  (the subclass's overrides, a callable attribute it declares).

A `DecoratorMakes` row says which class a library decorator makes of a function when the
class is passed by keyword (`@click.group(cls=FlaskGroup)`).

Names are the library's dotted names as a repository imports them (every spelling in
`names`); `bases` says which library classes extend which, so a row of a base class
applies to its library subclasses too.
"""

from __future__ import annotations

from collections.abc import Iterable

from codeimpact.native.record import Hashed


class CallsArgument(Hashed):
    """Calling `names` calls the argument at `position` (or passed as `keyword`)."""

    names: tuple[str, ...]
    position: int | None
    keyword: str | None
    members: tuple[str, ...]  # called on the argument; none: the argument is called
    # the argument may be a function that a library decorator made into an object (click's
    # `@command` functions): calling `member` on it runs the function
    function_stands_for_object: bool
    why: str
    __slots__ = ("names", "position", "keyword", "members", "function_stands_for_object", "why")

    def __init__(
        self,
        names: tuple[str, ...],
        position: int | None,
        keyword: str | None = None,
        members: tuple[str, ...] = (),
        function_stands_for_object: bool = False,
        why: str = "",
    ) -> None:
        self.names = names
        self.position = position
        self.keyword = keyword
        self.members = members
        self.function_stands_for_object = function_stands_for_object
        self.why = why

    def argument(self, args: Iterable[tuple[int | str, str]]) -> str | None:
        """The chain passed at this row's position or keyword, if any."""
        for key, chain in args:
            if key == self.keyword or (self.position is not None and key == self.position):
                return chain
        return None


class CallsSelf(Hashed):
    """The library method `cls`.`method` calls each of `calls` on its own instance."""

    cls: tuple[str, ...]
    method: str
    calls: tuple[str, ...]
    why: str
    __slots__ = ("cls", "method", "calls", "why")

    def __init__(
        self, cls: tuple[str, ...], method: str, calls: tuple[str, ...], why: str = ""
    ) -> None:
        self.cls = cls
        self.method = method
        self.calls = calls
        self.why = why


class DecoratorMakes(Hashed):
    """The library decorator factory `names` makes the decorated function into an instance
    of the class passed as `keyword` (`@click.group(cls=FlaskGroup)`): the library calls that
    class's methods where it would call its own (CallsSelf rows of the class's library
    bases)."""

    names: tuple[str, ...]
    keyword: str
    why: str
    __slots__ = ("names", "keyword", "why")

    def __init__(self, names: tuple[str, ...], keyword: str, why: str = "") -> None:
        self.names = names
        self.keyword = keyword
        self.why = why


class EntryTable(Hashed):
    """A language's rows, indexed by the dotted name a call resolves to."""

    arguments: tuple[CallsArgument, ...]
    hooks: tuple[CallsSelf, ...]
    # library class -> the library classes it extends (each spelling of each)
    bases: dict[str, tuple[str, ...]]
    # library classes whose instances the resolver follows (`CliRunner().invoke(cmd)`,
    # a parameter declared `ctx: click.Context`), so the rows of their methods apply
    instances: frozenset[str]
    decorators: tuple[DecoratorMakes, ...]
    # library callables binding arguments for a later call (`functools.partial(f, a)`): the
    # rows of the callable bound apply to the bound arguments, from where they are bound
    binders: frozenset[str]
    # names whose READ (an attribute, not a call) runs a CallsSelf row's calls
    # (werkzeug's `request.form`): read names of every project (lang/python/reads.py)
    read_hooks: frozenset[str]
    __slots__ = ("arguments", "hooks", "bases", "instances", "decorators", "binders", "read_hooks")
    __slots__ += ("_by_callee", "_by_method", "far_calls", "hooked_names", "_makes", "_method_rows")
    _unshown = _uncompared = __slots__[7:]  # made of the fields, by __post_init__

    def __init__(
        self,
        arguments: tuple[CallsArgument, ...] = (),
        hooks: tuple[CallsSelf, ...] = (),
        bases: dict[str, tuple[str, ...]] | None = None,
        instances: frozenset[str] = frozenset(),
        decorators: tuple[DecoratorMakes, ...] = (),
        binders: frozenset[str] = frozenset(),
        read_hooks: frozenset[str] = frozenset(),
    ) -> None:
        self.arguments = arguments
        self.hooks = hooks
        self.bases = {} if bases is None else bases
        self.instances = instances
        self.decorators = decorators
        self.binders = binders
        self.read_hooks = read_hooks
        self.__post_init__()

    def __post_init__(self) -> None:
        by_callee: dict[str, list[CallsArgument]] = {}
        for row in self.arguments:
            for name in row.names:
                by_callee.setdefault(name, []).append(row)
        by_method: dict[tuple[str, str], list[str]] = {}
        for hook in self.hooks:
            for cls in hook.cls:
                by_method.setdefault((cls, hook.method), []).extend(hook.calls)
        object.__setattr__(self, "_by_callee", {k: tuple(v) for k, v in by_callee.items()})
        object.__setattr__(self, "_by_method", {k: tuple(v) for k, v in by_method.items()})
        # `@lib.Class.method` runs that method of every repository subclass of lib.Class,
        # none of which the caller names: per hooked method, the names it may so run (the
        # change plan counts them as names its callers use: lang/python/pytest_names.py)
        far: dict[str, set[str]] = {}
        for hook in self.hooks:
            for c in hook.calls:
                if c.startswith("@"):
                    far.setdefault(hook.method, set()).add(c.rpartition(".")[2])
        object.__setattr__(self, "far_calls", {k: frozenset(v) for k, v in far.items()})
        names = {n for hook in self.hooks for n in hook.calls}
        names |= {m for r in self.arguments for m in r.members}
        object.__setattr__(self, "hooked_names", frozenset(names))
        makes = {n: row.keyword for row in self.decorators for n in row.names}
        object.__setattr__(self, "_makes", makes)
        # (class, method) -> method_rows' answer: a fixed table, asked per class and method
        # a repository class inherits from a library (Django: ~18K asks, unittest's asserts)
        object.__setattr__(self, "_method_rows", {})

    def class_keyword(self, decorator: str) -> str | None:
        """The keyword naming the class the library decorator `decorator` makes, if any."""
        return self._makes.get(decorator)  # type: ignore[attr-defined]

    def lineage(self, cls: str) -> tuple[str, ...]:
        """`cls` and the library classes it extends, nearest first (breadth first)."""
        out = [cls]
        for c in out:
            out.extend(b for b in self.bases.get(c, ()) if b not in out)
        return tuple(out)

    def argument_rows(self, callee: str) -> tuple[CallsArgument, ...]:
        """The rows of a call that resolved to the library callable `callee` (a function, a
        class, or a method, which its class's library bases may define)."""
        rows = self._by_callee.get(callee)  # type: ignore[attr-defined]
        if rows is not None or "." not in callee:
            return rows or ()
        cls, _, method = callee.rpartition(".")
        return self.method_rows(cls, method)[0]

    def method_rows(
        self, cls: str, method: str
    ) -> tuple[tuple[CallsArgument, ...], tuple[str, ...]]:
        """(argument rows, names called on the instance) of `method` of the library class
        `cls`, from the nearest of `cls` and its library bases that the table knows it of."""
        key = (cls, method)
        found = self._method_rows.get(key)  # type: ignore[attr-defined]
        if found is None:
            found = self._find_method_rows(cls, method)
            self._method_rows[key] = found  # type: ignore[attr-defined]
        return found

    def _find_method_rows(
        self, cls: str, method: str
    ) -> tuple[tuple[CallsArgument, ...], tuple[str, ...]]:
        for c in self.lineage(cls):
            rows = self._by_callee.get(f"{c}.{method}", ())  # type: ignore[attr-defined]
            calls = self._by_method.get((c, method), ())  # type: ignore[attr-defined]
            if rows or calls:
                return rows, calls
        return (), ()
