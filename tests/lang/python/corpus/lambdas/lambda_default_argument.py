# about: a lambda as a parameter default is made in the enclosing scope: it folds into the module
# path: app.py
def ident(x):
    return x


def transform(value, fn=lambda v: ident(v)):
    #                             ^ calls: app.ident
    return fn(value)
    #      ^ calls: -


transform(1)
#^ calls: app.transform
