# about: getattr() on an instance with a literal method name, the bound method called
# path: main.py
class Handler:
    def on_get(self):
        return 1


h = Handler()
#   ^ calls: main.Handler
getattr(h, "on_get")()
#^ calls: main.Handler.on_get
