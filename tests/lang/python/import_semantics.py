# Import semantics (issue 25 point 8): of two star imports the last one binding a name wins
# (`__all__` says what a module exports); a name imported in both branches of a try/except
# ImportError or an if/else holds either import (value-flow: which runs depends on the
# environment), as a module alias too; `importlib.import_module` and `__import__` with a
# literal bind that module (`__import__("a.b")`: the top package a).
# exact: calls
# path: pkg/__init__.py
# path: pkg/a.py
def run():
    return "a"


def stop():
    return "a"
# path: pkg/b.py
__all__ = ["run"]


def run():
    return "b"


def stop():
    return "b"
# path: pkg/fast.py
def loads(s):
    return s


class Codec:
    pass
# path: pkg/slow.py
def loads(s):
    return s


class Codec:
    pass
# path: pkg/main.py
import importlib
import sys

from pkg.a import *
from pkg.b import *

try:
    from pkg.fast import loads, Codec
except ImportError:
    from pkg.slow import loads, Codec

if sys.version_info >= (3, 0):
    from pkg import fast as impl
else:
    from pkg import slow as impl


def use():
    run()
  # ^ calls: pkg.b.run (import)
    stop()
  # ^ calls: pkg.a.stop (import)


def either():
    return loads("x")
         # ^ calls: pkg.fast.loads (value-flow)
         # ^ calls: pkg.slow.loads (value-flow)


def either_module():
    return impl.loads("x")
              # ^ calls: pkg.fast.loads (value-flow)
              # ^ calls: pkg.slow.loads (value-flow)


def by_literal():
    plugin = importlib.import_module("pkg.fast")
                     # ^ calls: <external>::importlib.import_module (import)
    return plugin.loads("x")
                # ^ calls: pkg.fast.loads (import)


def by_dunder_import():
    top = __import__("pkg.slow")
    return top.slow.loads("x")
                  # ^ calls: pkg.slow.loads (import)


class Own(Codec):
        # ^ extends: pkg.fast.Codec
        # ^ extends: pkg.slow.Codec
    pass
