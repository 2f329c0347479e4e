# about: swapping two names: each holds the other's function afterwards (flow-insensitive
# about: readers may see both)
# path: main.py
def f1():
    pass


def f2():
    pass


def run():
    a, b = f1, f2
    a, b = b, a
    a()
   #^ calls: main.f2
    b()
   #^ calls: main.f1


run()
#^ calls: main.run
