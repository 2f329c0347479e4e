# about: an exception class reached as an attribute of an imported module
# path: errors.py
class NotFound(Exception):
    def __init__(self, key):
        super().__init__(key)
        self.key = key
# path: main.py
import errors


def lookup(key):
    raise errors.NotFound(key)
    #            ^ calls: errors.NotFound
    #            ^ calls: errors.NotFound.__init__


try:
    lookup("k")
   #^ calls: main.lookup
except errors.NotFound as exc:
    print(exc.key)
