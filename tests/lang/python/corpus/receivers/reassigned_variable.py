# about: a variable rebound to an instance of another class: each call uses the current binding
# path: app.py
class Reader:
    def read(self):
        return "r"


class Writer:
    def write(self):
        return "w"


def run():
    x = Reader()
    #   ^ calls: app.Reader
    a = x.read()
    #     ^ calls: app.Reader.read
    x = Writer()
    #   ^ calls: app.Writer
    b = x.write()
    #     ^ calls: app.Writer.write
    return a + b


run()
#^ calls: app.run
