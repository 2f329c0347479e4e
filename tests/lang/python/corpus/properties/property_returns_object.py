# about: a property returns an object whose method is then called: obj.prop.m()
# path: app.py
class Engine:
    def start(self):
        return "vroom"


class Car:
    def __init__(self):
        self._engine = Engine()
        #              ^ calls: app.Engine

    @property
    def engine(self) -> Engine:
        return self._engine


def drive():
    return Car().engine.start()
    #      ^ calls: app.Car
    #      ^ calls: app.Car.__init__
    #            ^ calls: app.Car.engine
    #                   ^ calls: app.Engine.start


drive()
#^ calls: app.drive
