# about: a module global holding a function, read from another module and called
# path: pkg/__init__.py
# path: pkg/settings.py
def default_hash(s):
    return len(s)
    #      ^ calls: builtins.len


HASHER = default_hash
# path: pkg/main.py
from pkg import settings


def digest(s):
    return settings.HASHER(s)
    #               ^ calls: pkg.settings.default_hash


digest("abc")
#^ calls: pkg.main.digest
