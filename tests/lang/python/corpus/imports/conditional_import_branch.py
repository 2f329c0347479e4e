# about: an import under an if: the branch that runs binds the name; the other branch's
# about: call is asserted as static
# path: pkg/__init__.py
# path: pkg/new.py
def api():
    return "new"
# path: pkg/old.py
def api():
    return "old"
# path: pkg/main.py
import sys

if sys.version_info >= (3, 0):
    from pkg.new import api

    api()
   #^ calls: pkg.new.api
else:
    from pkg.old import api

    api()
   #^ calls: pkg.old.api [static]
