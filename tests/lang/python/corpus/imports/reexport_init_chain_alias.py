# about: re-exports through __init__ files: an alias in the outer package, a star import
# about: limited by __all__ in the inner one, a package attribute reached by `import pkg`
# path: pkg/__init__.py
from .core import api as public_api
from .core import helpers
# path: pkg/core/__init__.py
from .impl import *  # noqa: F403
from . import helpers
# path: pkg/core/impl.py
__all__ = ["api"]


def api():
    return "api"
# path: pkg/core/helpers.py
def fmt():
    return "f"
# path: main.py
import pkg

pkg.public_api()
#   ^ calls: pkg.core.impl.api
pkg.helpers.fmt()
#           ^ calls: pkg.core.helpers.fmt
