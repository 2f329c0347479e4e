# about: a comprehension calls each function of a list (folded into its definition)
# path: main.py
def first():
    return 1


def second():
    return 2


def run():
    return [f() for f in [first, second]]
    #       ^ calls: main.first
    #       ^ calls: main.second


run()
#^ calls: main.run
