# about: **kwargs forwarded from one function to another reach the named parameter there
# path: main.py
def target():
    pass


def inner(cb=None):
    return cb()
    #      ^ calls: main.target


def outer(**kwargs):
    return inner(**kwargs)
    #      ^ calls: main.inner


outer(cb=target)
#^ calls: main.outer
