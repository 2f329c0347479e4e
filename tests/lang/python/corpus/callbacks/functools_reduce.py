# about: functools.reduce calls the function it is given, on the caller's behalf
# path: app.py
import functools


def combine(a, b):
    return a + b


def total(xs):
    return functools.reduce(combine, xs, 0)
    #                       ^ calls: app.combine


total([1, 2, 3])
#^ calls: app.total
