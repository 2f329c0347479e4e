# about: an inherited classmethod called on a subclass: cls is the subclass
# path: app.py
class Shape:
    def __init__(self):
        self.sides = 0

    @classmethod
    def make(cls):
        return cls()
        #      ^ calls: app.Shape
        #      ^ calls: app.Shape.__init__
        #      ^ calls: app.Square
        #      ^ calls: app.Square.__init__


class Square(Shape):
    def __init__(self):
        super().__init__()
        #       ^ calls: app.Shape.__init__
        self.sides = 4


Shape.make()
#     ^ calls: app.Shape.make
Square.make()
#      ^ calls: app.Shape.make
