# about: instances of library classes: a method called on one is named by the class
# about: (`collections.Counter.most_common`), through an attribute of self and a call chain
# externals: scored
# path: app.py
import collections
from decimal import Decimal


class Tally:
    def __init__(self):
        self.counts = collections.Counter()
        #                         ^ calls: collections.Counter

    def add(self, word):
        self.counts.update([word])
        #           ^ calls: collections.Counter.update
        return self.counts.most_common(1)
        #                  ^ calls: collections.Counter.most_common


def price(text):
    return Decimal(text).quantize(Decimal("0.01"))
    #      ^ calls: decimal.Decimal
    #                    ^ calls: decimal.Decimal.quantize
    #                             ^ calls: decimal.Decimal


t = Tally()
#   ^ calls: app.Tally
#   ^ calls: app.Tally.__init__
t.add("a")
# ^ calls: app.Tally.add
price("1.234")
#^ calls: app.price
