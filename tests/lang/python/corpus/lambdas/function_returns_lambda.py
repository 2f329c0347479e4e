# about: a function returns a lambda that calls another function: the lambda's call belongs to
# about: the function, calling the returned lambda is no edge
# path: main.py
def target():
    return 1


def make():
    return lambda: target()
    #              ^ calls: main.target


fn = make()
#    ^ calls: main.make
fn()
#^ calls: -
