"""Plain record classes, made at import for the cost of any class.

A `@dataclass` writes its `__init__`, `__repr__`, `__eq__` (and `__hash__`, `__setattr__`
for a frozen one) as source text and compiles each with its own `exec` while the module is
imported: ~0.5 ms a class, and the ~55 of an edit's imports were ~36 ms of its CPU (a third
of a one-file edit's start-up beside numpy's). A record class states its fields in
`__slots__` and writes its `__init__`; these bases give it the dataclass's repr and equality
from its slots (the slots of its bases first, like a dataclass's fields):

- `Record`: shown field by field, equal only to itself (a dataclass with `eq=False`);
- `Compared`: equal to an instance of its own class with equal fields, unhashable (`eq=True`);
- `Hashed`: that, and hashed by its fields (`frozen=True`).

A class names the fields its repr leaves out in `_unshown`, and those its equality ignores in
`_uncompared` (a dataclass's `field(repr=False)`, `field(compare=False)`). Nothing here is
frozen: the classes that were never assign their fields after `__init__`.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any


def _none(_: object) -> tuple[()]:
    return ()


def _getter(names: tuple[str, ...]) -> Any:
    """A tuple of those attributes of an object (attrgetter gives a bare value for one)."""
    if not names:
        return _none
    if len(names) == 1:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return attrgetter(*names)


class Record:
    __slots__ = ()
    _unshown: tuple[str, ...] = ()
    _uncompared: tuple[str, ...] = ()
    _shown: tuple[str, ...] = ()
    _compared: Any = _none

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        names = tuple(n for c in reversed(cls.__mro__) for n in c.__dict__.get("__slots__", ()))
        cls._shown = tuple(n for n in names if n not in cls._unshown)
        cls._compared = staticmethod(_getter(tuple(n for n in names if n not in cls._uncompared)))

    def __repr__(self) -> str:
        shown = ", ".join(f"{n}={getattr(self, n)!r}" for n in self._shown)
        return f"{type(self).__qualname__}({shown})"


class Compared(Record):
    __slots__ = ()
    __hash__ = None  # type: ignore[assignment]

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._compared(self) == self._compared(other)


class Hashed(Compared):
    __slots__ = ()

    def __hash__(self) -> int:
        return hash(self._compared(self))
