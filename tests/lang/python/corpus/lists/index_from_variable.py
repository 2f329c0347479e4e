# about: an item called by an index held in a variable: either item may be called
# path: main.py
def first():
    pass


def second():
    pass


fs = [first, second]
i = len(fs) - 1
fs[i]()
#^ calls: main.second
#^ calls: main.first [static]
