# about: two star imports bind the same name: the last one wins
# path: pkg/__init__.py
# path: pkg/a.py
def run():
    return "a"
# path: pkg/b.py
def run():
    return "b"
# path: pkg/main.py
from pkg.a import *  # noqa: F403
from pkg.b import *  # noqa: F403

run()
#^ calls: pkg.b.run
