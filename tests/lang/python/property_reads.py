# Reading a property runs its getter (issue 25): a call of the getter from where it is read,
# by the rule the receiver was typed by, in a call's receiver (`obj.prop.m()`), a call's
# arguments (`f(self.prop)`), an assignment (`x = obj.prop`), a return and a for loop's
# iterable. A property of a class the receiver is not known to be is no edge. (One edge per
# caller and getter: the first read of a getter in a function stands for the others.)
# exact: calls
# path: m.py
from functools import cached_property


class Engine:
    def start(self):
        return 1


class Car:
    def __init__(self):
        self._engine = Engine()
      #                ^ calls: m.Engine (scope)

    @property
    def engine(self) -> Engine:
        return self._engine

    #v calls: <external>::functools.cached_property (import)
    @cached_property
    def parts(self) -> list[Engine]:
        return [self._engine]

    def describe(self):
        return str(self.engine)
      #                 ^ calls: m.Car.engine (self)

    def own(self):
        return self.engine
      #             ^ calls: m.Car.engine (self)


def drive(car: Car):
    car.engine.start()
  #     ^ calls: m.Car.engine (local-type)
  #            ^ calls: m.Engine.start (local-type)
    e = car.engine
    for p in car.parts:
  #              ^ calls: m.Car.parts (local-type)
        p.start()
    return e


def assign(car: Car):
    e = car.engine
  #         ^ calls: m.Car.engine (local-type)
    return e


def unknown(thing):
    return thing.engine
