# about: a parameter holding a function is assigned to a local, and the local is called
# path: main.py
def target():
    pass


def run(cb):
    alias = cb
    alias()
   #^ calls: main.target


run(target)
#^ calls: main.run
