# about: a package's __init__ star-imports two modules; an importer of the package sees
# about: the last binding of each name
# path: pkg/__init__.py
from pkg.base import *  # noqa: F403
from pkg.extra import *  # noqa: F403
# path: pkg/base.py
def connect():
    return "base"


def close():
    return "close"
# path: pkg/extra.py
def connect():
    return "extra"
# path: main.py
import pkg

pkg.connect()
#   ^ calls: pkg.extra.connect
pkg.close()
#   ^ calls: pkg.base.close
