# about: constructing a class calls it and its __init__; a method called on the instance
# path: main.py
class Counter:
    def __init__(self):
        self.n = 0

    def bump(self):
        self.n += 1


c = Counter()
#   ^ calls: main.Counter
#   ^ calls: main.Counter.__init__
c.bump()
# ^ calls: main.Counter.bump
