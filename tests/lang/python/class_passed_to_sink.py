# A class handed to a function that calls it (a factory taking `cls`) is constructed there:
# the callee's value-flow calls reach the class and its __init__ (at the line handing it
# over), and the caller references both, so an upstream walk from __init__ goes on to the
# caller and its callers (the callee is a relay making the call on the caller's behalf:
# query/relays.py).
# path: build.py
class Command:
    def __init__(self, name):
        self.name = name


class Group(Command):
    def __init__(self, name):
        super().__init__(name)


def make(cls, name):
    return cls(name)


def group(name):
    return make(Group, name)
         # ^ calls: build.make (scope)
         # ^ calls: build.Group (value-flow)
         # ^ calls: build.Group.__init__ (value-flow)
         # ^ references: build.Group (value-flow)
         # ^ references: build.Group.__init__ (value-flow)


def command(name):
    return make(Command, name)
         # ^ calls: build.make (scope)
         # ^ calls: build.Command (value-flow)
         # ^ calls: build.Command.__init__ (value-flow)
         # ^ references: build.Command (value-flow)
         # ^ references: build.Command.__init__ (value-flow)
