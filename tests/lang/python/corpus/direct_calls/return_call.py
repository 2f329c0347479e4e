# about: a call on the function a call returned: f()()
# path: main.py
def inner():
    pass


def outer():
    return inner


outer()()
#^ calls: main.outer
#^ calls: main.inner
