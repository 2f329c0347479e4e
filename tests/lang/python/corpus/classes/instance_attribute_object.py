# about: an instance stored on self in __init__, its method called from another method
# path: main.py
class Engine:
    def start(self):
        return 1


class Car:
    def __init__(self):
        self.engine = Engine()
        #             ^ calls: main.Engine

    def drive(self):
        return self.engine.start()
        #                  ^ calls: main.Engine.start


Car().drive()
#^ calls: main.Car
#^ calls: main.Car.__init__
#       ^ calls: main.Car.drive
