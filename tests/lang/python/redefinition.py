# A redefined name binds the definition in effect where it is used.
# (was test_python_resolution.py: test_redefinition_binds_the_latest_definition)
#
# test_redefinition_binds_the_latest_definition:
#   at module level, before the redefinition
#   at run time, the module has f#2
# exact: calls, imports, references, extends, implements
# path: m.py
def f():
    return 1

a = f()
  # ^ calls: m.py::f (scope)

def f():
    return 2

def user():
    return f()
         # ^ calls: m.py::f#2 (scope)
