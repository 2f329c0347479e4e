# about: an argument that is itself a call: the value the inner call returns is what the
# about: outer callee receives and calls
# path: main.py
def target():
    pass


def pick():
    return target


def run(cb):
    cb()
   #^ calls: main.target


run(pick())
#^ calls: main.run
#   ^ calls: main.pick
