# self and cls find methods through the class's MRO; self calls may dispatch to overrides.
# (was test_python_resolution.py: test_self_cls_and_the_mro)
#
# test_self_cls_and_the_mro:
#   self may be a B (or a D, whose MRO reaches B.who first)
#   D's MRO is D, B, C, A: who is B's, run is C's
# exact: calls, imports, references, extends, implements
# path: m.py
class A:
    def who(self):
        return "A"

    def hello(self):
        return self.who()
             # ^ calls: m.A.who (self)
             # ^ calls: m.B.who (dispatch)

class B(A):
      # ^ extends: m.A
    def who(self):
        return "B"

class C(A):
      # ^ extends: m.A
    def run(self):
        return self.hello()
             # ^ calls: m.A.hello (inheritance)

    @classmethod
    def build(cls):
        return cls.make()
             # ^ calls: m.C.make (self)

    @classmethod
    def make(cls):
        return cls()
             # ^ calls: m.C (self)

    @staticmethod
    def util(x):
        return x.who()
             # ^ unresolved: who

class D(B, C):
      # ^ extends: m.B
         # ^ extends: m.C
    def go(self):
        return self.who(), self.run()
             # ^ calls: m.B.who (inheritance)
                         # ^ calls: m.C.run (inheritance)
