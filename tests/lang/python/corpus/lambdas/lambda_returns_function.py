# about: a lambda returning a function: calling the lambda's result calls that function
# path: main.py
def target():
    return 1


get = lambda: target  # noqa: E731
get()()
#^ calls: -
#^ calls: main.target
