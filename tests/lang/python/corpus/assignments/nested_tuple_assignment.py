# about: a nested tuple assignment binds each name to the value at its position, depth two
# path: main.py
def f1():
    pass


def f2():
    pass


def f3():
    pass


a, (b, c) = f1, (f2, f3)
a()
#^ calls: main.f1
b()
#^ calls: main.f2
c()
#^ calls: main.f3
