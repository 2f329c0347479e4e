# about: str(x) calls __str__ and repr(x) calls __repr__
# path: app.py
class Point:
    def __str__(self):
        return "p"

    def __repr__(self):
        return "Point()"


def show():
    p = Point()
    #   ^ calls: app.Point
    return str(p) + repr(p)
    #      ^ calls: app.Point.__str__
    #               ^ calls: builtins.repr
    #               ^ calls: app.Point.__repr__


show()
#^ calls: app.show
