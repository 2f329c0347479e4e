# about: the value returned by a known function without annotation types the receiver
# path: app.py
class Parser:
    def parse(self, s):
        return s.split()


def build():
    return Parser()
    #      ^ calls: app.Parser


def run():
    p = build()
    #   ^ calls: app.build
    return p.parse("a b")
    #        ^ calls: app.Parser.parse


run()
#^ calls: app.run
