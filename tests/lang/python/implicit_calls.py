# Calls no call site spells (issue 25, lang/python/implicit.py): a `with` item runs its
# manager's __enter__ and __exit__ (found through the MRO), with or without `as`, whatever
# the target; `async with` runs __aenter__ and __aexit__. Only where the manager's class is
# known: an untyped manager (a parameter) is no edge. A `for` (a comprehension's too) runs
# the iterable's __iter__ and the iterator's __next__; `len(x)` runs x.__len__ (builtins
# on an instance: their protocol method); constructing a class runs a repository __new__
# and a dataclass's __post_init__ beside __init__; `hasattr(x, name)` probes for an
# attribute the instance may lack: a repository __getattr__ runs. (One edge per caller and
# callee.)
# exact: calls
# path: m.py
from dataclasses import dataclass
# ^ imports: <external>::dataclasses.dataclass
class Base:
    def __exit__(self, *exc):
        return False


class Lock(Base):
    def __enter__(self):
        return self


class Session:
    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        return False


LOCK = Lock()
#      ^ calls: m.Lock (scope)


def critical():
    with LOCK:
       # ^ calls: m.Lock.__enter__ (local-type)
       # ^ calls: m.Base.__exit__ (local-type)
        pass


def unpacked(other):
    with other, Lock() as (a, b):
              # ^ calls: m.Lock (scope)
              # ^ calls: m.Lock.__enter__ (local-type)
              # ^ calls: m.Base.__exit__ (local-type)
        pass


async def fetch():
    async with Session() as s:
             # ^ calls: m.Session (scope)
             # ^ calls: m.Session.__aenter__ (local-type)
             # ^ calls: m.Session.__aexit__ (local-type)
        return s


class Countdown:
    def __iter__(self):
        return self

    def __next__(self):
        raise StopIteration

    def __len__(self):
        return 0


def loop():
    total = [i for i in Countdown()]
           #             ^ calls: m.Countdown (scope)
           #             ^ calls: m.Countdown.__iter__ (local-type)
           #             ^ calls: m.Countdown.__next__ (local-type)
    return len(Countdown()), total


def sized(c: Countdown):
            # ^ references: m.Countdown (scope)
    return len(c), str(c), iter([])
  #           ^ calls: m.Countdown.__len__ (local-type)


class Token:
    def __new__(cls):
        return super().__new__(cls)


@dataclass
#^ calls: <external>::dataclasses.dataclass (import)
class Point:
    x: int = 0

    def __post_init__(self):
        pass


class Point3(Point):
    pass


def build():
    return Token(), Point3()
  #        ^ calls: m.Token (scope)
  #        ^ calls: m.Token.__new__ (constructor)
  #                 ^ calls: m.Point3 (scope)
  #                 ^ calls: m.Point.__post_init__ (constructor)


class Namespace:
    def __getattr__(self, name):
        raise AttributeError(name)


def probe(ns: Namespace):
            # ^ references: m.Namespace (scope)
    return hasattr(ns, "value"), getattr(ns, "__dict__")
  #               ^ calls: m.Namespace.__getattr__ (local-type)
