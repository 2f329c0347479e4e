# about: super().__init__() through three classes; constructing the leaf runs each __init__ in turn
# path: app.py
class A:
    def __init__(self):
        self.a = 1


class B(A):
    def __init__(self):
        super().__init__()
        #       ^ calls: app.A.__init__
        self.b = 2


class C(B):
    def __init__(self):
        super().__init__()
        #       ^ calls: app.B.__init__
        self.c = 3


C()
#^ calls: app.C
#^ calls: app.C.__init__
