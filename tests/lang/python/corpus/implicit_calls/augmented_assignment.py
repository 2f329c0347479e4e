# about: x += y calls __iadd__ when the class defines it
# path: app.py
class Bag:
    def __init__(self):
        self.items = []

    def __iadd__(self, item):
        self.items.append(item)
        return self


def run():
    b = Bag()
    #   ^ calls: app.Bag
    #   ^ calls: app.Bag.__init__
    b += 1
   #^ calls: app.Bag.__iadd__
    return b


run()
#^ calls: app.run
