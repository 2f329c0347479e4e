# Names resolve as Python looks them up: local, enclosing functions, module, builtins.
# (was test_python_resolution.py: test_local_enclosing_module_and_builtin_scopes)
#
# test_local_enclosing_module_and_builtin_scopes:
#   inner sees the enclosing function's helper, not the module's
#   len() is a builtin; helper() on a parameter, make() and a local bound to its
#   unknown result are unresolved, not guessed at the module's helper
#
# expect: calls.builtin = 1
# expect: calls.unresolved = 3
# exact: calls, imports, references, extends, implements
# path: m.py
def helper():
    return 1

def outer():
    def inner():
        return helper()
             # ^ calls: m.outer.helper (scope)
    def helper():
        return 2
    inner()
  # ^ calls: m.outer.inner (scope)
    len([])
    return helper()
         # ^ calls: m.outer.helper (scope)

def shadow(helper):
    return helper()
         # ^ unresolved: helper

def local_rebinding():
    helper = make()
           # ^ unresolved: make
    return helper()
         # ^ unresolved: helper
