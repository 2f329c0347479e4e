# about: cls in a classmethod is the class: cls() constructs it, cls.m() calls its method
# path: app.py
class Model:
    def __init__(self, data):
        self.data = data

    @classmethod
    def from_text(cls, text):
        data = cls.clean(text)
        #          ^ calls: app.Model.clean
        return cls(data)
        #      ^ calls: app.Model
        #      ^ calls: app.Model.__init__

    @staticmethod
    def clean(text):
        return text.strip()


Model.from_text(" x ")
#^ calls: app.Model.from_text
