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
# path: views.py
# A method returning a function it defines hands the closure to its callers (a class-based
# view's as_view): it references it. A function returning its wrapper (route's deco above)
# does not: the definitions it decorates are followed instead.
class View:
    @classmethod
    def as_view(cls):
        def view():
            return 1

        return view
      #        ^ references: views.View.as_view.view (scope)
