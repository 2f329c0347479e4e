# about: a name re-exported through two packages' __init__ files
# path: lib/__init__.py
from lib.sub import build
# path: lib/sub/__init__.py
from lib.sub.impl import build
# path: lib/sub/impl.py
def build():
    return "built"
# path: app.py
from lib import build

build()
#^ calls: lib.sub.impl.build
