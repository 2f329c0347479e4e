# about: constructing a dataclass runs its generated __init__, which calls __post_init__
# path: app.py
from dataclasses import dataclass


def normalize(s):
    return s.lower()


@dataclass
#^ calls: dataclasses.dataclass
class User:
    name: str

    def __post_init__(self):
        self.name = normalize(self.name)
        #           ^ calls: app.normalize


User("Ann")
#^ calls: app.User
#^ calls: app.User.__post_init__
