# about: a function of a package's submodule returns a function of a third module, called
# about: by the importer
# path: pkg/__init__.py
# path: pkg/sub.py
from other import target


def get():
    return target
# path: other.py
def target():
    pass
# path: main.py
from pkg.sub import get

get()()
#^ calls: pkg.sub.get
#^ calls: other.target
