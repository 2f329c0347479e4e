# about: an import chosen by a version check at module level: a use after the if sees
# about: either binding (the branch not taken is static)
# path: pkg/__init__.py
# path: pkg/compat_new.py
def api():
    return "new"
# path: pkg/compat_old.py
def api():
    return "old"
# path: pkg/main.py
import sys

if sys.version_info >= (3, 0):
    from pkg.compat_new import api
else:
    from pkg.compat_old import api

api()
#^ calls: pkg.compat_new.api
#^ calls: pkg.compat_old.api [static]
