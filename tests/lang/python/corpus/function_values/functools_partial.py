# about: functools.partial objects call the wrapped function when called
# path: app.py
import functools


def power(base, exp):
    return base**exp


square = functools.partial(power, exp=2)
#                  ^ calls: functools.partial


def run():
    return square(3)
    #      ^ calls: app.power


run()
#^ calls: app.run
