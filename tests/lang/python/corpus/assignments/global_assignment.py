# about: a module global assigned inside a function with `global`, then called from another function
# path: main.py
def target():
    pass


handler = None


def install():
    global handler
    handler = target


def fire():
    handler()
   #^ calls: main.target


install()
#^ calls: main.install
fire()
#^ calls: main.fire
