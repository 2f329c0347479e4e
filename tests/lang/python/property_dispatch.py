# Reading an attribute on an instance whose class may be a subclass (a declared type,
# `self`) runs the property a subclass defines under that name (`dispatch`, issue 25:
# Click's Parameter reads `self.type.arity`, a class attribute of ParamType and a
# property of Tuple); a constructed instance is exactly its class (no dispatch). Reading a
# descriptor stored on the class (an instance of a class with `__get__`) runs `__get__`.
# Assigning to a property runs its setter (the definition decorated `@name.setter`), to a
# descriptor its `__set__`; on an untyped receiver, nothing.
# exact: calls
# path: m.py
class ParamType:
    arity = 1


class Tuple(ParamType):
    @property
    def arity(self):
        return 2


class Param:
    def __init__(self, t: ParamType):
        self.type = t

    def nargs(self):
        return self.type.arity
      #        ^ calls: m.Tuple.arity (dispatch)


def exact():
    t = ParamType()
      # ^ calls: m.ParamType (scope)
    return t.arity


class Typed:
    def __get__(self, obj, owner):
        return 0

    def __set__(self, obj, value):
        pass


class Point:
    x = Typed()
      # ^ calls: m.Typed (scope)


def read(p: Point):
    return p.x
  #          ^ calls: m.Typed.__get__ (local-type)


class Account:
    @property
    def balance(self):
        return 0

    @balance.setter
    def balance(self, value):
        pass


def write(a: Account, p: Point, other):
    a.balance = 5
  #   ^ calls: m.py::Account.balance#2 (local-type)
    p.x = 1
  #   ^ calls: m.Typed.__set__ (local-type)
    other.balance = 5
