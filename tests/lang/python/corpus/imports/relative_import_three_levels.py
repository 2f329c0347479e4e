# about: from ... import module and from ...module import name, three packages deep
# path: top/__init__.py
# path: top/util.py
def helper():
    return "h"


def other():
    return "o"
# path: top/a/__init__.py
# path: top/a/b/__init__.py
# path: top/a/b/leaf.py
from ... import util
from ...util import other


def use():
    other()
   #^ calls: top.util.other
    return util.helper()
    #           ^ calls: top.util.helper
# path: main.py
from top.a.b.leaf import use

use()
#^ calls: top.a.b.leaf.use
