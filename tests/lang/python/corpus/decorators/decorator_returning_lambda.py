# about: a decorator returning a lambda: the lambda folds into the decorator, so a call of the
# about: decorated name is no edge to a definition, and what the lambda calls is the decorator's call
# path: app.py
def negate(f):
    return lambda x: -f(x)
    #                 ^ calls: app.double


@negate
#^ calls: app.negate
def double(x):
    return 2 * x


double(2)
#^ calls: -
