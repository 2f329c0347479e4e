# about: in a diamond, super() in the left base continues along the instance's MRO to the right base
# path: main.py
class Root:
    def hello(self):
        return ["root"]


class Left(Root):
    def hello(self):
        return ["left"] + super().hello()
        #                         ^ calls: main.Right.hello


class Right(Root):
    def hello(self):
        return ["right"] + super().hello()
        #                          ^ calls: main.Root.hello


class Both(Left, Right):
    def hello(self):
        return super().hello()
        #              ^ calls: main.Left.hello


Both().hello()
#^ calls: main.Both
#      ^ calls: main.Both.hello
