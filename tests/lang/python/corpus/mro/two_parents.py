# about: a class with two bases: a method is found in the first base that defines it
# path: main.py
class A:
    def who(self):
        return "A"


class B:
    def who(self):
        return "B"

    def only_b(self):
        return "b"


class C(A, B):
    pass


c = C()
#   ^ calls: main.C
c.who()
# ^ calls: main.A.who
c.only_b()
# ^ calls: main.B.only_b
