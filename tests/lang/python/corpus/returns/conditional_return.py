# about: a function returning one of two functions by a condition: the caller's call may reach either
# path: main.py
def first():
    pass


def second():
    pass


def choose(flag):
    if flag:
        return first
    return second


choose(True)()
#^ calls: main.choose
#^ calls: main.first
#^ calls: main.second [static]
