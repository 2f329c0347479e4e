# about: two star imports: the last one that exports the name wins, and a module's __all__
# about: decides what it exports (b defines run but leaves it out of __all__)
# path: pkg/__init__.py
# path: pkg/a.py
def run():
    return "a"
# path: pkg/b.py
__all__ = ["stop"]


def run():
    return "b"


def stop():
    return "stop"
# path: pkg/main.py
from pkg.a import *  # noqa: F403
from pkg.b import *  # noqa: F403

run()
#^ calls: pkg.a.run
stop()
#^ calls: pkg.b.stop
