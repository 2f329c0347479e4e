# about: setattr() with a literal name stores a function on an object, called by that name
# path: main.py
def target():
    pass


class Box:
    pass


b = Box()
#   ^ calls: main.Box
setattr(b, "fn", target)
b.fn()
# ^ calls: main.target
