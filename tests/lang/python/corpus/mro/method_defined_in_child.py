# about: two bases and the class itself define the method: the class's own one is called
# path: main.py
class A:
    def who(self):
        return "A"


class B:
    def who(self):
        return "B"


class C(A, B):
    def who(self):
        return "C"


C().who()
#^ calls: main.C
#   ^ calls: main.C.who
