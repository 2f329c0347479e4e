# Calls at module level belong to the module symbol, in a class body to the class.
# (was test_python_resolution.py: test_module_top_level_calls_belong_to_the_module)
#
# test_module_top_level_calls_belong_to_the_module:
#   a call in a class body runs at class creation: it belongs to the class
# exact: calls, imports, references, extends, implements
# path: app.py
def setup():
    pass

setup()
# ^ calls: app.setup (scope)

class Config:
    value = setup()
          # ^ calls: app.setup (scope)

if __name__ == "__main__":
    setup()
