# about: `except Base as e` catches a subclass instance; a method of the base called on e,
# about: and an exception's method called in a handler inside a method
# path: main.py
class Base(Exception):
    def describe(self):
        return "base"


class Sub(Base):
    pass


class Worker:
    def run(self):
        try:
            raise Sub()
            #     ^ calls: main.Sub
        except Base as e:
            return e.describe()
            #        ^ calls: main.Base.describe


Worker().run()
#^ calls: main.Worker
#        ^ calls: main.Worker.run
