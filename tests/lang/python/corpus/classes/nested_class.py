# about: a class defined inside a class, constructed through the outer class, its method called
# path: main.py
class Outer:
    class Inner:
        def go(self):
            return 1

    def make(self):
        return self.Inner()
        #           ^ calls: main.Outer.Inner


i = Outer.Inner()
#         ^ calls: main.Outer.Inner
i.go()
# ^ calls: main.Outer.Inner.go
Outer().make().go()
#^ calls: main.Outer
#       ^ calls: main.Outer.make
#              ^ calls: main.Outer.Inner.go
