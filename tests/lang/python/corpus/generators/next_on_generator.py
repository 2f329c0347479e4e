# about: next() on a generator object: the yielded instance's method is called
# path: main.py
class Item:
    def use(self):
        return 1


def items():
    yield Item()
    #     ^ calls: main.Item


first = next(items())
#            ^ calls: main.items
first.use()
#     ^ calls: main.Item.use
