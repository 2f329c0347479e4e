# A test (or fixture, or helper) of a test file that imports a module in its body runs the
# module's top-level code when it runs (a suite's app module that sets itself up on
# import: Flask's `from blueprintapp import app` registers its blueprints): the function
# IMPORTS that module (the submodule a `from` import names, else the module it names),
# beside the module-level edge to the name. Outside test files it does not (the query
# side: tests/test_impact_test_modules.py).
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
