# Attribute reads inside expressions (issue 25, lang/python/reads.py): reading a property
# anywhere in an expression (a condition, `not`, `or`, a comparison, an f-string, a
# subscript, the value assigned to another object's attribute) runs its getter; a descriptor
# stored on the class runs its __get__. By the rule that typed the receiver; a plain
# attribute, a method read as a value and an untyped receiver are no edge. A class statement
# runs a base's __init_subclass__ (from the scope around it), an attribute assignment a
# repository __setattr__; a list declared `list[tuple[A, B | None]]` hands out its items
# through pop(). (One edge per caller and callee.)
# exact: calls
# path: m.py
from __future__ import annotations


class Flag:
    def __get__(self, obj, owner=None):
        return True


class Registry:
    def __init_subclass__(cls, **kwargs):
        return None


class Settings(Registry):
#              ^ calls: m.Registry.__init_subclass__ (inheritance)
    verbose = Flag()
    #         ^ calls: m.Flag (scope)
    plain = 1

    def __init__(self):
        self.items: list[tuple[str, Settings | None]] = []

    @property
    def debug(self):
        return True

    @property
    def prefix(self):
        return "/static"

    def helper(self):
        return 1

    def check(self, other: Settings):
        if self.debug and not other.verbose:
         #       ^ calls: m.Settings.debug (self)
         #                          ^ calls: m.Flag.__get__ (local-type)
            return f"{self.prefix}/x" == self.plain
                         # ^ calls: m.Settings.prefix (self)
        return self.helper is None

    def pop(self):
        _, last = self.items.pop()
        if last is not None:
            last.check(self)
          #      ^ calls: m.Settings.check (local-type)


class Space:
    def __setattr__(self, name, value):
        return None


def copy(s: Settings, sp: Space, thing):
    sp.label = s.prefix
    #  ^ calls: m.Space.__setattr__ (local-type)
    #            ^ calls: m.Settings.prefix (local-type)
    return thing.debug or thing.prefix
