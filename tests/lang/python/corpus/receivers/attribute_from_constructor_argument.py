# about: a constructor argument stored on self types the attribute by the parameter's annotation
# path: app.py
class Store:
    def put(self, v):
        return v


class Writer:
    def __init__(self, store: Store):
        self.store = store

    def write(self, v):
        return self.store.put(v)
        #                 ^ calls: app.Store.put


Writer(Store()).write(1)
#^ calls: app.Writer
#^ calls: app.Writer.__init__
#      ^ calls: app.Store
#               ^ calls: app.Writer.write
