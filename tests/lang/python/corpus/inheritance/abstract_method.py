# about: a call on a receiver declared as an abstract base runs the concrete subclass's method
# path: app.py
from abc import ABC, abstractmethod


class Storage(ABC):
    @abstractmethod
    def put(self, key):
        raise NotImplementedError


class Memory(Storage):
    def put(self, key):
        return key


def store(s: Storage):
    return s.put("k")
    #        ^ calls: app.Memory.put


store(Memory())
#^ calls: app.store
#     ^ calls: app.Memory
