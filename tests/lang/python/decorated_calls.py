# `@d def f` is f = d(f) (issue 25): d is called from the scope around f; f is passed to
# what is applied, so the wrapper calling its parameter calls f (value-flow); a call of f
# runs what the decorators returned (reason decorator): a nested wrapper, the wrapper a
# library call hands back (update_wrapper, cast), a decorator class's __call__. A decorator
# returning its argument, or one from outside the repository, leaves f called. (A value-flow
# call is asserted where the function is passed: the decorator's line.)
# exact: calls
# path: deco.py
import functools
import typing as t


def log(f):
    def wrapper(*args):
        return f(*args)
    return wrapper


def retry(times):
    def decorator(f):
        def again():
            return f()
        return again
    return decorator


def setupmethod(f):
    def wrapper_func(self, *args):
        return f(self, *args)
    return t.cast(object, functools.update_wrapper(wrapper_func, f))
  #          ^ calls: <external>::typing.cast (import)
  #                                ^ calls: <external>::functools.update_wrapper (import)


def register(f):
    return f


class Counted:
    def __init__(self, f):
        self.f = f

    def __call__(self, *args):
        return 1
# path: main.py
import functools

from deco import Counted, log, register, retry, setupmethod


#v calls: deco.log (import)
#v calls: main.work (value-flow)
@log
def work():
    return 1


#v calls: deco.retry (import)
#v calls: deco.retry.decorator (decorator)
#v calls: main.fetch (value-flow)
@retry(3)
def fetch():
    return 2


class Loud:
    #v calls: deco.log (import)
    #v calls: main.Loud.shout (value-flow)
    @log
    #v calls: deco.register (import)
    @register
    def shout(self):
        return 3


#v calls: deco.Counted (import)
#v calls: deco.Counted.__init__ (constructor)
@Counted
def greet():
    return 4


#           v calls: <external>::functools.cache (import)
@functools.cache
def cached():
    return 5


class Service:
    #v calls: deco.log (import)
    #v calls: main.Service.start (value-flow)
    @log
    def start(self):
        return 6

    #v calls: deco.setupmethod (import)
    #v calls: main.Service.route (value-flow)
    @setupmethod
    def route(self):
        return 7


def call_work():
    work()
  # ^ calls: deco.log.wrapper (decorator)


def call_fetch():
    fetch()
  # ^ calls: deco.retry.decorator.again (decorator)


def call_shout(loud: Loud):
    loud.shout()
  #      ^ calls: deco.log.wrapper (decorator)


def call_greet():
    greet()
  # ^ calls: deco.Counted.__call__ (decorator)


def call_cached():
    cached()
  # ^ calls: main.cached (scope)


def call_service():
    s = Service()
  #     ^ calls: main.Service (scope)
    s.route()
  #   ^ calls: deco.setupmethod.wrapper_func (decorator)
