# about: a parameter holding a function is called from a nested function (a closure over it)
# path: main.py
def target():
    pass


def outer(cb):
    def inner():
        cb()
       #^ calls: main.target

    inner()
   #^ calls: main.outer.inner


outer(target)
#^ calls: main.outer
