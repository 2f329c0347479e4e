# about: with A() as a: a is what __enter__ returns (here self), so a.m() is A.m
# path: app.py
class Session:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def run(self, q):
        return q


def work():
    with Session() as s:
    #    ^ calls: app.Session
    #    ^ calls: app.Session.__enter__
    #    ^ calls: app.Session.__exit__
        return s.run("q")
        #        ^ calls: app.Session.run


work()
#^ calls: app.work
