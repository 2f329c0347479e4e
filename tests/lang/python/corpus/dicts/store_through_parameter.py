# about: a function stored into a dict by a helper that receives the dict and the function
# path: main.py
def target():
    pass


def register(table, fn):
    table["x"] = fn


REG = {}
register(REG, target)
#^ calls: main.register
REG["x"]()
#^ calls: main.target
