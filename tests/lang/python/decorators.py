# A decorator is called from the scope around the decorated definition (`@d def f` is
# f = d(f)); `@d(x)` also calls what d(x) returned (here route's deco), with the function.
# (was test_python_resolution.py: test_decorators_are_calls_from_the_decorated_definition)
# exact: calls, imports, references, extends, implements
# path: m.py
import functools
     # ^ imports: <external>::functools

def trace(f):
    return f

def route(path):
    def deco(f):
        return f
    return deco

class Service:
    #v calls: m.trace (scope)
    @trace
    #v calls: m.route (scope)
    #v calls: m.route.deco (decorator)
    @route("/x")
    def handle(self):
        pass

    @staticmethod
    def s():
        pass

    @property
    def p(self):
        return 1

    #         v calls: <external>::functools.cache (import)
    @functools.cache
    def c(self):
        pass

# v calls: m.trace (scope)
@trace
class Thing:
    pass
