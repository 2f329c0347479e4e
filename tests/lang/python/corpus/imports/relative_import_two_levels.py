# about: from ...x import f two packages up
# path: top/__init__.py
# path: top/shared.py
def shared():
    return "s"
# path: top/a/__init__.py
# path: top/a/b/__init__.py
# path: top/a/b/leaf.py
from ...shared import shared


def use():
    return shared()
    #      ^ calls: top.shared.shared
# path: main.py
from top.a.b.leaf import use

use()
#^ calls: top.a.b.leaf.use
