# about: a function imported from another module returns one of that module's functions; the
# about: caller calls the result
# path: to.py
def inner():
    pass


def outer():
    return inner
# path: main.py
from to import outer

outer()()
#^ calls: to.outer
#^ calls: to.inner
