# about: a comprehension's condition and value both call project functions
# path: main.py
def keep(x):
    return x > 0


def scale(x):
    return x * 2


def run(xs):
    return [scale(x) for x in xs if keep(x)]
    #       ^ calls: main.scale
    #                               ^ calls: main.keep


run([1, -1])
#^ calls: main.run
