# about: instances of two classes in a list; a loop calls the method on each element
# path: shapes.py
class Square:
    def area(self):
        return 4


class Circle:
    def area(self):
        return 3


def total():
    shapes = [Square(), Circle()]
    #         ^ calls: shapes.Square
    #                   ^ calls: shapes.Circle
    return sum(s.area() for s in shapes)
    #      ^ calls: builtins.sum
    #            ^ calls: shapes.Square.area
    #            ^ calls: shapes.Circle.area


total()
#^ calls: shapes.total
