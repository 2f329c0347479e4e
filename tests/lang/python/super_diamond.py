# `super().m()` in class C runs the m after C in the MRO of the instance's class (issue 25):
# C's own MRO gives the edge of its rule (`super`); a subclass with several bases may put
# another base's m there (a diamond), an edge at `dispatch` confidence.
# exact: calls
# path: m.py
class Root:
    def hello(self):
        return 1


class Left(Root):
    def hello(self):
        return super().hello()
      #                ^ calls: m.Root.hello (super)
      #                ^ calls: m.Right.hello (dispatch)


class Right(Root):
    def hello(self):
        return super().hello()
      #                ^ calls: m.Root.hello (super)


class Bottom(Left, Right):
    pass
