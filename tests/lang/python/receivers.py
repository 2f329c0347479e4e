# Receivers whose class is evident: constructed, annotated, returned.
# (was test_python_resolution.py: test_receivers_whose_class_is_evident)
#
# test_receivers_whose_class_is_evident:
#   a constructed Square is exactly a Square: no dispatch
#   a declared Shape may be any subclass: the override is a dispatch
# exact: calls, imports, references, extends, implements
# path: shapes.py
class Shape:
    def area(self):
        return 0

class Square(Shape):
           # ^ extends: shapes.Shape
    def area(self):
        return 4

def make():
    return Square()
         # ^ calls: shapes.Square (scope)

def declared() -> Shape:
                # ^ references: shapes.Shape (scope)
    return load()
         # ^ unresolved: load
# path: use.py
from shapes import Shape, Square, make, declared
                 # ^ imports: shapes.Shape
                        # ^ imports: shapes.Square
                                      # ^ imports: shapes.declared
                                # ^ imports: shapes.make

def direct():
    s = Square()
      # ^ calls: shapes.Square (import)
    s.area()
  # ^ calls: shapes.Square.area (local-type)

def returned():
    x = make()
      # ^ calls: shapes.make (import)
    x.area()
  # ^ calls: shapes.Square.area (local-type)
    make().area()

def annotated(shape: Shape, maybe: "Square | None" = None):
                   # ^ references: shapes.Shape (import)
                                  # ^ references: shapes.Square (import)
    shape.area()
  # ^ calls: shapes.Shape.area (local-type)
    maybe.area()
  # ^ calls: shapes.Square.area (local-type)

def by_return_annotation():
    declared().area()
  # ^ calls: shapes.Shape.area (local-type)
  # ^ calls: shapes.Square.area (dispatch)
  # ^ calls: shapes.declared (import)
