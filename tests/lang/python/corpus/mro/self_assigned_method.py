# about: a method of the base assigned to self in __init__ under another name, called later
# path: main.py
class Base:
    def real(self):
        return 1


class Child(Base):
    def __init__(self):
        self.alias = self.real

    def go(self):
        return self.alias()
        #           ^ calls: main.Base.real


Child().go()
#^ calls: main.Child
#^ calls: main.Child.__init__
#       ^ calls: main.Child.go
