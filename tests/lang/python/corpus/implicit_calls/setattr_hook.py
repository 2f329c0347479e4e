# about: assigning an attribute of an instance whose class defines __setattr__ calls it
# about: (Flask's `g.x = 1` on _AppCtxGlobals), also for a declared instance
# path: app.py
class Namespace:
    def __setattr__(self, name, value):
        self.__dict__[name] = value


g: Namespace = Namespace()
#              ^ calls: app.Namespace


def remember(value):
    g.last = value
    # ^ calls: app.Namespace.__setattr__


def run():
    n = Namespace()
    #   ^ calls: app.Namespace
    n.count = 1
    # ^ calls: app.Namespace.__setattr__
    remember(2)
   #^ calls: app.remember


run()
#^ calls: app.run
