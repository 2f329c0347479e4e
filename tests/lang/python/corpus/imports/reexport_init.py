# about: a package re-exports a function from a submodule in __init__
# path: pkg/__init__.py
from pkg.core import make

__all__ = ["make"]
# path: pkg/core.py
def make():
    return 1
# path: app.py
import pkg

pkg.make()
#   ^ calls: pkg.core.make
