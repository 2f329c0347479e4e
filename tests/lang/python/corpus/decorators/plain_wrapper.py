# about: a decorator without functools.wraps: calling the decorated name runs the wrapper
# path: app.py
def trace(f):
    def inner(*args):
        return f(*args)
        #      ^ calls: app.add

    return inner


@trace
#^ calls: app.trace
def add(a, b):
    return a + b


add(1, 2)
#^ calls: app.trace.inner
