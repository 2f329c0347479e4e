# about: an instance of a class with __get__/__set__ stored on a class: reads and writes call them
# path: app.py
class Typed:
    def __init__(self, kind):
        self.kind = kind
        self.store = {}

    def __get__(self, obj, owner):
        return self.store.get(id(obj))

    def __set__(self, obj, value):
        self.store[id(obj)] = self.kind(value)


class Point:
    x = Typed(int)
    #   ^ calls: app.Typed
    #   ^ calls: app.Typed.__init__


def run():
    p = Point()
    #   ^ calls: app.Point
    p.x = "3"
    # ^ calls: app.Typed.__set__
    return p.x
    #        ^ calls: app.Typed.__get__


run()
#^ calls: app.run
