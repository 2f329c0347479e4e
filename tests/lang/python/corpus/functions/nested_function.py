# about: a nested function called from its enclosing function, and returned then called
# path: main.py
def outer():
    def inner():
        return 1

    inner()
   #^ calls: main.outer.inner
    return inner


fn = outer()
#    ^ calls: main.outer
fn()
#^ calls: main.outer.inner
