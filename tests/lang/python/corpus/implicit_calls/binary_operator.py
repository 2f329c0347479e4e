# about: a + b calls __add__ of a's class; a * 2 calls __mul__
# path: app.py
class Vec:
    def __init__(self, x):
        self.x = x

    def __add__(self, other):
        return Vec(self.x + other.x)
        #      ^ calls: app.Vec
        #      ^ calls: app.Vec.__init__

    def __mul__(self, k):
        return Vec(self.x * k)
        #      ^ calls: app.Vec
        #      ^ calls: app.Vec.__init__


def run():
    a = Vec(1)
    #   ^ calls: app.Vec
    #   ^ calls: app.Vec.__init__
    b = Vec(2)
    #   ^ calls: app.Vec
    #   ^ calls: app.Vec.__init__
    return (a + b) * 2
    #         ^ calls: app.Vec.__add__
    #              ^ calls: app.Vec.__mul__


run()
#^ calls: app.run
