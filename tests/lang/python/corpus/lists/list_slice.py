# about: a slice of a list of functions keeps the functions: an item of the slice is called
# path: main.py
def first():
    pass


def second():
    pass


fs = [first, second]
rest = fs[1:]
rest[0]()
#^ calls: main.second
