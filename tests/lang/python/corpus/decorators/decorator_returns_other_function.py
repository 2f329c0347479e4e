# about: a decorator that returns a different module function: calling the decorated name
# about: calls that function, not the original
# path: main.py
def replacement():
    return 2


def swap(f):
    return replacement


@swap
#^ calls: main.swap
def original():
    return 1


original()
#^ calls: main.replacement
