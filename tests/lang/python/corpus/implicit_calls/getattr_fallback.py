# about: reading an attribute the object does not have calls __getattr__
# path: app.py
class Proxy:
    def __init__(self):
        self.data = {"x": 1}

    def __getattr__(self, name):
        return self.data[name]


def run():
    p = Proxy()
    #   ^ calls: app.Proxy
    #   ^ calls: app.Proxy.__init__
    return p.x
    #        ^ calls: app.Proxy.__getattr__


run()
#^ calls: app.run
