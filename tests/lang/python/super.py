# super() follows the MRO of the enclosing class.
# (was test_python_resolution.py: test_super_follows_the_mro)
#
# test_super_follows_the_mro:
#   super() inside Both starts after Both in its MRO: Left; inside Left, for a Both
#   instance, after Left in Both's MRO: Right (issue 25: a dispatch edge)
# exact: calls, imports, references, extends, implements
# path: m.py
class Base:
    def __init__(self, x):
        self.x = x

    def save(self):
        pass

class Left(Base):
         # ^ extends: m.Base
    def save(self):
        super().save()
      # ^ calls: m.Base.save (super)
      # ^ calls: m.Right.save (dispatch)

class Right(Base):
          # ^ extends: m.Base
    def save(self):
        super().save()
      # ^ calls: m.Base.save (super)

class Both(Left, Right):
         # ^ extends: m.Left
               # ^ extends: m.Right
    def __init__(self):
        super().__init__(1)
      # ^ calls: m.Base.__init__ (super)

    def save(self):
        super().save()
      # ^ calls: m.Left.save (super)
