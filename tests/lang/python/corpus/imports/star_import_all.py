# about: from m import * binds the names in m.__all__
# path: pkg/__init__.py
# path: pkg/tools.py
__all__ = ["public"]


def public():
    return "public"


def other():
    return "other"
# path: pkg/main.py
from pkg.tools import *  # noqa: F403

public()
#^ calls: pkg.tools.public
