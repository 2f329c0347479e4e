# about: constructing a subclass without its own __init__ runs the base's __init__
# path: pkg/__init__.py
# path: pkg/models.py
class Model:
    def __init__(self, name):
        self.name = name


class User(Model):
    pass
# path: pkg/main.py
from pkg.models import User

User("ann")
#^ calls: pkg.models.User
#^ calls: pkg.models.Model.__init__
