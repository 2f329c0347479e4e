# about: a definition after a star import rebinds the name
# path: pkg/__init__.py
# path: pkg/base.py
def render():
    return "base"
# path: pkg/main.py
from pkg.base import *  # noqa: F403


def render():
    return "main"


render()
#^ calls: pkg.main.render
