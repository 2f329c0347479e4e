# about: a method inherited from the base class, called on a subclass instance and on self
# path: main.py
class Base:
    def helper(self):
        return 1


class Child(Base):
    def run(self):
        return self.helper()
        #           ^ calls: main.Base.helper


c = Child()
#   ^ calls: main.Child
c.helper()
# ^ calls: main.Base.helper
c.run()
# ^ calls: main.Child.run
