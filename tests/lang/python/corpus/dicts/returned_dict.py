# about: a function returns a dict of functions; the caller calls a value of the result
# path: main.py
def target():
    pass


def table():
    return {"go": target}


table()["go"]()
#^ calls: main.table
#^ calls: main.target
t = table()
#   ^ calls: main.table
t["go"]()
#^ calls: main.target
