# about: a function returns what another function returns (a function), and the caller calls it
# path: main.py
def target():
    pass


def inner():
    return target


def outer():
    return inner()
    #      ^ calls: main.inner


outer()()
#^ calls: main.outer
#^ calls: main.target
