# about: instances appended to a list, a method called on each in a loop
# path: main.py
class A:
    def go(self):
        return 1


class B:
    def go(self):
        return 2


objs = []
objs.append(A())
#           ^ calls: main.A
objs.append(B())
#           ^ calls: main.B
for o in objs:
    o.go()
    # ^ calls: main.A.go
    # ^ calls: main.B.go
