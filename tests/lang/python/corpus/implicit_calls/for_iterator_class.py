# about: a for loop calls __iter__ of the iterable and __next__ of the iterator it returned
# path: app.py
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


def total():
    s = 0
    for i in Countdown(3):
    #        ^ calls: app.Countdown
    #        ^ calls: app.Countdown.__init__
    #        ^ calls: app.Countdown.__iter__
    #        ^ calls: app.Countdown.__next__
        s += i
    return s


total()
#^ calls: app.total
