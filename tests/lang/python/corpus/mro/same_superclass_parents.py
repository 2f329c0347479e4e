# about: two parents sharing a superclass: a method only the shared superclass defines
# path: main.py
class Base:
    def shared(self):
        return 0


class Left(Base):
    def side(self):
        return 1


class Right(Base):
    def side(self):
        return 2


class Child(Left, Right):
    pass


c = Child()
#   ^ calls: main.Child
c.shared()
# ^ calls: main.Base.shared
c.side()
# ^ calls: main.Left.side
