# A constructor call calls the class and its __init__.
# (was test_python_resolution.py: test_constructor_calls_the_class_and_its_init)
#
# test_constructor_calls_the_class_and_its_init:
#   inherited __init__
# exact: calls, imports, references, extends, implements
# path: m.py
class Base:
    def __init__(self):
        pass

class Child(Base):
          # ^ extends: m.Base
    pass

class Plain:
    pass

def make():
    Child()
  # ^ calls: m.Base.__init__ (constructor)
  # ^ calls: m.Child (scope)
    Plain()
  # ^ calls: m.Plain (scope)
    Base()
  # ^ calls: m.Base (scope)
