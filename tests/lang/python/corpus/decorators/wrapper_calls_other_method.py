# about: a decorator whose wrapper calls a method on the instance before the wrapped method
# path: app.py
def requires_open(method):
    def check(self, *args):
        self.ensure_open()
        #    ^ calls: app.File.ensure_open
        return method(self, *args)
        #      ^ calls: app.File.read
        #      ^ calls: app.File.write

    return check


class File:
    def __init__(self):
        self.open = True

    def ensure_open(self):
        return self.open

    @requires_open
    #^ calls: app.requires_open
    def read(self):
        return "data"

    @requires_open
    #^ calls: app.requires_open
    def write(self, data):
        return len(data)
        #      ^ calls: builtins.len


f = File()
#   ^ calls: app.File
#   ^ calls: app.File.__init__
f.read()
# ^ calls: app.requires_open.check
f.write("x")
# ^ calls: app.requires_open.check
