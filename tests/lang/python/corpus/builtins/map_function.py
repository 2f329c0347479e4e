# about: map() calls the function it is given, from the caller (builtin callees set aside)
# path: main.py
def square(x):
    return x * x


def run(xs):
    return list(map(square, xs))
    #           ^ calls: main.square


run([1, 2])
#^ calls: main.run
