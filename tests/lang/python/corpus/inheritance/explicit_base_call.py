# about: Base.m(self) names the base's method explicitly
# path: app.py
class Base:
    def run(self):
        return "base"


class Child(Base):
    def run(self):
        return Base.run(self) + "+child"
        #           ^ calls: app.Base.run


Child().run()
#^ calls: app.Child
#       ^ calls: app.Child.run
