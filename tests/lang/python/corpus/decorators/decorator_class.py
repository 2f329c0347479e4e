# about: a class used as a decorator: @Counted builds a Counted (runs __init__); calling the
# about: decorated name runs Counted.__call__, which calls the function
# path: app.py
class Counted:
    def __init__(self, f):
        self.f = f
        self.calls = 0

    def __call__(self, *args):
        self.calls += 1
        return self.f(*args)
        #      ^ calls: app.greet


@Counted
#^ calls: app.Counted
#^ calls: app.Counted.__init__
def greet(name):
    return "hi " + name


greet("bob")
#^ calls: app.Counted.__call__
