# about: reading a property calls its getter
# path: app.py
class Circle:
    def __init__(self, r):
        self.r = r

    @property
    def area(self):
        return 3 * self.r * self.r


def run():
    c = Circle(2)
    #   ^ calls: app.Circle
    #   ^ calls: app.Circle.__init__
    return c.area
    #        ^ calls: app.Circle.area


run()
#^ calls: app.run
