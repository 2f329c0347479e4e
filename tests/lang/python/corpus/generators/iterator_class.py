# about: a class with __iter__ and __next__: a for loop over an instance calls both
# path: main.py
class Countdown:
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return self

    def __next__(self):
        if self.n == 0:
            raise StopIteration
        self.n -= 1
        return self.n


for x in Countdown(2):
#        ^ calls: main.Countdown
#        ^ calls: main.Countdown.__init__
#        ^ calls: main.Countdown.__iter__
#        ^ calls: main.Countdown.__next__
    pass
