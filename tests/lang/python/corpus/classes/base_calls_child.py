# about: a method of the base class calls through self a method only the subclass defines;
# about: reached from an instance of the subclass
# path: main.py
class Base:
    def run(self):
        return self.hook()
        #           ^ calls: main.Child.hook


class Child(Base):
    def hook(self):
        return 1


Child().run()
#^ calls: main.Child
#       ^ calls: main.Base.run
