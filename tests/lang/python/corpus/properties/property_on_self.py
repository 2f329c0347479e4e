# about: a property read through self inside another method
# path: app.py
class Order:
    def __init__(self, items):
        self.items = items

    @property
    def count(self):
        return len(self.items)
        #      ^ calls: builtins.len

    def summary(self):
        return "n=" + str(self.count)
        #                      ^ calls: app.Order.count


Order([1, 2]).summary()
#^ calls: app.Order
#^ calls: app.Order.__init__
#             ^ calls: app.Order.summary
