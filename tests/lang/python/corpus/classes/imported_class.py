# about: a class imported from another module: constructing it and calling its method
# path: to.py
class Service:
    def __init__(self, name):
        self.name = name

    def start(self):
        return self.name
# path: main.py
from to import Service

s = Service("a")
#   ^ calls: to.Service
#   ^ calls: to.Service.__init__
s.start()
# ^ calls: to.Service.start
