# about: a function defined in a package's __init__ called as an attribute of the package
# path: pkg/__init__.py
def setup():
    return 1
# path: main.py
import pkg

pkg.setup()
#   ^ calls: pkg.setup
