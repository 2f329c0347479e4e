# about: a function calling another that is defined later in the module
# path: main.py
def first():
    return second()
    #      ^ calls: main.second


def second():
    return 1


first()
#^ calls: main.first
