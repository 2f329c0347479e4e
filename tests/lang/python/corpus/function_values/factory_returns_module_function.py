# about: a function returns one of two module-level functions, chosen at run time
# path: app.py
def fast(x):
    return x


def slow(x):
    return x


def pick(speed):
    return fast if speed > 1 else slow


def run():
    a = pick(2)(1)
    #   ^ calls: app.pick
    #          ^ calls: app.fast
    b = pick(0)(1)
    #   ^ calls: app.pick
    #          ^ calls: app.slow
    return a + b


run()
#^ calls: app.run
