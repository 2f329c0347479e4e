# about: a method inherited through three levels, called on the deepest class
# path: main.py
class A:
    def m(self):
        return 1


class B(A):
    pass


class C(B):
    pass


C().m()
#^ calls: main.C
#   ^ calls: main.A.m
