# about: comprehensions and generator expressions fold into their function too
# path: app.py
def square(x):
    return x * x


def is_even(x):
    return x % 2 == 0


def run(xs):
    a = [square(x) for x in xs if is_even(x)]
    #    ^ calls: app.square
    #                               ^ calls: app.is_even
    b = {x: square(x) for x in xs}
    #       ^ calls: app.square
    return a, b, sum(square(x) for x in xs)
    #            ^ calls: builtins.sum
    #                ^ calls: app.square


run([1, 2])
#^ calls: app.run
