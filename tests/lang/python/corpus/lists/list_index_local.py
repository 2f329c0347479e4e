# about: a list of functions made in a function, an item called by index
# path: main.py
def first():
    pass


def second():
    pass


def run():
    fs = [first, second]
    fs[1]()
   #^ calls: main.second


run()
#^ calls: main.run
