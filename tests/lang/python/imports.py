# Imports: IMPORTS edges, and calls through absolute, relative and aliased imports and re-exports.
# (was test_python_resolution.py: test_imports_edges, test_calls_through_imports)
#
# test_imports_edges:
#   from ..util import * and import pkg.util
#   imports inside a function still belong to the module
#   re-exported by pkg/__init__.py
#
# test_calls_through_imports:
#   `from ..util import *` does not bind _private: that call stays unresolved
#
# expect: calls.unresolved = 1
# exact: calls, imports, references, extends, implements
# path: main.py
from pkg import Engine
              # ^ imports: pkg.core.Engine

Engine().start()
# ^ calls: pkg.core.Engine (import)
# ^ calls: pkg.core.Engine.start (local-type)
# path: pkg/__init__.py
from .core import Engine
                # ^ imports: pkg.core.Engine
from .util import helper as public_helper
                # ^ imports: pkg.util.helper
# path: pkg/core.py
from . import util
            # ^ imports: pkg.util
from .util import helper
                # ^ imports: pkg.util.helper

class Engine:
    def start(self):
        helper()
      # ^ calls: pkg.util.helper (import)
        util.helper()
        return util.other()
             # ^ calls: pkg.util.other (import)
# path: pkg/sub/__init__.py
# path: pkg/sub/deep.py
from ..core import Engine as E
                 # ^ imports: pkg.core.Engine
from ..util import *
     # ^ imports: pkg.util
from .. import util as u
import pkg.util
import pkg.util as pu

def run():
    E().start()
  # ^ calls: pkg.core.Engine (import)
  # ^ calls: pkg.core.Engine.start (local-type)
    helper()
  # ^ calls: pkg.util.helper (import)
    u.other()
  # ^ calls: pkg.util.other (import)
    pkg.util.other()
    pu.helper()
    _private()
  # ^ unresolved: _private

def lazy():
    from pkg import public_helper
  # ^ imports: pkg.util.helper
    import requests
         # ^ imports: <external>::requests
    public_helper()
  # ^ calls: pkg.util.helper (import)
    requests.get("x")
  # ^ calls: <external>::requests.get (import)
# path: pkg/util.py
import os.path
     # ^ imports: <external>::os.path
import json as j
     # ^ imports: <external>::json

def helper():
    return os.path.join("a", "b")
         # ^ calls: <external>::os.path.join (import)

def other():
    return j.dumps({})
         # ^ calls: <external>::json.dumps (import)

def _private():
    pass
