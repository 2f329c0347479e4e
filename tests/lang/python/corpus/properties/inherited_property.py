# about: a property defined in a base class, read on a subclass instance
# path: pkg/__init__.py
# path: pkg/base.py
class Shape:
    @property
    def name(self):
        return type(self).__name__.lower()
# path: pkg/shapes.py
from pkg.base import Shape


class Square(Shape):
    pass


def label():
    return Square().name
    #      ^ calls: pkg.shapes.Square
    #               ^ calls: pkg.base.Shape.name


label()
#^ calls: pkg.shapes.label
