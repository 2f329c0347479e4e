# about: a method called through the class with the instance passed explicitly
# path: main.py
class A:
    def m(self):
        return 1


a = A()
#   ^ calls: main.A
A.m(a)
# ^ calls: main.A.m
