# about: constructing a class with __new__ and __init__ runs both
# path: app.py
class Singleton:
    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __init__(self):
        self.ready = True


a = Singleton()
#   ^ calls: app.Singleton
#   ^ calls: app.Singleton.__new__
#   ^ calls: app.Singleton.__init__
