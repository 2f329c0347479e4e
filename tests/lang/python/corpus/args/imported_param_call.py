# about: a function of this module is handed to a function imported from another module,
# about: which calls its parameter
# path: to.py
def apply(fn, x):
    return fn(x)
    #      ^ calls: main.double
# path: main.py
from to import apply


def double(x):
    return x * 2


apply(double, 3)
#^ calls: to.apply
