# about: a lambda calls its parameter: the function passed to the lambda is called from the
# about: definition holding the lambda
# path: main.py
def target():
    return 1


call = lambda f: f()  # noqa: E731
#                ^ calls: main.target
call(target)
#^ calls: -
