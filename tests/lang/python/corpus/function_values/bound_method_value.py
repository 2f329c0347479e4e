# about: a bound method taken as a value and called later
# path: app.py
class Counter:
    def __init__(self):
        self.n = 0

    def bump(self):
        self.n += 1
        return self.n


def run():
    c = Counter()
    #   ^ calls: app.Counter
    #   ^ calls: app.Counter.__init__
    bump = c.bump
    bump()
   #^ calls: app.Counter.bump
    return bump()
    #      ^ calls: app.Counter.bump


run()
#^ calls: app.run
