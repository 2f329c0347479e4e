# about: a lambda folds into the definition that holds it: its calls are that definition's
# about: calls, and calling the lambda is no edge
# path: app.py
def double(x):
    return 2 * x


def run():
    f = lambda v: double(v) + 1  # noqa: E731
    #             ^ calls: app.double
    return f(3)
    #      ^ calls: -


run()
#^ calls: app.run
