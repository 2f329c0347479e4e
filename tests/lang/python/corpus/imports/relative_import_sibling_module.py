# about: `from . import sibling` inside a package binds the sibling module
# path: pkg/__init__.py
# path: pkg/sibling.py
def helper():
    return 1
# path: pkg/main.py
from . import sibling


def run():
    return sibling.helper()
    #              ^ calls: pkg.sibling.helper
# path: go.py
from pkg.main import run

run()
#^ calls: pkg.main.run
