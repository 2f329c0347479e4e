# about: a function handed through two parameters, by keyword the second time
# path: main.py
def target(x):
    return x


def inner(fn, x):
    return fn(x)
    #      ^ calls: main.target


def outer(fn):
    return inner(x=1, fn=fn)
    #      ^ calls: main.inner


outer(target)
#^ calls: main.outer
