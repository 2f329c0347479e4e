# about: a function passed as an argument is called by the callee
# path: app.py
def apply(fn, value):
    return fn(value)
    #      ^ calls: app.inc
    #      ^ calls: app.dec


def inc(x):
    return x + 1


def dec(x):
    return x - 1


apply(inc, 1)
#^ calls: app.apply
apply(dec, 1)
#^ calls: app.apply
