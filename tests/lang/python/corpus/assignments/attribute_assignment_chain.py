# about: a function assigned to an attribute of an object, then copied to a local and called
# path: main.py
def target():
    pass


class Box:
    pass


box = Box()
#     ^ calls: main.Box
box.fn = target
call = box.fn
call()
#^ calls: main.target
