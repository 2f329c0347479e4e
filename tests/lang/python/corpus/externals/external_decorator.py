# about: a decorator from the standard library is a call of it from the defining scope
# externals: scored
# path: app.py
import functools


@functools.lru_cache(maxsize=None)
#          ^ calls: functools.lru_cache
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
    #                      ^ calls: app.fib
    #                                   ^ calls: app.fib


fib(5)
#^ calls: app.fib
