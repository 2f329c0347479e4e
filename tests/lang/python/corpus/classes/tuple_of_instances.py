# about: instances bound by a tuple assignment, a method of each called
# path: main.py
class A:
    def go(self):
        return "a"


class B:
    def go(self):
        return "b"


a, b = A(), B()
#      ^ calls: main.A
#           ^ calls: main.B
a.go()
# ^ calls: main.A.go
b.go()
# ^ calls: main.B.go
