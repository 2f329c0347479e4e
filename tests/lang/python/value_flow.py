# Functions passed as values: a reference from the caller, a call from the callee.
# (was test_python_resolution.py: test_functions_passed_as_values)
#
# test_functions_passed_as_values:
#   the callee calls what it was given (in a closure too): lower confidence
#   passing a function is a reference from the caller, whether or not it gets called
# exact: calls, imports, references, extends, implements
# path: events.py
def apply(func, value):
    return func(value)
         # ^ unresolved: func

def register(callback):
    def wrapper(x):
        return callback(x)
             # ^ unresolved: callback
    return wrapper

def store(callback):
    HANDLERS.append(callback)  # a list's method: a builtin call (HANDLERS = [] below)

HANDLERS = []
# path: use.py
from events import apply, register, store
                 # ^ imports: events.apply
                        # ^ imports: events.register
                                  # ^ imports: events.store

def double(x):
    return 2 * x

def main():
    apply(double, 3)
  # ^ calls: events.apply (import)
        # ^ calls: use.double (value-flow)
        # ^ references: use.double (value-flow)
    register(callback=double)
  # ^ calls: events.register (import)
    store(double)
  # ^ calls: events.store (import)
