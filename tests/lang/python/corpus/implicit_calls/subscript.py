# about: x[k] calls __getitem__, x[k] = v calls __setitem__, del x[k] calls __delitem__
# path: app.py
class Store:
    def __init__(self):
        self.data = {}

    def __getitem__(self, key):
        return self.data[key]

    def __setitem__(self, key, value):
        self.data[key] = value

    def __delitem__(self, key):
        del self.data[key]


def run():
    s = Store()
    #   ^ calls: app.Store
    #   ^ calls: app.Store.__init__
    s["a"] = 1
   #^ calls: app.Store.__setitem__
    v = s["a"]
    #   ^ calls: app.Store.__getitem__
    del s["a"]
    #   ^ calls: app.Store.__delitem__
    return v


run()
#^ calls: app.run
