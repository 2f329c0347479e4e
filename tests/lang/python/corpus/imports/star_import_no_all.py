# about: without __all__, a star import binds the names that do not start with an underscore
# path: pkg/__init__.py
# path: pkg/helpers.py
def visible():
    return _hidden()
    #      ^ calls: pkg.helpers._hidden


def _hidden():
    return 1
# path: pkg/main.py
from pkg.helpers import *  # noqa: F403


def _hidden():
    return 2


visible() + _hidden()
#^ calls: pkg.helpers.visible
#           ^ calls: pkg.main._hidden
