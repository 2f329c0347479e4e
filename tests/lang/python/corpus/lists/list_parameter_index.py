# about: a list of functions passed as an argument; the callee calls an item by index
# path: main.py
def target():
    pass


def run(items):
    items[0]()
   #^ calls: main.target


run([target])
#^ calls: main.run
