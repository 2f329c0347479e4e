# about: getattr(obj, "name") with a literal name, then called
# path: app.py
class Handler:
    def on_get(self):
        return "get"

    def on_post(self):
        return "post"


def handle(h):
    return getattr(h, "on_get")()
    #      ^ calls: builtins.getattr
    #      ^ calls: app.Handler.on_get


handle(Handler())
#^ calls: app.handle
#      ^ calls: app.Handler
