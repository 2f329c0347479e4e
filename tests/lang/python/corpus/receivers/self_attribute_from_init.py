# about: self.x = X() in __init__ types self.x in other methods
# path: app.py
class Cache:
    def lookup(self, key):
        return None


class Service:
    def __init__(self):
        self.cache = Cache()
        #            ^ calls: app.Cache

    def get(self, key):
        return self.cache.lookup(key)
        #                 ^ calls: app.Cache.lookup


Service().get("k")
#^ calls: app.Service
#^ calls: app.Service.__init__
#         ^ calls: app.Service.get
