# about: a function returns a tuple of functions; the caller unpacks and calls each
# path: main.py
def first():
    pass


def second():
    pass


def pair():
    return first, second


a, b = pair()
#      ^ calls: main.pair
a()
#^ calls: main.first
b()
#^ calls: main.second
