# about: a dict of functions passed as an argument; the callee calls a value by key
# path: main.py
def target():
    pass


def run(table):
    table["go"]()
   #^ calls: main.target


run({"go": target})
#^ calls: main.run
