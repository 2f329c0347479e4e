# A test (or fixture, or helper) of a test file that imports a module in its body runs the
# module's top-level code when it runs (a suite's app module that sets itself up on
# import: Flask's `from blueprintapp import app` registers its blueprints): the function
# IMPORTS that module (the submodule a `from` import names, else the module it names),
# beside the module-level edge to the name. A test module's own `from m import x` runs m
# when the module is collected (`from flask.cli import FlaskGroup` runs flask/cli.py, which
# hands a callback to click): the test module IMPORTS m beside x. Outside test files
# neither (the query side: tests/test_impact_test_modules.py).
# exact: imports
# path: app/__init__.py
from app.setup import register
                    # ^ imports: app.setup.register

register()
# path: app/setup.py
def register():
    pass
# path: app/lazy.py
def later():
    from app import register
       # ^ imports: app.setup.register
    return register
# path: tests/test_app.py
import app
     # ^ imports: app


def test_imports_app():
    from app import register
       # ^ imports: app.setup.register
       # ^ imports: app from test_app.test_imports_app
    assert register


def test_imports_submodule():
    from app import setup
                  # ^ imports: app.setup
                  # ^ imports: app.setup from test_app.test_imports_submodule
    import app.lazy
         # ^ imports: app.lazy
         # ^ imports: app.lazy from test_app.test_imports_submodule
    import os
         # ^ imports: <external>::os
    assert setup and os
# path: tests/test_names.py
from app.setup import register as registered
                    # ^ imports: app.setup.register
                    # ^ imports: app.setup


def test_registered():
    assert registered
# path: tests/test_star.py
from app import *
             # ^ imports: app
from app import lazy
              # ^ imports: app.lazy
from typing import TYPE_CHECKING
                 # ^ imports: <external>::typing.TYPE_CHECKING

if TYPE_CHECKING:  # only a type checker imports these: setup.py does not run
    from app.setup import register
                        # ^ imports: app.setup.register
