# about: map and filter call the function they are given while the caller consumes them
# path: app.py
def double(x):
    return 2 * x


def positive(x):
    return x > 0


def run(xs):
    return list(map(double, filter(positive, xs)))
    #               ^ calls: app.double
    #                              ^ calls: app.positive


run([1, -1, 2])
#^ calls: app.run
