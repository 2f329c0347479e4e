# about: import_module imported by name, in a function, with an absolute and a relative
# about: literal (the package given as a keyword)
# path: pkg/__init__.py
# path: pkg/backends/__init__.py
# path: pkg/backends/memory.py
def store(x):
    return x
# path: pkg/backends/disk.py
def store(x):
    return x
# path: main.py
from importlib import import_module


def load():
    backend = import_module("pkg.backends.memory")
    backend.store(1)
    #       ^ calls: pkg.backends.memory.store
    other = import_module(".disk", package="pkg.backends")
    other.store(2)
    #     ^ calls: pkg.backends.disk.store


load()
#^ calls: main.load
