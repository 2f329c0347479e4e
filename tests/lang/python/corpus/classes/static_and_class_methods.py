# about: a staticmethod and a classmethod called on the class and on an instance
# path: main.py
class Util:
    @staticmethod
    def twice(x):
        return x * 2

    @classmethod
    def make(cls):
        return cls()
        #      ^ calls: main.Util


Util.twice(1)
#    ^ calls: main.Util.twice
u = Util.make()
#        ^ calls: main.Util.make
u.twice(2)
# ^ calls: main.Util.twice
