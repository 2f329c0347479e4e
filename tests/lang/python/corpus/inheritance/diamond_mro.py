# about: super() in a diamond follows the MRO of the instance's class, not the textual base
# path: app.py
class Root:
    def hello(self):
        return ["root"]


class Left(Root):
    def hello(self):
        return ["left"] + super().hello()
        #                         ^ calls: app.Right.hello


class Right(Root):
    def hello(self):
        return ["right"] + super().hello()
        #                          ^ calls: app.Root.hello


class Bottom(Left, Right):
    def hello(self):
        return ["bottom"] + super().hello()
        #                           ^ calls: app.Left.hello


Bottom().hello()
#^ calls: app.Bottom
#        ^ calls: app.Bottom.hello
