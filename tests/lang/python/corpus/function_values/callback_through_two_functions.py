# about: a function value passed down through two calls before it is called
# path: app.py
def outer(fn):
    return middle(fn)
    #      ^ calls: app.middle


def middle(fn):
    return fn()
    #      ^ calls: app.target


def target():
    return "hit"


outer(target)
#^ calls: app.outer
