# about: staticmethod and classmethod are builtins: calls reach the functions themselves
# path: app.py
class Parser:
    @staticmethod
    def clean(text):
        return text.strip()

    @classmethod
    def create(cls):
        return cls()
        #      ^ calls: app.Parser

    def parse(self, text):
        return self.clean(text)
        #           ^ calls: app.Parser.clean


p = Parser.create()
#          ^ calls: app.Parser.create
p.parse(" x ")
# ^ calls: app.Parser.parse
Parser.clean("y")
#      ^ calls: app.Parser.clean
