# about: a starred target first: the last name takes the last value, the starred one a list of the rest
# path: main.py
def f1():
    pass


def f2():
    pass


def f3():
    pass


*rest, last = f1, f2, f3
last()
#^ calls: main.f3
rest[1]()
#^ calls: main.f2
