# about: from .. import x and from ..mod import f in a subpackage
# path: pkg/__init__.py
# path: pkg/util.py
def helper():
    return 1
# path: pkg/sub/__init__.py
# path: pkg/sub/mod.py
from .. import util
from ..util import helper


def run():
    return util.helper() + helper()
    #           ^ calls: pkg.util.helper
    #                      ^ calls: pkg.util.helper
# path: main.py
from pkg.sub.mod import run

run()
#^ calls: pkg.sub.mod.run
