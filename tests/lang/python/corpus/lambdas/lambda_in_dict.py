# about: lambdas as dict values at module level fold into the module
# path: app.py
def add(a, b):
    return a + b


def sub(a, b):
    return a - b


OPS = {
    "+": lambda a, b: add(a, b),
    #                 ^ calls: app.add
    "-": lambda a, b: sub(a, b),
    #                 ^ calls: app.sub
}


def calc(op, a, b):
    return OPS[op](a, b)
    #      ^ calls: -


calc("+", 1, 2)
#^ calls: app.calc
calc("-", 1, 2)
#^ calls: app.calc
