# about: a tuple assignment binds each name to the value at its position
# path: main.py
def first():
    pass


def second():
    pass


a, b = first, second
a()
#^ calls: main.first
b()
#^ calls: main.second
